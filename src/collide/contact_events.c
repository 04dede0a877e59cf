/* Contact begin / end events: collected while stepping (and by destroy
 * calls between steps), published sorted by shape pair at the end of the
 * next step (see contact.h). */
#include "collide/contact.h"

#include "base/array.h"
#include "base/error.h"
#include "base/radix_sort.h"

#include <stdlib.h>

ts_result ts_contact_push_begin(const ts_records *records, ts_contact_events_buffer *e, int32_t shape_a,
                                int32_t shape_b)
{
    if (!ts_array_reserve(&records->allocator, (void **)&e->begin_pending, &e->begin_pending_capacity,
                          e->begin_pending_count + 1, sizeof(ts_contact_begin_event))) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contact events)");
    }
    e->begin_pending[e->begin_pending_count++] =
        (ts_contact_begin_event){ts_shape_id_of(records, shape_a), ts_shape_id_of(records, shape_b)};
    return TS_OK;
}

/* End events are also made by destroy calls, where there is no way to report
 * a failure; then the event is dropped. */
ts_result ts_contact_push_end(const ts_records *records, ts_contact_events_buffer *e, int32_t shape_a,
                              int32_t shape_b)
{
    if (!ts_array_reserve(&records->allocator, (void **)&e->end_pending, &e->end_pending_capacity,
                          e->end_pending_count + 1, sizeof(ts_contact_end_event))) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contact events)");
    }
    e->end_pending[e->end_pending_count++] =
        (ts_contact_end_event){ts_shape_id_of(records, shape_a), ts_shape_id_of(records, shape_b)};
    return TS_OK;
}

static uint64_t event_key(ts_shape_id a, ts_shape_id b) { return ((uint64_t)(uint32_t)a.index1 << 32) | (uint32_t)b.index1; }

/* By shape pair; ties (a pair that ended twice: destroyed, re-made and
 * ended again between two steps) by the generations, so the order is
 * total. Begin and end events alike (both are two shape ids). */
static int compare_events(const void *x, const void *y)
{
    const ts_contact_end_event *a = x, *b = y;
    uint64_t ka = event_key(a->shape_a, a->shape_b), kb = event_key(b->shape_a, b->shape_b);
    if (ka != kb) {
        return (ka > kb) - (ka < kb);
    }
    uint64_t ga = ((uint64_t)a->shape_a.generation << 32) | a->shape_b.generation;
    uint64_t gb = ((uint64_t)b->shape_a.generation << 32) | b->shape_b.generation;
    return (ga > gb) - (ga < gb);
}

/* Both event types are a pair of shape ids (snapshots read them so too). */
_Static_assert(sizeof(ts_contact_begin_event) == 2 * sizeof(ts_shape_id), "a begin event is two shape ids");
_Static_assert(sizeof(ts_contact_end_event) == 2 * sizeof(ts_shape_id), "an end event is two shape ids");

/* The positions of `count` events (shape id pairs) in the order of
 * compare_events: by shape pair, then by generations (a radix sort by the
 * second key, then stably by the first); false without room, the caller
 * then sorts with qsort (the same order: the keys cover all that differs
 * between two events of one world). */
static bool order_events(ts_contact_events_buffer *e, const ts_shape_id *pairs, int32_t count)
{
    if (count > e->sort_keys_capacity || 2 * count > e->sort_order_capacity) {
        return false;
    }
    uint64_t *keys = e->sort_keys;
    int32_t *order = e->sort_order, *scratch = e->sort_order + count;
    for (int32_t k = 0; k < count; ++k) {
        order[k] = k;
        keys[k] = ((uint64_t)pairs[2 * k].generation << 32) | pairs[2 * k + 1].generation;
    }
    ts_sort_order(keys, order, scratch, count);
    for (int32_t k = 0; k < count; ++k) {
        keys[k] = event_key(pairs[2 * k], pairs[2 * k + 1]);
    }
    ts_sort_order(keys, order, scratch, count);
    return true;
}

/* `count` published events (begin or end: two shape ids each) sorted:
 * into the pending array (emptied by the swap) when there is room, and then
 * the two arrays trade places; else in place by qsort (the same order). */
static void sort_published(ts_contact_events_buffer *e, void **published, int32_t *published_capacity, void **pending,
                           int32_t *pending_capacity, int32_t count)
{
    if (count < 2) {
        return;
    }
    const ts_shape_id *from = *published;
    if (count > *pending_capacity || !order_events(e, from, count)) {
        qsort(*published, (size_t)count, 2 * sizeof(ts_shape_id), compare_events);
        return;
    }
    ts_shape_id *to = *pending;
    for (int32_t k = 0; k < count; ++k) {
        to[2 * k] = from[2 * e->sort_order[k]];
        to[2 * k + 1] = from[2 * e->sort_order[k] + 1];
    }
    void *sorted = *pending;
    int32_t capacity = *pending_capacity;
    *pending = *published;
    *pending_capacity = *published_capacity;
    *published = sorted;
    *published_capacity = capacity;
}

ts_result ts_contact_events_publish(ts_contact_events_buffer *e)
{
    /* Swap pending and published: the published arrays of the last step
     * become the (emptied) pending ones. */
    ts_contact_begin_event *begin = e->begin_published;
    int32_t begin_capacity = e->begin_published_capacity;
    e->begin_published = e->begin_pending;
    e->begin_published_capacity = e->begin_pending_capacity;
    e->begin_published_count = e->begin_pending_count;
    e->begin_pending = begin;
    e->begin_pending_capacity = begin_capacity;
    e->begin_pending_count = 0;

    ts_contact_end_event *end = e->end_published;
    int32_t end_capacity = e->end_published_capacity;
    e->end_published = e->end_pending;
    e->end_published_capacity = e->end_pending_capacity;
    e->end_published_count = e->end_pending_count;
    e->end_pending = end;
    e->end_pending_capacity = end_capacity;
    e->end_pending_count = 0;

    sort_published(e, (void **)&e->begin_published, &e->begin_published_capacity, (void **)&e->begin_pending,
                   &e->begin_pending_capacity, e->begin_published_count);
    sort_published(e, (void **)&e->end_published, &e->end_published_capacity, (void **)&e->end_pending,
                   &e->end_pending_capacity, e->end_published_count);
    return TS_OK;
}

/* Contact begin / end events: collected while stepping (and by destroy
 * calls between steps), published sorted by shape pair at the end of the
 * next step (see contact.h). */
#include "collide/contact.h"

#include "base/array.h"
#include "base/error.h"

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

static int compare_begin(const void *x, const void *y)
{
    const ts_contact_begin_event *a = x, *b = y;
    uint64_t ka = event_key(a->shape_a, a->shape_b), kb = event_key(b->shape_a, b->shape_b);
    return (ka > kb) - (ka < kb);
}

/* Ties (a pair that ended twice: destroyed, re-made and ended again between
 * two steps) are ordered by the generations, so the order is still total. */
static int compare_end(const void *x, const void *y)
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

    /* qsort may not be given NULL, which an empty list may be */
    if (e->begin_published_count > 0) {
        qsort(e->begin_published, (size_t)e->begin_published_count, sizeof(ts_contact_begin_event), compare_begin);
    }
    if (e->end_published_count > 0) {
        qsort(e->end_published, (size_t)e->end_published_count, sizeof(ts_contact_end_event), compare_end);
    }
    return TS_OK;
}

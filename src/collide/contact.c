/* Contacts: one per shape pair whose fat bounds overlap. Creation (one by
 * one or in a batch), the body contact lists and the pair map, and
 * destruction (one by one or the parted ones of a step in one batch); see
 * contact.h. The narrowphase is in narrowphase_stage.c, the events in
 * contact_events.c. */
#include "collide/contact.h"
#include "collide/contact_recycle.h"
#include "collide/rolling_resistance.h"

#include "base/array.h"
#include "base/error.h"
#include "base/parallel.h"

#include <string.h>

/* ---- body contact lists ---- */

static void link_edge(ts_records *records, int32_t contact, int side)
{
    ts_contact *c = records->contacts + contact;
    ts_body *body = records->bodies + c->edges[side].body;
    int32_t key = contact << 1 | side;
    c->edges[side].prev_key = -1;
    c->edges[side].next_key = body->contact_head;
    if (body->contact_head != -1) {
        records->contacts[body->contact_head >> 1].edges[body->contact_head & 1].prev_key = key;
    }
    body->contact_head = key;
    body->contact_count += 1;
    ts_body_count_edge(&records->store, c->edges[side].body, 1);
}

static void unlink_edge(ts_records *records, int32_t contact, int side)
{
    ts_contact_edge *edge = records->contacts[contact].edges + side;
    ts_body *body = records->bodies + edge->body;
    if (edge->prev_key != -1) {
        records->contacts[edge->prev_key >> 1].edges[edge->prev_key & 1].next_key = edge->next_key;
    } else {
        body->contact_head = edge->next_key;
    }
    if (edge->next_key != -1) {
        records->contacts[edge->next_key >> 1].edges[edge->next_key & 1].prev_key = edge->prev_key;
    }
    body->contact_count -= 1;
    ts_body_count_edge(&records->store, edge->body, -1);
}

/* ---- create / destroy ---- */

/* The narrowphase's lists of slots with news: room for `slots` contacts
 * (and as many blocks). */
bool ts_contact_news_reserve(const ts_allocator *a, ts_collision *collision, int32_t slots)
{
    return ts_array_reserve(a, (void **)&collision->contact_news, &collision->contact_news_capacity, slots,
                            sizeof(int32_t)) &&
           ts_array_reserve(a, (void **)&collision->block_news, &collision->block_news_capacity, slots,
                            sizeof(int32_t));
}

bool ts_contact_recycle_reserve(const ts_allocator *a, ts_collision *collision, int32_t bodies)
{
    return ts_array_reserve(a, (void **)&collision->recycle_bodies, &collision->recycle_bodies_capacity, bodies,
                            sizeof(ts_recycle_body));
}

/* Room for `extra` more contacts, and for one begin or end event per contact
 * in both event buffers, so that a step's events never allocate. */
bool ts_contacts_reserve(ts_records *records, ts_collision *collision, int32_t extra)
{
    /* The ids the next `extra` takes hand out: the top of the free stack,
     * then fresh ones. */
    const ts_id_pool *pool = &records->contact_ids;
    int32_t ids = 0;
    int32_t reused = extra < pool->free_count ? extra : pool->free_count;
    for (int32_t k = 0; k < reused; ++k) {
        int32_t id = pool->free_ids[pool->free_count - 1 - k];
        ids = id + 1 > ids ? id + 1 : ids;
    }
    if (extra > reused) {
        int32_t fresh = pool->next_index + (extra - reused);
        ids = fresh > ids ? fresh : ids;
    }
    /* A contact begins, stops or parts at most once in a step, beside the
     * end events destroy calls queued since the last one. */
    int32_t events = records->contact_store.table.count + extra;
    ts_contact_events_buffer *e = &collision->events;
    int32_t begins = e->begin_pending_count + events, ends = e->end_pending_count + events;
    const ts_allocator *a = &records->allocator;
    return ts_array_reserve(a, (void **)&records->contacts, &records->contact_capacity, ids, sizeof(ts_contact)) &&
           ts_array_reserve(a, (void **)&e->begin_pending, &e->begin_pending_capacity, begins,
                            sizeof(ts_contact_begin_event)) &&
           ts_array_reserve(a, (void **)&e->begin_published, &e->begin_published_capacity, begins,
                            sizeof(ts_contact_begin_event)) &&
           ts_array_reserve(a, (void **)&e->end_pending, &e->end_pending_capacity, ends,
                            sizeof(ts_contact_end_event)) &&
           ts_array_reserve(a, (void **)&e->end_published, &e->end_published_capacity, ends,
                            sizeof(ts_contact_end_event)) &&
           ts_array_reserve(a, (void **)&e->sort_keys, &e->sort_keys_capacity, begins > ends ? begins : ends,
                            sizeof(uint64_t)) &&
           ts_array_reserve(a, (void **)&e->sort_order, &e->sort_order_capacity, 2 * (begins > ends ? begins : ends),
                            sizeof(int32_t)) &&
           ts_array_reserve(a, (void **)&collision->doomed_contacts, &collision->doomed_capacity, events,
                            sizeof(int32_t)) &&
           ts_id_pool_reserve(&records->contact_ids, &records->allocator, ids) && /* frees of all of them */
           ts_contact_store_reserve(&records->contact_store, &records->allocator, events, ids) &&
           /* the narrowphase's lists hold a place per slot of the table (narrowphase_stage.c) */
           ts_contact_news_reserve(a, collision, records->contact_store.table.capacity) &&
           ts_soa_removal_reserve(&collision->contact_removal, a, records->contact_store.table.capacity) &&
           ts_key_map_reserve(&collision->pairs, a, collision->pairs.count + extra);
}

int32_t ts_contact_register(ts_records *records, ts_collision *collision, int32_t shape_a, int32_t shape_b)
{
    int32_t id = ts_id_pool_take(&records->contact_ids);
    const ts_shape *a = records->shapes + shape_a;
    const ts_shape *b = records->shapes + shape_b;
    ts_contact *c = records->contacts + id;
    *c = (ts_contact){
        .shape_a = shape_a,
        .shape_b = shape_b,
        .edges = {{a->body, -1, -1}, {b->body, -1, -1}},
        .color = -1,
        .color_index = -1,
        .graph_body = {-1, -1},
        .alive = true,
    };
    link_edge(records, id, 0);
    link_edge(records, id, 1);
    ts_key_map_add(&collision->pairs, ts_pair_key(shape_a, shape_b), id);

    /* A pair of resting bodies (a shape moved while its island fell asleep)
     * sleeps with them. */
    bool rests = ts_body_store_rests(&records->store, a->body) && ts_body_store_rests(&records->store, b->body);
    ts_soa_add_unfilled(&records->contact_store.table, records->contact_store.columns, id,
                        rests ? TS_CONTACT_RANGE_SLEEPING : TS_CONTACT_RANGE_AWAKE);
    return id;
}

static void fill_slot(ts_records *records, int32_t i)
{
    ts_contact_store *s = &records->contact_store;
    const ts_contact *c = records->contacts + s->table.id_of_slot[i];
    const ts_shape *a = records->shapes + c->shape_a;
    const ts_shape *b = records->shapes + c->shape_b;
    ts_soa_zero_slot(&s->table, s->columns, i);
    s->shape_a[i] = c->shape_a;
    s->shape_b[i] = c->shape_b;
    s->body_a[i] = a->body;
    s->body_b[i] = b->body;
    /* Box2D's mixing rules: friction sqrt(fa fb), restitution max(ra, rb). */
    s->friction[i] = sqrtf(a->friction * b->friction);
    s->restitution[i] = a->restitution > b->restitution ? a->restitution : b->restitution;
    s->rolling_resistance[i] = ts_contact_mix_rolling(a, b);
}

void ts_contacts_fill(ts_records *records, const int32_t *ids, int32_t begin, int32_t end)
{
    for (int32_t k = begin; k < end; ++k) {
        fill_slot(records, records->contact_store.table.slot_of_id[ids[k]]);
    }
}

void ts_contacts_fill_slots(ts_records *records, int32_t begin, int32_t end)
{
    for (int32_t i = begin; i < end; ++i) {
        fill_slot(records, i);
    }
}

ts_result ts_contact_create(ts_records *records, ts_collision *collision, int32_t shape_a, int32_t shape_b)
{
    if (!ts_contacts_reserve(records, collision, 1)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contacts)");
    }
    int32_t id = ts_contact_register(records, collision, shape_a, shape_b);
    ts_contacts_fill(records, &id, 0, 1);
    return TS_OK;
}

void ts_contact_destroy(ts_records *records, ts_collision *collision, int32_t contact)
{
    ts_contact *c = records->contacts + contact;
    ts_contact_store *s = &records->contact_store;
    int32_t i = s->table.slot_of_id[contact];
    if ((s->flags[i] & TS_CONTACT_TOUCHING) != 0) {
        ts_contact_push_end(records, &collision->events, c->shape_a, c->shape_b);
    }
    unlink_edge(records, contact, 0);
    unlink_edge(records, contact, 1);
    ts_key_map_remove(&collision->pairs, ts_pair_key(c->shape_a, c->shape_b));
    ts_contact_store_remove(s, i);
    c->alive = false;
    ts_id_pool_release(&records->contact_ids, contact);
}

void ts_contacts_free(ts_records *records, ts_collision *collision)
{
    const ts_allocator *a = &records->allocator;
    ts_array_free(a, (void **)&records->contacts, &records->contact_capacity, sizeof(ts_contact));
    ts_id_pool_destroy(&records->contact_ids, a);
    ts_contact_store_destroy(&records->contact_store, a);
    ts_key_map_destroy(&collision->pairs, a);
    ts_array_free(a, (void **)&collision->doomed_contacts, &collision->doomed_capacity, sizeof(int32_t));
    ts_array_free(a, (void **)&collision->contact_news, &collision->contact_news_capacity, sizeof(int32_t));
    ts_array_free(a, (void **)&collision->block_news, &collision->block_news_capacity, sizeof(int32_t));
    ts_array_free(a, (void **)&collision->recycle_bodies, &collision->recycle_bodies_capacity,
                  sizeof(ts_recycle_body));
    ts_soa_removal_destroy(&collision->contact_removal, a);
    ts_contact_events_buffer *e = &collision->events;
    ts_array_free(a, (void **)&e->begin_pending, &e->begin_pending_capacity, sizeof(ts_contact_begin_event));
    ts_array_free(a, (void **)&e->begin_published, &e->begin_published_capacity, sizeof(ts_contact_begin_event));
    ts_array_free(a, (void **)&e->end_pending, &e->end_pending_capacity, sizeof(ts_contact_end_event));
    ts_array_free(a, (void **)&e->end_published, &e->end_published_capacity, sizeof(ts_contact_end_event));
    ts_array_free(a, (void **)&e->sort_keys, &e->sort_keys_capacity, sizeof(uint64_t));
    ts_array_free(a, (void **)&e->sort_order, &e->sort_order_capacity, sizeof(int32_t));
    memset(e, 0, sizeof *e);
}

/* Store moves per block of the parallel copy. */
#define TS_REMOVAL_BLOCK 32

typedef struct removal_stage {
    ts_contact_store *store;
    const ts_soa_removal *removal;
    int range;
    int32_t count;
    int32_t block_size;
} removal_stage;

static void removal_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const removal_stage *stage = context;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, stage->count, &begin, &end);
    ts_soa_removal_copy(&stage->store->table, stage->store->columns, stage->removal, stage->range, begin, end);
}

/* How many parted contacts ahead the destroy asks for what it will read:
 * each one's reads (its neighbours in two bodies' lists, the two bodies,
 * its place in the pair map and in the store's maps) are scattered, and a
 * pile parts ~300 contacts a step. */
#define TS_PARTED_AHEAD 6

static void prefetch_parted(const ts_records *records, const ts_collision *collision, int32_t contact)
{
    const ts_contact *c = records->contacts + contact;
    for (int side = 0; side < 2; ++side) {
        const ts_contact_edge *edge = c->edges + side;
        TS_PREFETCH(records->bodies + edge->body);
        if (edge->prev_key != -1) {
            TS_PREFETCH(records->contacts + (edge->prev_key >> 1));
        }
        if (edge->next_key != -1) {
            TS_PREFETCH(records->contacts + (edge->next_key >> 1));
        }
    }
    ts_key_map_prefetch(&collision->pairs, ts_pair_key(c->shape_a, c->shape_b));
}

typedef struct parted_task {
    ts_records *records;
    ts_collision *collision;
} parted_task;

/* The parted contacts out of their bodies' lists and the pair map, their
 * ids freed, in list order. Reads and writes no column of the contact
 * store: it runs on worker 0 beside the store's copies. */
static void forget_parted(void *context)
{
    parted_task *task = context;
    ts_records *records = task->records;
    ts_collision *collision = task->collision;
    const int32_t *doomed = collision->doomed_contacts;
    int32_t count = collision->doomed_count;
    for (int32_t k = 0; k < count; ++k) {
        if (k + TS_PARTED_AHEAD < count) {
            prefetch_parted(records, collision, doomed[k + TS_PARTED_AHEAD]);
        }
        int32_t contact = doomed[k];
        ts_contact *c = records->contacts + contact;
        unlink_edge(records, contact, 0);
        unlink_edge(records, contact, 1);
        ts_key_map_remove(&collision->pairs, ts_pair_key(c->shape_a, c->shape_b));
        c->alive = false;
        ts_id_pool_release(&records->contact_ids, contact);
    }
}

void ts_contacts_destroy_parted(ts_records *records, ts_collision *collision, ts_parallel *parallel)
{
    const int32_t *doomed = collision->doomed_contacts;
    int32_t count = collision->doomed_count;
    if (count == 0) {
        return;
    }
    ts_contact_store *s = &records->contact_store;
    ts_soa_removal *removal = &collision->contact_removal;
    const int32_t *slot_of_id = s->table.slot_of_id;
    for (int32_t k = 0; k < count; ++k) {
        if (k + 2 * TS_PARTED_AHEAD < count) {
            TS_PREFETCH(slot_of_id + doomed[k + 2 * TS_PARTED_AHEAD]);
        }
        ts_soa_remove_deferred(&s->table, removal, slot_of_id[doomed[k]]);
    }
    /* The store's moves, range by range, the first beside the rest of the
     * parted contacts' bookkeeping (on worker 0: serial, scattered reads). */
    parted_task task = {records, collision};
    int ranges = ts_soa_removal_plan(&s->table, removal);
    bool forgotten = false;
    for (int r = 0; r < ranges; ++r) {
        int32_t moves = ts_soa_removal_moves(removal, r);
        removal_stage stage = {s, removal, r, moves, ts_block_size(moves, TS_REMOVAL_BLOCK)};
        int32_t blocks = ts_block_count(moves, stage.block_size);
        if (!forgotten && blocks > 0) {
            ts_parallel_for_with(parallel, removal_block, &stage, blocks, forget_parted, &task);
            forgotten = true;
        } else {
            ts_parallel_for(parallel, removal_block, &stage, blocks);
        }
    }
    if (!forgotten) {
        forget_parted(&task);
    }
    ts_soa_removal_clear(removal);
}

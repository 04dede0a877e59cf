/* Contacts: one per shape pair whose fat bounds overlap. Creation (one by
 * one or in a batch), the body contact lists and the pair map, and
 * destruction (one by one or the parted ones of a step in one batch); see
 * contact.h. The narrowphase is in narrowphase_stage.c, the events in
 * contact_events.c. */
#include "collide/contact.h"

#include "api/world.h"
#include "base/error.h"
#include "base/parallel.h"
#include "islands/contact_graph.h"
#include "islands/sleep.h"
#include "soa/array.h"

#include <string.h>

/* ---- body contact lists ---- */

static void link_edge(ts_world *world, int32_t contact, int side)
{
    ts_contact *c = world->contacts + contact;
    ts_body *body = world->bodies + c->edges[side].body;
    int32_t key = contact << 1 | side;
    c->edges[side].prev_key = -1;
    c->edges[side].next_key = body->contact_head;
    if (body->contact_head != -1) {
        world->contacts[body->contact_head >> 1].edges[body->contact_head & 1].prev_key = key;
    }
    body->contact_head = key;
    body->contact_count += 1;
    ts_body_count_edge(&world->store, c->edges[side].body, 1);
}

static void unlink_edge(ts_world *world, int32_t contact, int side)
{
    ts_contact_edge *edge = world->contacts[contact].edges + side;
    ts_body *body = world->bodies + edge->body;
    if (edge->prev_key != -1) {
        world->contacts[edge->prev_key >> 1].edges[edge->prev_key & 1].next_key = edge->next_key;
    } else {
        body->contact_head = edge->next_key;
    }
    if (edge->next_key != -1) {
        world->contacts[edge->next_key >> 1].edges[edge->next_key & 1].prev_key = edge->prev_key;
    }
    body->contact_count -= 1;
    ts_body_count_edge(&world->store, edge->body, -1);
}

/* ---- create / destroy ---- */

/* The narrowphase's lists of slots with news: room for `slots` contacts
 * (and as many blocks). */
bool ts_contact_news_reserve(ts_world *world, int32_t slots)
{
    const ts_allocator *a = &world->allocator;
    return ts_array_reserve(a, (void **)&world->contact_news, &world->contact_news_capacity, slots, sizeof(int32_t)) &&
           ts_array_reserve(a, (void **)&world->contact_news_count, &world->contact_news_count_capacity, slots,
                            sizeof(int32_t));
}

/* Room for `extra` more contacts, and for one begin or end event per contact
 * in both event buffers, so that a step's events never allocate. */
bool ts_contacts_reserve(ts_world *world, int32_t extra)
{
    /* The ids the next `extra` takes hand out: the top of the free stack,
     * then fresh ones. */
    const ts_id_pool *pool = &world->contact_ids;
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
    int32_t events = world->contact_store.table.count + extra;
    ts_contact_events_buffer *e = &world->events;
    const ts_allocator *a = &world->allocator;
    return ts_array_reserve(a, (void **)&world->contacts, &world->contact_capacity, ids, sizeof(ts_contact)) &&
           ts_array_reserve(a, (void **)&e->begin_pending, &e->begin_pending_capacity, events,
                            sizeof(ts_contact_begin_event)) &&
           ts_array_reserve(a, (void **)&e->begin_published, &e->begin_published_capacity, events,
                            sizeof(ts_contact_begin_event)) &&
           ts_array_reserve(a, (void **)&e->end_pending, &e->end_pending_capacity, events,
                            sizeof(ts_contact_end_event)) &&
           ts_array_reserve(a, (void **)&e->end_published, &e->end_published_capacity, events,
                            sizeof(ts_contact_end_event)) &&
           ts_array_reserve(a, (void **)&world->doomed_contacts, &world->doomed_capacity, events, sizeof(int32_t)) &&
           ts_contact_news_reserve(world, events) &&
           ts_id_pool_reserve(&world->contact_ids, &world->allocator, ids) && /* frees of all of them */
           ts_contact_store_reserve(&world->contact_store, &world->allocator, events, ids) &&
           ts_soa_removal_reserve(&world->contact_removal, a, world->contact_store.table.capacity) &&
           ts_pair_set_reserve(&world->pairs, &world->allocator, world->pairs.count + extra);
}

int32_t ts_contact_register(ts_world *world, int32_t shape_a, int32_t shape_b)
{
    int32_t id = ts_id_pool_take(&world->contact_ids);
    const ts_shape *a = world->shapes + shape_a;
    const ts_shape *b = world->shapes + shape_b;
    ts_contact *c = world->contacts + id;
    *c = (ts_contact){
        .shape_a = shape_a,
        .shape_b = shape_b,
        .edges = {{a->body, -1, -1}, {b->body, -1, -1}},
        .color = -1,
        .color_index = -1,
        .graph_body = {-1, -1},
        .alive = true,
    };
    link_edge(world, id, 0);
    link_edge(world, id, 1);
    ts_pair_set_add(&world->pairs, ts_pair_key(shape_a, shape_b), id);

    /* A pair of resting bodies (a shape moved while its island fell asleep)
     * sleeps with them. */
    bool rests = ts_body_rests(world, a->body) && ts_body_rests(world, b->body);
    ts_soa_add_unfilled(&world->contact_store.table, world->contact_store.columns, id,
                        rests ? TS_CONTACT_RANGE_SLEEPING : TS_CONTACT_RANGE_AWAKE);
    return id;
}

static void fill_slot(ts_world *world, int32_t i)
{
    ts_contact_store *s = &world->contact_store;
    const ts_contact *c = world->contacts + s->table.id_of_slot[i];
    const ts_shape *a = world->shapes + c->shape_a;
    const ts_shape *b = world->shapes + c->shape_b;
    ts_soa_zero_slot(&s->table, s->columns, i);
    s->shape_a[i] = c->shape_a;
    s->shape_b[i] = c->shape_b;
    s->body_a[i] = a->body;
    s->body_b[i] = b->body;
    /* Box2D's mixing rules: friction sqrt(fa fb), restitution max(ra, rb). */
    s->friction[i] = sqrtf(a->friction * b->friction);
    s->restitution[i] = a->restitution > b->restitution ? a->restitution : b->restitution;
}

void ts_contacts_fill(ts_world *world, const int32_t *ids, int32_t begin, int32_t end)
{
    for (int32_t k = begin; k < end; ++k) {
        fill_slot(world, world->contact_store.table.slot_of_id[ids[k]]);
    }
}

void ts_contacts_fill_slots(ts_world *world, int32_t begin, int32_t end)
{
    for (int32_t i = begin; i < end; ++i) {
        fill_slot(world, i);
    }
}

ts_result ts_contact_create(ts_world *world, int32_t shape_a, int32_t shape_b)
{
    if (!ts_contacts_reserve(world, 1)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contacts)");
    }
    int32_t id = ts_contact_register(world, shape_a, shape_b);
    ts_contacts_fill(world, &id, 0, 1);
    return TS_OK;
}

void ts_contact_destroy(ts_world *world, int32_t contact)
{
    ts_contact *c = world->contacts + contact;
    ts_contact_store *s = &world->contact_store;
    int32_t i = s->table.slot_of_id[contact];
    if ((s->flags[i] & TS_CONTACT_TOUCHING) != 0) {
        ts_contact_push_end(world, c->shape_a, c->shape_b);
    }
    ts_contact_uncolor(world, contact);
    ts_contact_unlink_islands(world, contact);
    unlink_edge(world, contact, 0);
    unlink_edge(world, contact, 1);
    ts_pair_set_remove(&world->pairs, ts_pair_key(c->shape_a, c->shape_b));
    ts_contact_store_remove(s, i);
    c->alive = false;
    ts_id_pool_release(&world->contact_ids, contact);
}

void ts_body_destroy_contacts(ts_world *world, int32_t body, int32_t shape)
{
    int32_t key = world->bodies[body].contact_head;
    while (key != -1) {
        int32_t contact = key >> 1;
        const ts_contact *c = world->contacts + contact;
        int32_t next = c->edges[key & 1].next_key;
        if (shape < 0 || c->shape_a == shape || c->shape_b == shape) {
            ts_contact_destroy(world, contact);
        }
        key = next;
    }
}

/* The contacts between two bodies go when a joint forbids them. */
void ts_contacts_destroy_between(ts_world *world, int32_t body_a, int32_t body_b)
{
    int32_t key = world->bodies[body_a].contact_head;
    while (key != -1) {
        int32_t contact = key >> 1;
        const ts_contact *c = world->contacts + contact;
        int32_t next = c->edges[key & 1].next_key;
        if (c->edges[(key & 1) ^ 1].body == body_b) {
            ts_contact_destroy(world, contact);
        }
        key = next;
    }
}

void ts_contacts_free(ts_world *world)
{
    const ts_allocator *a = &world->allocator;
    ts_array_free(a, (void **)&world->contacts, &world->contact_capacity, sizeof(ts_contact));
    ts_id_pool_destroy(&world->contact_ids, a);
    ts_contact_store_destroy(&world->contact_store, a);
    ts_pair_set_destroy(&world->pairs, a);
    ts_graph_destroy(&world->graph, a);
    ts_array_free(a, (void **)&world->doomed_contacts, &world->doomed_capacity, sizeof(int32_t));
    ts_array_free(a, (void **)&world->contact_news, &world->contact_news_capacity, sizeof(int32_t));
    ts_array_free(a, (void **)&world->contact_news_count, &world->contact_news_count_capacity, sizeof(int32_t));
    ts_soa_removal_destroy(&world->contact_removal, a);
    ts_contact_events_buffer *e = &world->events;
    ts_array_free(a, (void **)&e->begin_pending, &e->begin_pending_capacity, sizeof(ts_contact_begin_event));
    ts_array_free(a, (void **)&e->begin_published, &e->begin_published_capacity, sizeof(ts_contact_begin_event));
    ts_array_free(a, (void **)&e->end_pending, &e->end_pending_capacity, sizeof(ts_contact_end_event));
    ts_array_free(a, (void **)&e->end_published, &e->end_published_capacity, sizeof(ts_contact_end_event));
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

void ts_contacts_destroy_parted(ts_world *world, const int32_t *doomed, int32_t count)
{
    if (count == 0) {
        return;
    }
    ts_contact_store *s = &world->contact_store;
    ts_soa_removal *removal = &world->contact_removal;
    for (int32_t k = 0; k < count; ++k) {
        int32_t contact = doomed[k];
        ts_contact *c = world->contacts + contact;
        ts_contact_uncolor(world, contact);
        ts_contact_unlink_islands(world, contact);
        unlink_edge(world, contact, 0);
        unlink_edge(world, contact, 1);
        ts_pair_set_remove(&world->pairs, ts_pair_key(c->shape_a, c->shape_b));
        ts_soa_remove_deferred(&s->table, removal, s->table.slot_of_id[contact]);
        c->alive = false;
        ts_id_pool_release(&world->contact_ids, contact);
    }
    int ranges = ts_soa_removal_plan(&s->table, removal);
    for (int r = 0; r < ranges; ++r) {
        int32_t moves = ts_soa_removal_moves(removal, r);
        removal_stage stage = {s, removal, r, moves, ts_block_size(moves, TS_REMOVAL_BLOCK)};
        ts_parallel_for(&world->parallel, removal_block, &stage, ts_block_count(moves, stage.block_size));
    }
    ts_soa_removal_clear(removal);
}

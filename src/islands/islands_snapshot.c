/* Snapshots of the islands and the graph colours (see islands_snapshot.h). */
#include "islands/islands_snapshot.h"

#include "base/alloc.h"
#include "base/array.h"
#include "islands/graph_bound.h"

#include <string.h>

/* ---- islands ---- */

/* A byte per island id: 1 for a free id (scratch through the allocator). */
static uint8_t *free_marks(const ts_island_set *set, const ts_allocator *a)
{
    size_t n = (size_t)set->ids.next_index + 1;
    uint8_t *marks = ts_alloc(a, n);
    if (marks != NULL) {
        memset(marks, 0, n);
        for (int32_t k = 0; k < set->ids.free_count; ++k) {
            marks[set->ids.free_ids[k]] = 1;
        }
    }
    return marks;
}

void ts_islands_save(ts_writer *w, const ts_records *records, const ts_island_set *set)
{
    ts_id_pool_save(w, &set->ids);
    uint8_t *marks = free_marks(set, &records->allocator);
    for (int32_t i = 0; i < set->ids.next_index; ++i) {
        if (marks != NULL && marks[i]) {
            continue;
        }
        const ts_island *island = set->islands + i;
        ts_put_varint(w, (uint64_t)island->constraint_removed);
        ts_put_varint(w, (uint64_t)island->body_count);
        for (int32_t b = island->head_body; b != -1; b = records->bodies[b].island_next) {
            ts_put_varint(w, (uint64_t)b);
        }
    }
    ts_free(&records->allocator, marks, (size_t)set->ids.next_index + 1);
    ts_put_varint(w, (uint64_t)set->awake_count);
    for (int32_t k = 0; k < set->awake_count; ++k) {
        ts_put_varint(w, (uint64_t)set->awake[k]);
    }
}

/* Every alive dynamic body is in an island, no other body is; an awake
 * island's bodies are in the store's awake range and a sleeping one's in
 * its sleeping range; linking contacts and joints join bodies of one island. */
static bool check_islands(ts_reader *r, const ts_records *records, const ts_island_set *set)
{
    const ts_soa_table *t = &records->store.table;
    for (int32_t b = 0; b < records->body_ids.next_index; ++b) {
        const ts_body *body = records->bodies + b;
        if (!body->alive) {
            continue;
        }
        if ((body->type == TS_BODY_DYNAMIC) != (body->island >= 0)) {
            return ts_reader_fail(r, "body %d is %s but %s in an island", (int)b,
                                  body->type == TS_BODY_DYNAMIC ? "dynamic" : "not dynamic",
                                  body->island >= 0 ? "is" : "is not");
        }
        if (body->island >= 0) {
            int32_t slot = t->slot_of_id[b];
            bool awake = set->islands[body->island].awake_index >= 0;
            if (awake != (slot < t->end[TS_RANGE_AWAKE])) {
                return ts_reader_fail(r, "body %d is %s in an island that is %s", (int)b,
                                      slot < t->end[TS_RANGE_AWAKE] ? "awake" : "asleep", awake ? "awake" : "asleep");
            }
        }
    }
    for (int32_t c = 0; c < records->contact_ids.next_index; ++c) {
        const ts_contact *contact = records->contacts + c;
        if (contact->alive && contact->linked &&
            (records->bodies[contact->edges[0].body].island < 0 ||
             records->bodies[contact->edges[0].body].island != records->bodies[contact->edges[1].body].island)) {
            return ts_reader_fail(r, "linked contact %d joins bodies of two islands", (int)c);
        }
    }
    for (int32_t j = 0; j < records->joint_ids.next_index; ++j) {
        const ts_joint *joint = records->joints + j;
        int32_t ia = joint->alive ? records->bodies[joint->edges[0].body].island : -1;
        int32_t ib = joint->alive ? records->bodies[joint->edges[1].body].island : -1;
        if (ia >= 0 && ib >= 0 && ia != ib) {
            return ts_reader_fail(r, "joint %d joins bodies of two islands", (int)j);
        }
    }
    return true;
}

ts_load_status ts_islands_load(ts_reader *r, ts_records *records, ts_island_set *set)
{
    const ts_allocator *a = &records->allocator;
    int32_t bodies = records->body_ids.next_index;
    ts_load_status status = ts_id_pool_load(r, &set->ids, a, bodies, "the island count");
    if (status != TS_LOAD_OK) {
        return status;
    }
    int32_t room = records->body_capacity > set->ids.next_index ? records->body_capacity : set->ids.next_index;
    if (!ts_island_reserve(set, a, room)) {
        return TS_LOAD_NO_MEMORY;
    }
    uint8_t *marks = free_marks(set, a);
    if (marks == NULL) {
        return TS_LOAD_NO_MEMORY;
    }
    for (int32_t k = 0; k < set->ids.free_count && !r->failed; ++k) {
        if (marks[set->ids.free_ids[k]] == 2) {
            ts_reader_fail(r, "free island id %d is listed twice", (int)set->ids.free_ids[k]);
        }
        marks[set->ids.free_ids[k]] = 2;
    }
    for (int32_t i = 0; i < set->ids.next_index && !r->failed; ++i) {
        ts_island *island = set->islands + i;
        *island = (ts_island){-1, -1, 0, 0, -1, 0.0f, 0, 0, false};
        if (marks[i]) {
            continue;
        }
        island->constraint_removed = ts_get_count(r, INT32_MAX, 0, "an island's removed constraints");
        int32_t count = ts_get_count(r, bodies, 1, "an island's body count");
        island->body_count = count < 0 ? 0 : count;
        for (int32_t k = 0; k < count && !r->failed; ++k) {
            int32_t b = ts_get_index(r, 0, bodies, "an island's body");
            if (r->failed) {
                break;
            }
            ts_body *body = records->bodies + b;
            if (!body->alive || body->type != TS_BODY_DYNAMIC || body->island != -1) {
                ts_reader_fail(r, "island %d lists body %d, which is dead, not dynamic or in an island", (int)i,
                               (int)b);
                break;
            }
            body->island = i;
            body->island_prev = island->tail_body;
            body->island_next = -1;
            if (island->tail_body == -1) {
                island->head_body = b;
            } else {
                records->bodies[island->tail_body].island_next = b;
            }
            island->tail_body = b;
        }
    }
    int32_t awake = ts_get_count(r, set->ids.next_index, 1, "the awake island count");
    for (int32_t k = 0; k < awake && !r->failed; ++k) {
        int32_t i = ts_get_index(r, 0, set->ids.next_index, "an awake island");
        if (!r->failed && (marks[i] || set->islands[i].awake_index >= 0)) {
            ts_reader_fail(r, "awake island %d is free or listed twice", (int)i);
        }
        if (!r->failed) {
            set->islands[i].awake_index = k;
            set->awake[k] = i;
        }
    }
    set->awake_count = r->failed ? 0 : awake;
    ts_free(a, marks, (size_t)set->ids.next_index + 1);
    if (r->failed || !check_islands(r, records, set)) {
        return TS_LOAD_INVALID;
    }
    /* Not saved: the sleeping islands' wake bounds, taken from the loaded
     * contacts as ts_island_sleep takes them. */
    set->sleeping_contacts = 0;
    set->sleeping_over = 0;
    for (int32_t i = 0; i < set->ids.next_index; ++i) {
        if (set->islands[i].body_count > 0 && !ts_island_is_awake(set, i)) {
            ts_wake_bound bound = ts_island_wake_bound(records, set, i, NULL);
            set->islands[i].wake_contacts = bound.contacts;
            set->islands[i].wake_over = bound.over;
            set->sleeping_contacts += bound.contacts;
            set->sleeping_over += bound.over;
        }
    }
    return TS_LOAD_OK;
}

/* ---- graph colours ---- */

void ts_graph_save(ts_writer *w, const ts_records *records, const ts_constraint_graph *graph)
{
    ts_put_u32(w, graph->joint_revision);
    for (int c = 0; c <= TS_GRAPH_COLOR_COUNT; ++c) {
        const ts_graph_color *color = graph->colors + c;
        ts_put_varint(w, (uint64_t)color->count);
        for (int32_t k = 0; k < color->count; ++k) {
            const ts_contact *contact = records->contacts + color->contacts[k];
            uint64_t held = (contact->graph_body[0] >= 0 ? 1u : 0u) | (contact->graph_body[1] >= 0 ? 2u : 0u);
            ts_put_varint(w, (uint64_t)color->contacts[k] << 2 | held);
        }
        ts_put_varint(w, (uint64_t)color->joint_count);
        for (int32_t k = 0; k < color->joint_count; ++k) {
            const ts_joint *joint = records->joints + color->joints[k];
            uint64_t held = (joint->graph_body[0] >= 0 ? 1u : 0u) | (joint->graph_body[1] >= 0 ? 2u : 0u);
            ts_put_varint(w, (uint64_t)color->joints[k] << 2 | held);
        }
    }
}

/* Sets the colour bit of body b (growing the bitset); false when out of memory. */
static bool hold_bit(ts_graph_color *color, const ts_allocator *a, int32_t body)
{
    int32_t old = color->word_capacity;
    if ((body >> 6) >= old) {
        if (!ts_array_reserve(a, (void **)&color->body_bits, &color->word_capacity, (body >> 6) + 1,
                              sizeof(uint64_t))) {
            return false;
        }
        memset(color->body_bits + old, 0, (size_t)(color->word_capacity - old) * sizeof(uint64_t));
    }
    color->body_bits[body >> 6] |= (uint64_t)1 << (body & 63);
    return true;
}

/* One colour's list of contacts (joints false) or joints: ids with their
 * held sides; each id alive and in no other colour. */
static ts_load_status load_members(ts_reader *r, ts_records *records, ts_graph_color *color, int c, bool joints)
{
    const ts_allocator *a = &records->allocator;
    int32_t objects = joints ? records->joint_ids.next_index : records->contact_ids.next_index;
    int32_t n = ts_get_count(r, objects, 1, joints ? "a colour's joint count" : "a colour's contact count");
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    int32_t **items = joints ? &color->joints : &color->contacts;
    int32_t *count = joints ? &color->joint_count : &color->count;
    int32_t *capacity = joints ? &color->joint_capacity : &color->capacity;
    if (!ts_array_reserve(a, (void **)items, capacity, n, sizeof(int32_t))) {
        return TS_LOAD_NO_MEMORY;
    }
    for (int32_t k = 0; k < n; ++k) {
        uint64_t v = ts_get_varint(r);
        int32_t id = (int32_t)(v >> 2);
        if (r->failed || (v >> 2) >= (uint64_t)objects) {
            ts_reader_fail(r, "colour %d names %s %llu", c, joints ? "joint" : "contact", (unsigned long long)(v >> 2));
            return TS_LOAD_INVALID;
        }
        int *member_color;
        int32_t *member_index, *graph_body;
        int32_t bodies[2];
        if (joints) {
            ts_joint *j = records->joints + id;
            member_color = &j->color, member_index = &j->color_index, graph_body = j->graph_body;
            bodies[0] = j->edges[0].body;
            bodies[1] = j->edges[1].body;
            if (!j->alive) member_color = NULL;
        } else {
            ts_contact *ct = records->contacts + id;
            member_color = &ct->color, member_index = &ct->color_index, graph_body = ct->graph_body;
            bodies[0] = ct->edges[0].body;
            bodies[1] = ct->edges[1].body;
            int32_t slot = ct->alive ? records->contact_store.table.slot_of_id[id] : -1;
            if (!ct->alive || slot < 0 || (records->contact_store.flags[slot] & TS_CONTACT_TOUCHING) == 0) {
                member_color = NULL; /* a coloured contact touches */
            }
        }
        if (member_color == NULL || *member_color != -1) {
            ts_reader_fail(r, "colour %d names %s %d, which is dead, not touching or coloured twice", c,
                           joints ? "joint" : "contact", (int)id);
            return TS_LOAD_INVALID;
        }
        *member_color = c;
        *member_index = k;
        for (int side = 0; side < 2; ++side) {
            bool held = (v >> side & 1) != 0;
            graph_body[side] = held ? bodies[side] : -1;
            if (held && c < TS_GRAPH_COLOR_COUNT && !hold_bit(color, a, bodies[side])) {
                return TS_LOAD_NO_MEMORY;
            }
        }
        (*items)[k] = id;
    }
    *count = n;
    return TS_LOAD_OK;
}

static void contact_bodies(const void *context, int32_t contact, int32_t bodies[2])
{
    const ts_records *records = context;
    bodies[0] = records->contacts[contact].graph_body[0];
    bodies[1] = records->contacts[contact].graph_body[1];
}

static void joint_bodies(const void *context, int32_t joint, int32_t bodies[2])
{
    const ts_records *records = context;
    bodies[0] = records->joints[joint].graph_body[0];
    bodies[1] = records->joints[joint].graph_body[1];
}

ts_load_status ts_graph_load(ts_reader *r, ts_records *records, ts_constraint_graph *graph)
{
    graph->joint_revision = ts_get_u32(r);
    for (int c = 0; c <= TS_GRAPH_COLOR_COUNT; ++c) {
        ts_load_status status = load_members(r, records, graph->colors + c, c, false);
        if (status == TS_LOAD_OK) {
            status = load_members(r, records, graph->colors + c, c, true);
        }
        if (status != TS_LOAD_OK) {
            return status;
        }
    }
    if (!ts_graph_validate_with_joints(graph, contact_bodies, joint_bodies, records)) {
        ts_reader_fail(r, "a colour holds a dynamic body twice, or its bits disagree with its members");
        return TS_LOAD_INVALID;
    }
    return TS_LOAD_OK;
}

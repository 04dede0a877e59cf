/* Persistent islands: union on link, lazy split (see island.h). */
#include "islands/island.h"

#include "base/array.h"
#include "islands/graph_bound.h"

void ts_island_set_destroy(ts_island_set *set, const ts_allocator *allocator)
{
    ts_array_free(allocator, (void **)&set->islands, &set->capacity, sizeof(ts_island));
    ts_array_free(allocator, (void **)&set->awake, &set->awake_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&set->stack, &set->stack_capacity, sizeof(int32_t));
    ts_id_pool_destroy(&set->ids, allocator);
    set->awake_count = 0;
}

/* Every live island holds at least one dynamic body, so `bodies` islands
 * are the most there can be; a split walk needs two lists of an island's
 * bodies. */
bool ts_island_reserve(ts_island_set *set, const ts_allocator *a, int32_t bodies)
{
    return ts_array_reserve(a, (void **)&set->islands, &set->capacity, bodies, sizeof(ts_island)) &&
           ts_array_reserve(a, (void **)&set->awake, &set->awake_capacity, bodies, sizeof(int32_t)) &&
           ts_array_reserve(a, (void **)&set->stack, &set->stack_capacity, 2 * bodies, sizeof(int32_t)) &&
           ts_id_pool_reserve(&set->ids, a, bodies);
}

int32_t ts_island_of(const ts_records *records, int32_t body) { return records->bodies[body].island; }

/* ---- the awake list ---- */

static void add_awake(ts_island_set *set, int32_t island)
{
    set->islands[island].awake_index = set->awake_count;
    set->awake[set->awake_count++] = island;
}

/* The last awake island takes the place of the removed one. */
static void remove_awake(ts_island_set *set, int32_t island)
{
    int32_t index = set->islands[island].awake_index;
    int32_t last = set->awake[--set->awake_count];
    set->awake[index] = last;
    set->islands[last].awake_index = index;
    set->islands[island].awake_index = -1;
}

void ts_island_set_awake(ts_island_set *set, int32_t island, bool awake)
{
    if (awake && set->islands[island].awake_index < 0) {
        add_awake(set, island);
    } else if (!awake && set->islands[island].awake_index >= 0) {
        remove_awake(set, island);
    }
}

static int32_t new_island(ts_island_set *set)
{
    int32_t id = ts_id_pool_take(&set->ids);
    TS_ASSERT(id < set->capacity);
    set->islands[id] = (ts_island){-1, -1, 0, 0, -1, 0.0f, 0, 0, false};
    add_awake(set, id);
    return id;
}

/* A released island is empty (ts_wake_all and validation skip it); a
 * sleeping one's wake bounds leave the totals. */
static void release_island(ts_island_set *set, int32_t island)
{
    if (set->islands[island].awake_index >= 0) {
        remove_awake(set, island);
    }
    set->sleeping_contacts -= set->islands[island].wake_contacts;
    set->sleeping_over -= set->islands[island].wake_over;
    set->islands[island] = (ts_island){-1, -1, 0, 0, -1, 0.0f, 0, 0, false};
    ts_id_pool_release(&set->ids, island);
}

/* ---- bodies ---- */

static void append_body(ts_records *records, ts_island_set *set, int32_t island, int32_t body)
{
    ts_island *isl = set->islands + island;
    ts_body *b = records->bodies + body;
    b->island = island;
    b->island_prev = isl->tail_body;
    b->island_next = -1;
    if (isl->tail_body != -1) {
        records->bodies[isl->tail_body].island_next = body;
    } else {
        isl->head_body = body;
    }
    isl->tail_body = body;
    isl->body_count += 1;
}

void ts_island_add_body(ts_records *records, ts_island_set *set, int32_t body)
{
    append_body(records, set, new_island(set), body);
}

void ts_island_remove_body(ts_records *records, ts_island_set *set, int32_t body)
{
    ts_body *b = records->bodies + body;
    if (b->island < 0) {
        return;
    }
    ts_island *isl = set->islands + b->island;
    if (b->island_prev != -1) {
        records->bodies[b->island_prev].island_next = b->island_next;
    } else {
        isl->head_body = b->island_next;
    }
    if (b->island_next != -1) {
        records->bodies[b->island_next].island_prev = b->island_prev;
    } else {
        isl->tail_body = b->island_prev;
    }
    isl->body_count -= 1;
    isl->constraint_removed += 1; /* the body may have held two parts together */
    if (isl->body_count == 0) {
        release_island(set, b->island);
    }
    b->island = -1;
    b->island_prev = -1;
    b->island_next = -1;
}

/* ---- link and unlink ---- */

void ts_island_link(ts_records *records, ts_island_set *set, int32_t body_a, int32_t body_b)
{
    int32_t a = records->bodies[body_a].island;
    int32_t b = records->bodies[body_b].island;
    if (a < 0 || b < 0 || a == b) {
        return;
    }
    TS_ASSERT(ts_island_is_awake(set, a) && ts_island_is_awake(set, b));
    /* The larger island stays; the smaller one's bodies join its list. */
    int32_t keep = set->islands[a].body_count >= set->islands[b].body_count ? a : b;
    int32_t gone = keep == a ? b : a;
    ts_island *k = set->islands + keep;
    ts_island *g = set->islands + gone;
    for (int32_t body = g->head_body; body != -1; body = records->bodies[body].island_next) {
        records->bodies[body].island = keep;
    }
    records->bodies[g->head_body].island_prev = k->tail_body;
    records->bodies[k->tail_body].island_next = g->head_body;
    k->tail_body = g->tail_body;
    k->body_count += g->body_count;
    k->constraint_removed += g->constraint_removed;
    release_island(set, gone);
}

void ts_island_mark_removed(ts_records *records, ts_island_set *set, int32_t body_a, int32_t body_b)
{
    int32_t island = records->bodies[body_a].island;
    island = island >= 0 ? island : records->bodies[body_b].island;
    if (island >= 0) {
        set->islands[island].constraint_removed += 1;
    }
}

/* ---- split ---- */

#define UNASSIGNED (-2)

/* Pushes the bodies linked to `body` that have no island yet. Joints: walk
 * the body's joint edges here too. */
static int32_t push_neighbours(ts_records *records, int32_t body, int32_t island, int32_t *stack, int32_t top)
{
    for (int32_t key = records->bodies[body].contact_head; key != -1;) {
        const ts_contact *c = records->contacts + (key >> 1);
        int32_t other = c->edges[(key & 1) ^ 1].body;
        if (c->linked && records->bodies[other].island == UNASSIGNED) {
            records->bodies[other].island = island;
            stack[top++] = other;
        }
        key = c->edges[key & 1].next_key;
    }
    /* Every joint links its two bodies. */
    for (int32_t key = records->bodies[body].joint_head; key != -1;) {
        const ts_joint *j = records->joints + (key >> 1);
        int32_t other = j->edges[(key & 1) ^ 1].body;
        if (records->bodies[other].island == UNASSIGNED) {
            records->bodies[other].island = island;
            stack[top++] = other;
        }
        key = j->edges[key & 1].next_key;
    }
    return top;
}

void ts_island_split(ts_records *records, ts_island_set *set, int32_t island)
{
    TS_ASSERT(ts_island_is_awake(set, island));
    int32_t count = set->islands[island].body_count;
    int32_t *order = set->stack;
    int32_t *stack = set->stack + count;
    int32_t n = 0;
    for (int32_t body = set->islands[island].head_body; body != -1; body = records->bodies[body].island_next) {
        order[n++] = body;
        records->bodies[body].island = UNASSIGNED;
    }
    /* Released first, so the parts can reuse its id and no more islands
     * than bodies ever live at once. */
    release_island(set, island);

    /* Each body not yet reached seeds a new island: a depth-first walk over
     * linked constraints collects its part, in a fixed order. */
    for (int32_t k = 0; k < n; ++k) {
        int32_t seed = order[k];
        if (records->bodies[seed].island != UNASSIGNED) {
            continue;
        }
        int32_t part = new_island(set);
        records->bodies[seed].island = part;
        int32_t top = 0;
        stack[top++] = seed;
        while (top > 0) {
            int32_t body = stack[--top];
            append_body(records, set, part, body);
            top = push_neighbours(records, body, part, stack, top);
        }
    }
}

/* ---- validation (tests) ---- */

/* An awake island keeps no wake bounds; a sleeping one's are at least what
 * its wake would colour now. */
static bool wake_bounds_hold(const ts_records *records, const ts_island_set *set, int32_t island)
{
    const ts_island *isl = set->islands + island;
    if (ts_island_is_awake(set, island)) {
        return isl->wake_contacts == 0 && isl->wake_over == 0;
    }
    ts_wake_bound now = ts_island_wake_bound(records, set, island, NULL);
    return isl->wake_contacts >= now.contacts && isl->wake_over >= now.over && isl->wake_over <= isl->wake_contacts;
}

bool ts_island_validate(const ts_records *records, const ts_island_set *set)
{
    for (int32_t k = 0; k < set->awake_count; ++k) {
        if (set->islands[set->awake[k]].awake_index != k) {
            return false;
        }
    }
    int32_t listed = 0;
    for (int32_t body = 0; body < records->body_ids.next_index; ++body) {
        const ts_body *b = records->bodies + body;
        if (!b->alive) {
            continue;
        }
        if ((b->type == TS_BODY_DYNAMIC) != (b->island >= 0)) {
            return false;
        }
        if (b->island < 0) {
            continue;
        }
        listed += 1;
        /* A linked contact joins two bodies of one island. */
        for (int32_t key = b->contact_head; key != -1;) {
            const ts_contact *c = records->contacts + (key >> 1);
            if (c->linked && records->bodies[c->edges[(key & 1) ^ 1].body].island != b->island) {
                return false;
            }
            key = c->edges[key & 1].next_key;
        }
    }
    int32_t counted = 0, contacts = 0, over = 0;
    for (int32_t island = 0; island < set->ids.next_index; ++island) {
        const ts_island *isl = set->islands + island;
        int32_t n = 0;
        bool in_free_list = false;
        for (int32_t f = 0; f < set->ids.free_count; ++f) {
            in_free_list = in_free_list || set->ids.free_ids[f] == island;
        }
        if (in_free_list) {
            continue;
        }
        for (int32_t body = isl->head_body; body != -1; body = records->bodies[body].island_next) {
            if (records->bodies[body].island != island) {
                return false;
            }
            n += 1;
        }
        if (n != isl->body_count || n == 0 || !wake_bounds_hold(records, set, island)) {
            return false;
        }
        counted += n;
        contacts += isl->wake_contacts;
        over += isl->wake_over;
    }
    return counted == listed && contacts == set->sleeping_contacts && over == set->sleeping_over;
}

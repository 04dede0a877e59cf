/* Sleeping and waking islands (see sleep.h). */
#include "islands/sleep.h"

#include "base/error.h"
#include "base/math3.h"
#include "islands/contact_graph.h"
#include "islands/graph_bound.h"

#include <float.h>

/* ---- timers ---- */

void ts_sleep_update_timers(ts_body_store *s, float dt, int32_t begin, int32_t end)
{
    const float *vx = s->vx, *vy = s->vy, *vz = s->vz, *wx = s->wx, *wy = s->wy, *wz = s->wz;
    const float *max_extent = s->max_extent, *sleep_threshold = s->sleep_threshold;
    float *sleep_time = s->sleep_time;
    for (int32_t i = begin; i < end; ++i) {
        /* A body that may not sleep (threshold -1) has no speed to measure:
         * no speed is <= -1, so its timer stays 0 either way. */
        float threshold = sleep_threshold[i];
        float time = 0.0f;
        if (threshold >= 0.0f) {
            /* The fastest point of the body: |v| + |w| r for r its extent. */
            float speed = ts_length(ts_v3(vx[i], vy[i], vz[i])) + max_extent[i] * ts_length(ts_v3(wx[i], wy[i], wz[i]));
            time = speed <= threshold ? sleep_time[i] + dt : 0.0f;
        }
        sleep_time[i] = time;
    }
}

float ts_body_max_extent(const ts_records *records, int32_t body)
{
    const ts_body *b = records->bodies + body;
    float extent = 0.0f;
    for (int32_t sh = b->first_shape; sh != -1; sh = records->shapes[sh].next) {
        const ts_shape *shape = records->shapes + sh;
        float reach;
        switch (shape->type) {
        case TS_SHAPE_SPHERE: reach = shape->geometry.sphere.radius; break;
        case TS_SHAPE_CAPSULE: reach = shape->geometry.capsule.half_height + shape->geometry.capsule.radius; break;
        case TS_SHAPE_HULL: reach = shape->geometry.hull.radius; break;
        case TS_SHAPE_MESH: reach = shape->geometry.mesh.radius; break;
        case TS_SHAPE_HEIGHTFIELD: reach = shape->geometry.heightfield.radius; break;
        default: reach = ts_length(shape->geometry.box.half_extents); break;
        }
        /* sim_local places the shape relative to the centre of mass */
        float r = ts_length(shape->sim_local.p) + reach;
        extent = r > extent ? r : extent;
    }
    return extent;
}

/* ---- which bodies rest ---- */

static bool body_sleeps(const ts_records *records, const ts_island_set *set, int32_t body)
{
    int32_t island = records->bodies[body].island;
    return island >= 0 && !ts_island_is_awake(set, island);
}

bool ts_body_rests(const ts_records *records, const ts_island_set *set, int32_t body)
{
    return records->bodies[body].type == TS_BODY_STATIC || body_sleeps(records, set, body);
}

static int32_t other_body(const ts_records *records, int32_t key)
{
    return records->contacts[key >> 1].edges[(key & 1) ^ 1].body;
}

static int32_t next_key(const ts_records *records, int32_t key)
{
    return records->contacts[key >> 1].edges[key & 1].next_key;
}

/* ---- sleep ---- */

/* An island's wake bounds, and the sleeping islands' totals with them. */
static void set_wake_bound(ts_island_set *set, int32_t island, int32_t contacts, int32_t over)
{
    ts_island *isl = set->islands + island;
    set->sleeping_contacts += contacts - isl->wake_contacts;
    set->sleeping_over += over - isl->wake_over;
    isl->wake_contacts = contacts;
    isl->wake_over = over;
}

void ts_island_sleep(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t island)
{
    ts_body_store *s = &records->store;
    ts_contact_store *cs = &records->contact_store;
    TS_ASSERT(ts_island_is_awake(set, island));
    ts_island_set_awake(set, island, false);
    for (int32_t body = set->islands[island].head_body; body != -1; body = records->bodies[body].island_next) {
        int32_t i = s->table.slot_of_id[body];
        s->vx[i] = s->vy[i] = s->vz[i] = 0.0f;
        s->wx[i] = s->wy[i] = s->wz[i] = 0.0f;
        s->fx[i] = s->fy[i] = s->fz[i] = 0.0f;
        s->tx[i] = s->ty[i] = s->tz[i] = 0.0f;
        ts_body_store_move(s, i, TS_RANGE_SLEEPING);
    }
    for (int32_t body = set->islands[island].head_body; body != -1; body = records->bodies[body].island_next) {
        for (int32_t key = records->bodies[body].contact_head; key != -1; key = next_key(records, key)) {
            int32_t contact = key >> 1;
            int32_t i = cs->table.slot_of_id[contact];
            if (i >= cs->table.end[TS_CONTACT_RANGE_AWAKE]) {
                continue; /* moved by the other body already */
            }
            ts_contact_uncolor(records, graph, contact);
            if (ts_body_rests(records, set, other_body(records, key))) {
                /* This step's begin / end were handled: only the state stays. */
                cs->flags[i] &= TS_CONTACT_TOUCHING | TS_CONTACT_CACHED;
                ts_contact_store_move(cs, i, TS_CONTACT_RANGE_SLEEPING);
            }
        }
    }
    /* What its wake will colour, counted once now (graph_bound.h). */
    ts_wake_bound bound = ts_island_wake_bound(records, set, island, NULL);
    set_wake_bound(set, island, bound.contacts, bound.over);
}

/* ---- wake ---- */

ts_result ts_island_wake(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t island,
                         const char *function)
{
    ts_body_store *s = &records->store;
    ts_contact_store *cs = &records->contact_store;
    if (ts_island_is_awake(set, island)) {
        return TS_OK;
    }
    ts_island_set_awake(set, island, true);
    set_wake_bound(set, island, 0, 0);
    for (int32_t body = set->islands[island].head_body; body != -1; body = records->bodies[body].island_next) {
        int32_t i = ts_body_store_move(s, s->table.slot_of_id[body], TS_RANGE_AWAKE);
        s->sleep_time[i] = 0.0f;
    }
    for (int32_t body = set->islands[island].head_body; body != -1; body = records->bodies[body].island_next) {
        for (int32_t key = records->bodies[body].contact_head; key != -1; key = next_key(records, key)) {
            int32_t contact = key >> 1;
            int32_t i = cs->table.slot_of_id[contact];
            if (i >= cs->table.end[TS_CONTACT_RANGE_AWAKE]) {
                i = ts_contact_store_move(cs, i, TS_CONTACT_RANGE_AWAKE);
            }
            if ((cs->flags[i] & TS_CONTACT_TOUCHING) != 0) {
                TS_TRY(ts_contact_color(records, graph, contact, function));
            }
        }
    }
    return TS_OK;
}

static ts_result wake_island_of(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t body,
                                const char *function)
{
    int32_t island = records->bodies[body].island;
    return island >= 0 ? ts_island_wake(records, set, graph, island, function) : TS_OK;
}

ts_result ts_wake_body(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t body,
                       const char *function)
{
    TS_TRY(wake_island_of(records, set, graph, body, function));
    const ts_contact_store *cs = &records->contact_store;
    for (int32_t key = records->bodies[body].contact_head; key != -1; key = next_key(records, key)) {
        if ((cs->flags[cs->table.slot_of_id[key >> 1]] & TS_CONTACT_TOUCHING) != 0) {
            TS_TRY(wake_island_of(records, set, graph, other_body(records, key), function));
        }
    }
    return TS_OK;
}

ts_result ts_wake_all(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, const char *function)
{
    for (int32_t island = 0; island < set->ids.next_index; ++island) {
        if (set->islands[island].body_count > 0 && !ts_island_is_awake(set, island)) {
            TS_TRY(ts_island_wake(records, set, graph, island, function));
        }
    }
    return TS_OK;
}

ts_result ts_wake_pair(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t body_a,
                       int32_t body_b, const char *function)
{
    TS_TRY(wake_island_of(records, set, graph, body_a, function));
    return wake_island_of(records, set, graph, body_b, function);
}

ts_result ts_link_constraint(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t body_a,
                             int32_t body_b, const char *function)
{
    TS_TRY(ts_wake_pair(records, set, graph, body_a, body_b, function));
    ts_island_link(records, set, body_a, body_b);
    return TS_OK;
}

ts_result ts_unlink_constraint(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t body_a,
                               int32_t body_b, const char *function)
{
    TS_TRY(ts_wake_pair(records, set, graph, body_a, body_b, function));
    ts_island_mark_removed(records, set, body_a, body_b);
    return TS_OK;
}

/* ---- the wake bounds under new pairs ---- */

/* A new pair's contact adds to its bodies' constraint counts, so the
 * overflow part of a sleeping island it reaches is taken again with the
 * counts now (graph->degrees holds the pairs); each island once (marked,
 * listed on the set's stack). */
void ts_sleep_refresh_bounds(const ts_records *records, ts_island_set *set, const ts_constraint_graph *graph,
                             ts_pair_keys pairs)
{
    int32_t listed = 0;
    for (int i = 0; i < pairs.buffers; ++i) {
        for (int32_t k = 0; k < pairs.counts[i]; ++k) {
            uint64_t key = pairs.keys[i][k];
            int32_t shapes[2] = {(int32_t)(key >> 32), (int32_t)(key & 0xffffffffu)};
            for (int side = 0; side < 2; ++side) {
                int32_t island = records->bodies[records->shapes[shapes[side]].body].island;
                if (island < 0 || ts_island_is_awake(set, island) || set->islands[island].refreshing) {
                    continue;
                }
                ts_wake_bound bound = ts_island_wake_bound(records, set, island, graph->degrees);
                set_wake_bound(set, island, bound.contacts, bound.over);
                set->islands[island].refreshing = true;
                set->stack[listed++] = island;
            }
        }
    }
    for (int32_t k = 0; k < listed; ++k) {
        set->islands[set->stack[k]].refreshing = false;
    }
}

/* ---- the sleep pass ---- */

/* A moving kinematic body keeps the islands it touches awake. */
static void keep_touching_awake(ts_records *records, ts_island_set *set, int32_t body)
{
    const ts_contact_store *cs = &records->contact_store;
    for (int32_t key = records->bodies[body].contact_head; key != -1; key = next_key(records, key)) {
        int32_t island = records->bodies[other_body(records, key)].island;
        if (island >= 0 && (cs->flags[cs->table.slot_of_id[key >> 1]] & TS_CONTACT_TOUCHING) != 0) {
            set->islands[island].sleep_time = 0.0f;
        }
    }
}

/* Whether any of the timers has reached TS_TIME_TO_SLEEP (one pass over a
 * column, no early exit: it vectorises). */
static bool any_rested(const float *sleep_time, int32_t count)
{
    bool any = false;
    for (int32_t i = 0; i < count; ++i) {
        any |= sleep_time[i] >= TS_TIME_TO_SLEEP;
    }
    return any;
}

void ts_sleep_islands(ts_records *records, ts_island_set *set, ts_constraint_graph *graph)
{
    const ts_body_store *s = &records->store;
    int32_t awake = s->table.end[TS_RANGE_AWAKE];
    /* An awake island's bodies are all awake and it has one at least, so
     * while no awake timer has reached the time to sleep no island can
     * sleep (nor be split for it): skip the walk through every body's island. */
    if (!any_rested(s->sleep_time, awake)) {
        return;
    }
    for (int32_t k = 0; k < set->awake_count; ++k) {
        set->islands[set->awake[k]].sleep_time = FLT_MAX;
    }
    /* Each island's least body timer (the bodies are in slot order). */
    for (int32_t i = 0; i < awake; ++i) {
        int32_t body = s->table.id_of_slot[i];
        int32_t island = records->bodies[body].island;
        float t = s->sleep_time[i];
        if (island >= 0) {
            ts_island *isl = set->islands + island;
            isl->sleep_time = t < isl->sleep_time ? t : isl->sleep_time;
        } else if (t < TS_TIME_TO_SLEEP) {
            keep_touching_awake(records, set, body);
        }
    }
    /* Backwards, so that removing island k (the last takes its place)
     * leaves the ones still to visit where they are. */
    int32_t split = -1;
    float split_time = 0.0f;
    for (int32_t k = set->awake_count - 1; k >= 0; --k) {
        int32_t island = set->awake[k];
        const ts_island *isl = set->islands + island;
        if (isl->sleep_time < TS_TIME_TO_SLEEP) {
            continue;
        }
        if (isl->constraint_removed > 0) {
            /* May be in pieces: split first (the sleepiest one), sleep after. */
            if (split < 0 || isl->sleep_time > split_time) {
                split = island;
                split_time = isl->sleep_time;
            }
            continue;
        }
        ts_island_sleep(records, set, graph, island);
    }
    if (split >= 0) {
        ts_island_split(records, set, split);
    }
}

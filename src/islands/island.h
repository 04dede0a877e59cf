/* Persistent islands: groups of dynamic bodies linked by touching contacts
 * and joints, the unit that sleeps and wakes.
 *
 * Linking is a union done at once: when a contact starts touching, the
 * smaller island's bodies are relabelled and its body list is appended to the
 * larger one's (so a body is relabelled O(log n) times over its life).
 * Unlinking is lazy, as in Box2D v3: when a linking constraint goes away the
 * island only counts it (constraint_removed), since most islands stay in one
 * piece; the island is split later, when it is about to sleep, by a graph
 * walk over its bodies and their linked constraints (sleep.c chooses the
 * candidate, at most one split per step).
 *
 * Static and kinematic bodies belong to no island and never link two
 * islands: a ground under a thousand stacks leaves a thousand islands.
 *
 * For constraints other than contacts (joints): call ts_link_constraint
 * (sleep.h: wakes both bodies, then ts_island_link) when one is made between
 * two bodies and ts_unlink_constraint when it goes, and visit their edges in
 * the split walk (push_neighbours in island.c). */
#ifndef TS_ISLAND_H
#define TS_ISLAND_H

#include "base/core.h"
#include "soa/id_pool.h"
#include "soa/records.h"

#include <stdbool.h>

typedef struct ts_island {
    int32_t head_body; /* body list in link order, through ts_body.island_prev / island_next */
    int32_t tail_body;
    int32_t body_count;
    int32_t constraint_removed; /* linking constraints removed since the island was last whole */
    int32_t awake_index;        /* place in the awake list, -1 while the island sleeps */
    float sleep_time;           /* scratch of the sleep pass: the least sleep time of its bodies */
    /* While it sleeps: at least as many contacts as its wake colours, and
     * of those at least as many as can reach the overflow set (taken when
     * it fell asleep, graph_bound.h); zero while awake. */
    int32_t wake_contacts;
    int32_t wake_over;
    bool refreshing; /* scratch of ts_sleep_refresh_bounds (sleep.h) */
} ts_island;

typedef struct ts_island_set {
    ts_island *islands; /* indexed by island id */
    int32_t capacity;
    ts_id_pool ids;
    int32_t *awake; /* ids of the awake islands, dense, in a deterministic order */
    int32_t awake_count;
    int32_t awake_capacity;
    int32_t *stack; /* scratch of the split walk and of ts_sleep_refresh_bounds */
    int32_t stack_capacity;
    /* The sleeping islands' wake_contacts and wake_over summed: what a
     * step's touches may colour by waking them (the step's reserve makes
     * room for it all, so that no wake allocates). */
    int32_t sleeping_contacts;
    int32_t sleeping_over;
} ts_island_set;

void ts_island_set_destroy(ts_island_set *set, const ts_allocator *allocator);

/* Room for `bodies` dynamic bodies: every island array sized so that no
 * link, split, sleep or wake allocates. Called when a body is made. */
bool ts_island_reserve(ts_island_set *set, const ts_allocator *allocator, int32_t bodies);

/* A new awake island holding one dynamic body (room reserved). */
void ts_island_add_body(ts_records *records, ts_island_set *set, int32_t body);

/* Takes a body out of its island (destroyed, or no longer dynamic); the
 * island may now be in pieces. No-op for bodies without an island. */
void ts_island_remove_body(ts_records *records, ts_island_set *set, int32_t body);

/* A constraint between two bodies came into being: their islands merge (no
 * effect when either body has no island). Both islands must be awake. */
void ts_island_link(ts_records *records, ts_island_set *set, int32_t body_a, int32_t body_b);

/* A linking constraint between two bodies went away: their island may be in
 * pieces now, split later. */
void ts_island_mark_removed(ts_records *records, ts_island_set *set, int32_t body_a, int32_t body_b);

/* Splits an awake island into its connected parts (new awake islands, in
 * the order of the old island's body list); the old id is released. */
void ts_island_split(ts_records *records, ts_island_set *set, int32_t island);

/* Island of a body, or -1 (static and kinematic bodies). */
int32_t ts_island_of(const ts_records *records, int32_t body);

static inline bool ts_island_is_awake(const ts_island_set *set, int32_t island)
{
    return set->islands[island].awake_index >= 0;
}

/* Adds an island to the awake list or takes it out (sleep.c moves its
 * bodies and contacts). */
void ts_island_set_awake(ts_island_set *set, int32_t island, bool awake);

/* The islands agree with the bodies' labels and lists, and the sleeping
 * ones' wake bounds with their contacts (for tests). */
bool ts_island_validate(const ts_records *records, const ts_island_set *set);

#endif

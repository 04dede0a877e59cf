/* Sleeping and waking: islands at rest leave the step entirely.
 *
 * Sleep rule (Box2D v3's): each body has a sleep velocity
 *     |v| + |w| * max_extent
 * (the fastest any point of it can move) and a timer of how long that has
 * stayed at or below its threshold (default 0.05 m/s). An island sleeps when
 * the least timer of its bodies reaches TS_TIME_TO_SLEEP; an island that lost
 * a linking constraint since it was last whole is split instead (one split
 * per step, the sleepiest candidate first), and its parts sleep on their own.
 *
 * A sleeping island's bodies move to the store's sleeping range with zero
 * velocity; its contacts leave their graph colours, and those whose bodies
 * all rest (asleep or static) move to the contact store's sleeping range, so
 * no stage of a step reads them: not the narrowphase, the solver, the bounds
 * update nor the broadphase (their proxies stay in the tree, unmoved).
 * Contacts with an awake body stay awake, not touching, so that a body
 * coming closer is seen by the narrowphase and wakes the island.
 *
 * Waking puts the bodies back at the end of the awake range, the contacts
 * back in the awake range and the touching ones back in colours, walking the
 * island's body list and each body's contact list: a fixed order, so results
 * do not depend on threads or SIMD width. A touch wakes islands in the
 * middle of a step, where nothing may allocate: a sleeping island keeps
 * how many contacts its wake colours (graph_bound.h), and the set their
 * sum, so that every step's reserve makes that room without a walk. */
#ifndef TS_SLEEP_H
#define TS_SLEEP_H

#include "islands/graph.h"
#include "islands/graph_bound.h"
#include "islands/island.h"
#include "soa/records.h"

#define TS_TIME_TO_SLEEP 0.5f        /* seconds at rest before an island sleeps */
#define TS_SLEEP_THRESHOLD 0.05f     /* default body sleep velocity, m/s */

/* Step stage (parallel over awake body slots [begin, end), after the
 * write-back): advances each body's sleep timer by dt, or resets it. */
void ts_sleep_update_timers(ts_body_store *store, float dt, int32_t begin, int32_t end);

/* Step stage (serial, after the solve and the broadphase moves; the step
 * runs it while sleeping is on): puts the islands at rest to sleep, splits
 * at most one island. */
void ts_sleep_islands(ts_records *records, ts_island_set *set, ts_constraint_graph *graph);

/* Wakes the islands of two bodies (a contact started touching: called by
 * the step on the narrowphase's list, step/touches.c; waking only moves
 * contacts from the sleeping range to the end of the awake one, so the
 * slots below the old end stay where they are). */
ts_result ts_wake_pair(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t body_a,
                       int32_t body_b, const char *function);

/* For constraints other than contacts (joints): made between two bodies,
 * it wakes both and joins their islands; removed, it wakes both and marks
 * their island for a split (island.h: the split walk must then follow the
 * constraint's edges too). */
ts_result ts_link_constraint(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t body_a,
                             int32_t body_b, const char *function);
ts_result ts_unlink_constraint(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t body_a,
                               int32_t body_b, const char *function);

/* Wakes a body's island and the islands of the bodies it touches (for a
 * static or kinematic body, only those), e.g. before the user moves, pushes,
 * changes or destroys it. */
ts_result ts_wake_body(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t body,
                       const char *function);

ts_result ts_island_wake(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t island,
                         const char *function);
void ts_island_sleep(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, int32_t island);

/* Static bodies and bodies of sleeping islands: a contact between two of
 * them sleeps. */
bool ts_body_rests(const ts_records *records, const ts_island_set *set, int32_t body);

/* Before a step changes anything, with the step's new pairs counted in
 * graph->degrees (graph_bound.h): the wake bounds of the sleeping islands
 * the pairs reach, taken again (their bodies' constraint counts grow by
 * the pairs' contacts; ts_island_sleep took them, ts_island_wake drops
 * them). */
void ts_sleep_refresh_bounds(const ts_records *records, ts_island_set *set, const ts_constraint_graph *graph,
                             ts_pair_keys pairs);

/* Wakes every island (sleeping switched off). */
ts_result ts_wake_all(ts_records *records, ts_island_set *set, ts_constraint_graph *graph, const char *function);

/* Largest distance from a body's centre of mass to a point of its shapes,
 * for its sleep velocity (written to the store's max_extent). */
float ts_body_max_extent(const ts_records *records, int32_t body);

#endif

/* How many contacts a step may colour and how many of those can end in the
 * overflow set (see graph.h), bounded from the bodies' constraint counts
 * before the step colours anything (step.c's reserve and solver_reserve.c
 * make room from them; sleep.c keeps a sleeping island's part). */
#ifndef TS_GRAPH_BOUND_H
#define TS_GRAPH_BOUND_H

#include "base/parallel.h"
#include "islands/graph.h"
#include "islands/island.h"
#include "soa/records.h"

/* The new pairs of a step: `buffers` arrays of pair keys (shape index a
 * << 32 | shape index b), counts[i] keys in keys[i]. */
typedef struct ts_pair_keys {
    const uint64_t *const *keys;
    const int32_t *counts;
    int buffers;
} ts_pair_keys;

/* Room in graph->degrees (the new pairs per body id index, all zero but
 * between ts_graph_count_pairs(+1) and (-1)) for `bodies` body indices.
 * False when out of memory (only the capacity changed). */
bool ts_graph_bound_reserve(ts_constraint_graph *graph, const ts_allocator *allocator, int32_t bodies);

/* Adds the new pairs to their bodies' entries of graph->degrees (sign +1),
 * or takes them back (-1) once the step's bounds are taken. */
void ts_graph_count_pairs(ts_constraint_graph *graph, const ts_records *records, ts_pair_keys pairs, int32_t sign);

/* The awake part: of the contacts that may begin touching in the step (the
 * awake range's contacts not touching, and the new pairs), the most that
 * can reach the overflow set; graph->degrees holds the pairs (+1). The pass
 * over the awake contacts runs in parallel blocks of the step's workers. */
int32_t ts_graph_awake_overflow_bound(const ts_constraint_graph *graph, const ts_records *records, ts_pair_keys pairs,
                                      ts_parallel *parallel);

/* A sleeping island's part: the contacts its wake colours (its bodies'
 * touching contacts) and how many of those can reach the overflow set,
 * with each body's constraint count plus extra[body] (NULL: none). */
typedef struct ts_wake_bound {
    int32_t contacts;
    int32_t over;
} ts_wake_bound;
ts_wake_bound ts_island_wake_bound(const ts_records *records, const ts_island_set *set, int32_t island,
                                   const int32_t *extra);

#endif

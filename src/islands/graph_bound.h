/* How many of a step's new contacts can end in the overflow set (see
 * graph.h), bounded from the bodies' constraint counts before the step
 * colours anything (solver_reserve.c asks it when it must make room). */
#ifndef TS_GRAPH_BOUND_H
#define TS_GRAPH_BOUND_H

#include "base/parallel.h"
#include "islands/graph.h"
#include "soa/records.h"

/* The new pairs of a step: `buffers` arrays of pair keys (shape index a
 * << 32 | shape index b), counts[i] keys in keys[i]. */
typedef struct ts_pair_keys {
    const uint64_t *const *keys;
    const int32_t *counts;
    int buffers;
} ts_pair_keys;

/* The most contacts that can reach the overflow set while the step colours
 * the store's contacts without a colour and the new pairs; -1 when the
 * allocator failed (only the graph's scratch capacity changed). Runs its
 * passes on the step's workers (worker 0 only; parallel may be a single
 * worker's). */
int32_t ts_graph_overflow_bound(ts_constraint_graph *graph, const ts_records *records, ts_pair_keys pairs,
                                ts_parallel *parallel);

#endif

/* A joint's graph colour (see graph.h): taken when the joint is made or
 * its bodies' types change, given up when it goes. */
#ifndef TS_JOINT_GRAPH_H
#define TS_JOINT_GRAPH_H

#include "islands/graph.h"
#include "soa/records.h"

/* Puts joint `index` into the first colour free for its dynamic bodies (no
 * colour when neither is dynamic). False when out of memory. */
bool ts_joint_color(ts_records *records, ts_constraint_graph *graph, int32_t index);

/* Takes joint `index` out of its colour (no-op when it has none). The
 * solver's kept ball bundles must have given their impulses back first
 * (solver/joint_scratch.h: ts_joint_flush_impulses), while their joints are
 * still those of their layout. */
void ts_joint_uncolor(ts_records *records, ts_constraint_graph *graph, int32_t index);

#endif

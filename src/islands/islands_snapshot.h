/* Snapshots of the islands layer's part of a world (docs/snapshots.md):
 * the islands (their ids, body lists in link order, the awake list) and
 * the graph colours (each colour's contacts and joints in order, with the
 * bodies that hold its bits; the bitsets follow). Loads check like
 * soa/records_snapshot.h's, and that the islands agree with the bodies'
 * types, the store's ranges and the linking contacts and joints. */
#ifndef TS_ISLANDS_SNAPSHOT_H
#define TS_ISLANDS_SNAPSHOT_H

#include "islands/graph.h"
#include "islands/island.h"
#include "soa/records_snapshot.h"

void ts_islands_save(ts_writer *w, const ts_records *records, const ts_island_set *set);
ts_load_status ts_islands_load(ts_reader *r, ts_records *records, ts_island_set *set);

void ts_graph_save(ts_writer *w, const ts_records *records, const ts_constraint_graph *graph);
ts_load_status ts_graph_load(ts_reader *r, ts_records *records, ts_constraint_graph *graph);

#endif

/* A touching contact's place in the constraint graph and the islands: it
 * takes a colour (graph.h) and links its two dynamic bodies' islands
 * (island.h) when it starts touching, and gives both up when it stops or
 * goes. */
#ifndef TS_CONTACT_GRAPH_H
#define TS_CONTACT_GRAPH_H

#include "islands/graph.h"
#include "islands/island.h"
#include "soa/records.h"

/* Puts a touching contact into a graph colour (no-op when it has one). */
ts_result ts_contact_color(ts_records *records, ts_constraint_graph *graph, int32_t contact, const char *function);

/* Takes a contact out of its graph colour (no-op when it has none). */
void ts_contact_uncolor(ts_records *records, ts_constraint_graph *graph, int32_t contact);

/* A contact between two dynamic bodies that starts touching joins their
 * islands; one that stops or goes marks their island for a split. */
void ts_contact_link_islands(ts_records *records, ts_island_set *islands, int32_t contact);
void ts_contact_unlink_islands(ts_records *records, ts_island_set *islands, int32_t contact);

#endif

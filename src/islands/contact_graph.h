/* A touching contact's place in the constraint graph and the islands: it
 * takes a colour (graph.h) and links its two dynamic bodies' islands
 * (island.h) when it starts touching, and gives both up when it stops or
 * goes. */
#ifndef TS_CONTACT_GRAPH_H
#define TS_CONTACT_GRAPH_H

#include "base/core.h"

struct ts_world;

/* Puts a touching contact into a graph colour (no-op when it has one). */
ts_result ts_contact_color(struct ts_world *world, int32_t contact, const char *function);

/* Takes a contact out of its graph colour (no-op when it has none). */
void ts_contact_uncolor(struct ts_world *world, int32_t contact);

/* A contact between two dynamic bodies that starts touching joins their
 * islands; one that stops or goes marks their island for a split. */
void ts_contact_link_islands(struct ts_world *world, int32_t contact);
void ts_contact_unlink_islands(struct ts_world *world, int32_t contact);

#endif

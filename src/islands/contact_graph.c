/* A touching contact's place in the constraint graph (its colour) and in
 * the islands (it links its two dynamic bodies'); see contact_graph.h. */
#include "islands/contact_graph.h"

#include "base/error.h"

/* ---- graph colours ---- */

ts_result ts_contact_color(ts_records *records, ts_constraint_graph *graph, int32_t contact, const char *function)
{
    ts_contact *c = records->contacts + contact;
    if (c->color >= 0) {
        return TS_OK; /* coloured when its island woke in this step */
    }
    for (int side = 0; side < 2; ++side) {
        int32_t body = c->edges[side].body;
        c->graph_body[side] = records->bodies[body].type == TS_BODY_DYNAMIC ? body : -1;
    }
    if (!ts_graph_add(graph, &records->allocator, contact, c->graph_body[0], c->graph_body[1], &c->color,
                      &c->color_index)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, function, "the allocator returned NULL (graph colours)");
    }
    return TS_OK;
}

void ts_contact_uncolor(ts_records *records, ts_constraint_graph *graph, int32_t contact)
{
    ts_contact *c = records->contacts + contact;
    if (c->color < 0) {
        return;
    }
    int32_t moved = ts_graph_remove(graph, c->color, c->color_index, c->graph_body[0], c->graph_body[1]);
    if (moved >= 0) {
        records->contacts[moved].color_index = c->color_index;
    }
    c->color = -1;
    c->color_index = -1;
}

/* ---- islands ---- */

/* A contact between two dynamic bodies that starts touching joins their islands. */
void ts_contact_link_islands(ts_records *records, ts_island_set *islands, int32_t contact)
{
    ts_contact *c = records->contacts + contact;
    int32_t a = c->edges[0].body, b = c->edges[1].body;
    if (!c->linked && records->bodies[a].type == TS_BODY_DYNAMIC && records->bodies[b].type == TS_BODY_DYNAMIC) {
        ts_island_link(records, islands, a, b);
        c->linked = true;
    }
}

void ts_contact_unlink_islands(ts_records *records, ts_island_set *islands, int32_t contact)
{
    ts_contact *c = records->contacts + contact;
    if (c->linked) {
        ts_island_mark_removed(records, islands, c->edges[0].body, c->edges[1].body);
        c->linked = false;
    }
}

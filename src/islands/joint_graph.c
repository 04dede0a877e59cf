/* A joint's graph colour: like a contact, a joint takes the first colour in
 * which neither of its dynamic bodies has a bit (graph.h), so that a
 * colour's contacts and joints all touch different bodies; see joint_graph.h. */
#include "islands/joint_graph.h"


static int32_t graph_body_of(const ts_records *records, int32_t body)
{
    return records->bodies[body].type == TS_BODY_DYNAMIC ? body : -1;
}

bool ts_joint_color(ts_records *records, ts_constraint_graph *graph, int32_t index)
{
    ts_joint *j = records->joints + index;
    j->graph_body[0] = graph_body_of(records, j->edges[0].body);
    /* a one-body custom constraint names its body twice: one bit */
    j->graph_body[1] = j->edges[1].body == j->edges[0].body ? -1 : graph_body_of(records, j->edges[1].body);
    j->color = -1;
    j->color_index = -1;
    if (j->graph_body[0] < 0 && j->graph_body[1] < 0) {
        return true; /* nothing to solve until one of them is dynamic */
    }
    return ts_graph_add_joint(graph, &records->allocator, index, j->graph_body[0], j->graph_body[1], &j->color,
                              &j->color_index);
}

void ts_joint_uncolor(ts_records *records, ts_constraint_graph *graph, int32_t index)
{
    ts_joint *j = records->joints + index;
    if (j->color < 0) {
        return;
    }
    int32_t moved =
        ts_graph_remove_joint(graph, j->color, j->color_index, j->graph_body[0], j->graph_body[1]);
    if (moved >= 0) {
        records->joints[moved].color_index = j->color_index;
    }
    j->color = -1;
    j->color_index = -1;
}

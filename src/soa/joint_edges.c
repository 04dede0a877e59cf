/* The joints of a body: each joint is in the joint lists of its two bodies
 * (edge keys joint << 1 | side), which the broadphase's collision filter
 * walks; see joint_edges.h. */
#include "soa/joint_edges.h"

void ts_joint_link_edge(ts_records *records, int32_t index, int side)
{
    ts_joint *j = records->joints + index;
    ts_body *b = records->bodies + j->edges[side].body;
    int32_t key = index << 1 | side;
    j->edges[side].prev_key = -1;
    j->edges[side].next_key = b->joint_head;
    if (b->joint_head != -1) {
        records->joints[b->joint_head >> 1].edges[b->joint_head & 1].prev_key = key;
    }
    b->joint_head = key;
    b->joint_count += 1;
    ts_body_count_edge(&records->store, j->edges[side].body, 1);
}

void ts_joint_unlink_edge(ts_records *records, int32_t index, int side)
{
    ts_joint_edge *e = records->joints[index].edges + side;
    ts_body *b = records->bodies + e->body;
    if (e->prev_key != -1) {
        records->joints[e->prev_key >> 1].edges[e->prev_key & 1].next_key = e->next_key;
    } else {
        b->joint_head = e->next_key;
    }
    if (e->next_key != -1) {
        records->joints[e->next_key >> 1].edges[e->next_key & 1].prev_key = e->prev_key;
    }
    b->joint_count -= 1;
    ts_body_count_edge(&records->store, e->body, -1);
}

/* The contacts between two bodies go when a joint forbids them. */
bool ts_joint_allows_collision(const ts_records *records, int32_t body_a, int32_t body_b)
{
    const ts_body *a = records->bodies + body_a;
    const ts_body *b = records->bodies + body_b;
    if (a->joint_count == 0 || b->joint_count == 0) {
        return true;
    }
    int32_t other = a->joint_count <= b->joint_count ? body_b : body_a;
    int32_t key = a->joint_count <= b->joint_count ? a->joint_head : b->joint_head;
    while (key != -1) {
        const ts_joint *j = records->joints + (key >> 1);
        if (!j->collide_connected && j->edges[(key & 1) ^ 1].body == other) {
            return false;
        }
        key = j->edges[key & 1].next_key;
    }
    return true;
}

/* ---- create and destroy ---- */

/* The joint lists of bodies: each joint is in both of its bodies' lists
 * (keys joint << 1 | side, through ts_joint.edges and ts_body.joint_head),
 * so that a body's joints are found without a search. */
#ifndef TS_JOINT_EDGES_H
#define TS_JOINT_EDGES_H

#include "soa/records.h"

/* Puts side `side` (0: body A, 1: body B) of joint `index` at the head of
 * its body's list, or takes it out. */
void ts_joint_link_edge(ts_records *records, int32_t index, int side);
void ts_joint_unlink_edge(ts_records *records, int32_t index, int side);

/* False when a joint without collide_connected joins the two bodies. */
bool ts_joint_allows_collision(const ts_records *records, int32_t body_a, int32_t body_b);

#endif

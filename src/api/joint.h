/* Joints from the API's side: what a body's destruction or type change does
 * to its joints. The joint record is soa/records.h's; a joint links its
 * bodies' islands (islands/sleep.h: made or destroyed, it wakes both), and
 * the island split walks joint edges like contact edges. */
#ifndef TS_API_JOINT_H
#define TS_API_JOINT_H

#include "step/world_state.h"

/* Makes a joint of `type` between def's bodies after checking them, its
 * frames and (built-in types) its axis settings and length: the create
 * functions of joint.h and of constraint.h (custom: its callback and rows,
 * on one body when def->body_b is null). Returns the null id after
 * recording the error for `fn`. */
ts_joint_id ts_joint_create(ts_world_id world, const ts_joint_def *def, ts_joint_type type,
                            const ts_joint_axis_settings *axis, float length, const ts_joint_custom *custom,
                            const char *fn);

/* Destroys every joint of a body (when the body is destroyed). */
void ts_body_destroy_joints(ts_world *world, int32_t body);

/* After a body's type changed (and it joined or left the islands): its
 * joints take colours again and link its island to the other bodies'. */
ts_result ts_body_relink_joints(ts_world *world, int32_t body, const char *function);

#endif

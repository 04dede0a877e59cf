/* The velocity state of a body while the solver runs: one 64-byte record per
 * awake body (one cache line), gathered per constraint lane and scattered
 * back. Position and rotation move as deltas from the step's start (dp, dq)
 * so that separations stay precise far from the origin (Box2D v3's choice);
 * the body store keeps the start pose until the step ends. */
#ifndef TS_BODY_STATE_H
#define TS_BODY_STATE_H

#include "tessera/types.h"

/* Each quantity starts a 16-byte group, so that a 4-wide gather is four
 * loads and a transpose per group. */
typedef struct ts_body_state {
    ts_vec3 v; /* linear velocity of the centre of mass */
    float pad_v;
    ts_vec3 w; /* angular velocity, world */
    float pad_w;
    ts_vec3 dp; /* position change since the step began */
    float pad_dp;
    ts_quat dq; /* rotation since the step began (world frame: q = dq q0) */
} ts_body_state;

_Static_assert(sizeof(ts_body_state) == 64, "one cache line per body state");

static inline ts_body_state ts_body_state_at_rest(ts_vec3 v, ts_vec3 w)
{
    return (ts_body_state){v, 0.0f, w, 0.0f, {0, 0, 0}, 0.0f, {0, 0, 0, 1}};
}

#endif

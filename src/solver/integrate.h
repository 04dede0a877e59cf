/* Integration of body velocities and poses over a range of awake slots, on
 * the solver's body states (body_state.h) with the constant columns of the
 * body store. These per-body loops are independent, so any split across
 * threads gives the same bits. */
#ifndef TS_INTEGRATE_H
#define TS_INTEGRATE_H

#include "../soa/body_store.h"
#include "body_state.h"

/* States of slots [begin, end) from the store: velocities, zero deltas; and
 * the bodies' world inverse inertias (store columns inv_iw_*) for the
 * constraint preparation (not for full bundles of free bodies, see below).
 * Returns whether there was such a bundle. */
bool ts_states_begin_w1(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end);
bool ts_states_begin_w4(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end);
bool ts_states_begin_w8(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end);
bool ts_states_begin_w16(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end);

/* The integrators run TS_W bodies at a time (integrate_wide.c, one build per
 * width, the same bits at every width). Both keep a body whose new state would not be finite (a huge
 * force, dt or gravity) at its last finite state and return the first such
 * slot, or INT32_MAX when all went well; the step then reports it. A NaN
 * never enters the state, so it never reaches the broadphase either. */

/* What a substep's body pass does with a bundle of W consecutive free
 * bodies (no contact or joint: store column `edges` 0): nothing else touches
 * them between their velocity and position steps, so the soft step runs all
 * its substeps for them in its first velocity pass, bundle by bundle while
 * their states are in the caches (the same operations in the same order,
 * so the same bits), and skips them in the other passes. */
typedef enum ts_free_bodies {
    TS_FREE_AS_OTHERS,     /* no special case (XPBD) */
    TS_FREE_ALL_SUBSTEPS,  /* velocity then position step, `substeps` times */
    TS_FREE_SKIP           /* done in the first velocity pass */
} ts_free_bodies;

/* v += h (F / m + g s), w += h I^-1 T (inertia at the step's start), then
 * damping v *= 1 / (1 + h c). */
int32_t ts_integrate_velocities_w1(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                   ts_vec3 gravity, float h,
                                   ts_free_bodies free, int substeps);
int32_t ts_integrate_velocities_w4(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                   ts_vec3 gravity, float h,
                                   ts_free_bodies free, int substeps);
int32_t ts_integrate_velocities_w8(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                   ts_vec3 gravity, float h,
                                   ts_free_bodies free, int substeps);
int32_t ts_integrate_velocities_w16(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                    ts_vec3 gravity, float h,
                                   ts_free_bodies free, int substeps);

/* dp += h v, dq += h/2 (w, 0) dq, normalised; then the angular velocity of
 * dynamic bodies is updated so that the world angular momentum is unchanged
 * by the rotation (see integrate.c). */
int32_t ts_integrate_positions_w1(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                  float h, ts_free_bodies free);
int32_t ts_integrate_positions_w4(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                  float h, ts_free_bodies free);
int32_t ts_integrate_positions_w8(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                  float h, ts_free_bodies free);
int32_t ts_integrate_positions_w16(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                   float h, ts_free_bodies free);

/* Writes the step's result into the store: p += dp, q = dq q (normalised),
 * velocities; clears forces and torques. */
void ts_states_finish(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end);

/* The same TS_W bodies at a time (integrate_wide.c; the soft step's; the
 * same bits at every width, rounded as the wide quaternion product rounds);
 * forces and torques are cleared when clear_forces (else they are zero). */
void ts_states_finish_wide_w1(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                              bool clear_forces);
void ts_states_finish_wide_w4(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                              bool clear_forces);
void ts_states_finish_wide_w8(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                              bool clear_forces);
void ts_states_finish_wide_w16(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                              bool clear_forces);

#endif

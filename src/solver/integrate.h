/* Integration of body velocities and poses over a range of awake slots, on
 * the solver's body states (body_state.h) with the constant columns of the
 * body store. These per-body loops are independent, so any split across
 * threads gives the same bits. */
#ifndef TS_INTEGRATE_H
#define TS_INTEGRATE_H

#include "soa/body_store.h"
#include "solver/body_state.h"

/* The world's speed limits in a substep (tessera/limits.h): the largest
 * linear speed, m/s, and the largest angular speed, max_rotation / h rad/s.
 * The integrators scale a velocity beyond them to just below
 * (solver/speed_lanes.h): after forces, before each move and when storing. */
typedef struct ts_speed_limit {
    float linear;
    float angular;
} ts_speed_limit;

/* States of slots [begin, end) from the store: velocities, zero deltas; and
 * the bodies' world inverse inertias (store columns inv_iw_*) for the
 * constraint preparation (not for full bundles of free bodies, see below).
 * With free_in_store, such a bundle keeps no state at all (its step runs
 * from the store and back, see below). Returns whether there was one. */
bool ts_states_begin_w1(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end, bool free_in_store);
bool ts_states_begin_w4(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end, bool free_in_store);
bool ts_states_begin_w8(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end, bool free_in_store);
bool ts_states_begin_w16(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end, bool free_in_store);
bool ts_states_begin_w16x(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end, bool free_in_store);

/* The integrators run TS_W bodies at a time (integrate_wide.c, one build per
 * width, the same bits at every width). Both keep a body whose new state would not be finite (a huge
 * force, dt or gravity) at its last finite state and return the first such
 * slot, or INT32_MAX when all went well; the step then reports it. A NaN
 * never enters the state, so it never reaches the broadphase either. */

/* What a substep's body pass does with a bundle of W consecutive free
 * bodies (no contact or joint: store column `edges` 0): nothing else touches
 * them during the step, so the soft step runs their whole step in its first
 * velocity pass, bundle by bundle in registers, from the store's columns
 * and back (the same operations in the same order, so the same bits;
 * ts_states_begin with free_in_store left their states alone), and skips
 * them in the other passes and the states' finish. */
typedef enum ts_free_bodies {
    TS_FREE_AS_OTHERS,     /* no special case (XPBD) */
    TS_FREE_ALL_SUBSTEPS,  /* the whole step: start, `substeps` velocity and position steps, finish */
    TS_FREE_SKIP           /* done in the first velocity pass */
} ts_free_bodies;

/* v += h (F / m + g s), w += h I^-1 T (inertia at the step's start), then
 * damping v *= 1 / (1 + h c). With TS_FREE_ALL_SUBSTEPS the free bundles'
 * whole step, whose end clears their forces when clear_forces (the only
 * case that writes the store). */
int32_t ts_integrate_velocities_w1(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                                   ts_vec3 gravity, float h, ts_free_bodies free, int substeps, bool clear_forces,
                                   ts_speed_limit limit);
int32_t ts_integrate_velocities_w4(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                                   ts_vec3 gravity, float h, ts_free_bodies free, int substeps, bool clear_forces,
                                   ts_speed_limit limit);
int32_t ts_integrate_velocities_w8(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                                   ts_vec3 gravity, float h, ts_free_bodies free, int substeps, bool clear_forces,
                                   ts_speed_limit limit);
int32_t ts_integrate_velocities_w16(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                                   ts_vec3 gravity, float h, ts_free_bodies free, int substeps, bool clear_forces,
                                   ts_speed_limit limit);
int32_t ts_integrate_velocities_w16x(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                                   ts_vec3 gravity, float h, ts_free_bodies free, int substeps, bool clear_forces,
                                   ts_speed_limit limit);

/* dp += h v, dq += h/2 (w, 0) dq, normalised; then the angular velocity of
 * dynamic bodies is updated so that the world angular momentum is unchanged
 * by the rotation (see integrate_wide.c). */
int32_t ts_integrate_positions_w1(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                  float h, ts_free_bodies free, ts_speed_limit limit);
int32_t ts_integrate_positions_w4(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                  float h, ts_free_bodies free, ts_speed_limit limit);
int32_t ts_integrate_positions_w8(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                  float h, ts_free_bodies free, ts_speed_limit limit);
int32_t ts_integrate_positions_w16(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                   float h, ts_free_bodies free,
                                   ts_speed_limit limit);
int32_t ts_integrate_positions_w16x(ts_body_state *states, const ts_body_store *store, int32_t begin, int32_t end,
                                   float h, ts_free_bodies free,
                                   ts_speed_limit limit);

/* Writes the step's result into the store, TS_W bodies at a time: p += dp,
 * q = dq q (normalised; the same bits at every width), velocities within
 * the limits; forces and torques are cleared when clear_forces (else they
 * are zero).
 * With TS_FREE_SKIP the full bundles of free bodies are left out (their
 * velocity pass finished them). A body whose end would not be finite keeps
 * its start; returns the first such slot, else INT32_MAX. */
int32_t ts_states_finish_wide_w1(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                              bool clear_forces, ts_free_bodies free, ts_speed_limit limit);
int32_t ts_states_finish_wide_w4(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                              bool clear_forces, ts_free_bodies free, ts_speed_limit limit);
int32_t ts_states_finish_wide_w8(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                              bool clear_forces, ts_free_bodies free, ts_speed_limit limit);
int32_t ts_states_finish_wide_w16(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                              bool clear_forces, ts_free_bodies free,
                                   ts_speed_limit limit);
int32_t ts_states_finish_wide_w16x(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                              bool clear_forces, ts_free_bodies free,
                                   ts_speed_limit limit);

#endif

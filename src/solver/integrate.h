/* Integration of body velocities and poses over a range of awake slots. These
 * per-body loops are independent, so any split across threads gives the same
 * bits. */
#ifndef TS_INTEGRATE_H
#define TS_INTEGRATE_H

#include "../soa/body_store.h"

/* Both integrators keep a body whose new state would not be finite (a huge
 * force, dt or gravity) at its last finite state and return the first such
 * slot, or INT32_MAX when all went well; the step then reports it. A NaN
 * never enters the state, so it never reaches the broadphase either. */

/* v += h (F / m + g s), w += h I^-1 T, then damping v *= 1 / (1 + h c). */
int32_t ts_integrate_velocities(ts_body_store *store, int32_t begin, int32_t end, ts_vec3 gravity, float h);

/* x += h v, q += h/2 (w, 0) q, normalised; then the angular velocity of
 * dynamic bodies is updated so that the world angular momentum is unchanged
 * by the rotation (see integrate.c). */
int32_t ts_integrate_positions(ts_body_store *store, int32_t begin, int32_t end, float h);

/* Forces and torques last one step. */
void ts_clear_forces(ts_body_store *store, int32_t begin, int32_t end);

#endif

/* A body's mass and frames (body_mass.c): the origin <-> simulation frame
 * conversion, and the mass update that runs when a body's shapes or type
 * change. */
#ifndef TS_API_BODY_MASS_H
#define TS_API_BODY_MASS_H

#include "step/world_state.h"

/* Origin transform of a body (what the user sees), from the simulation frame. */
ts_transform ts_body_origin_transform(const ts_world *world, int32_t body);

/* Puts the simulation frame where the origin transform says. */
void ts_body_set_origin_transform(ts_world *world, int32_t body, ts_transform origin);

/* Mass properties the body would have as `type` with its current shapes.
 * Returns false when they cannot be simulated (not finite, zero, or with an
 * inverse that overflows), e.g. a 1e-8 m sphere or a 1e20 m box. */
bool ts_body_compute_mass(const ts_world *world, int32_t body, ts_body_type type, ts_mass_data *mass_data);

/* The same with one more shape, not yet on the body (`extra`: its
 * geometry, density and local transform), so that a shape is checked
 * before anything changes. */
bool ts_body_compute_mass_with(const ts_world *world, int32_t body, ts_body_type type, const ts_shape *extra,
                               ts_mass_data *mass_data);

/* Mass properties a dynamic body can be simulated with. */
bool ts_mass_is_usable(const ts_mass_data *mass_data);

/* Recomputes mass, centre of mass and principal inertia from the shapes, keeps
 * the origin transform, and moves the centre-of-mass velocity with the centre.
 * Callers check ts_body_compute_mass first; should the result still be
 * unusable, the body gets the shapeless default (1 kg). */
void ts_body_update_mass(ts_world *world, int32_t body);

#endif

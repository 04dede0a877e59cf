/* Shapes: the per-shape pool behind ts_shape_id, and what other parts of the
 * library need from a shape (its mass, its id). */
#ifndef TS_SHAPE_H
#define TS_SHAPE_H

#include "api/world.h"
#include "collide/mass.h"

static inline ts_shape_id ts_shape_id_of(const ts_world *world, int32_t index)
{
    return (ts_shape_id){index + 1, (uint16_t)world->index, world->generation, world->shapes[index].generation};
}

ts_shape_mass ts_shape_compute_mass(const ts_shape *shape);

/* Unlinks a shape from its body and frees its id; the caller updates the mass. */
void ts_shape_release(ts_world *world, int32_t shape);

#endif

/* Shapes from the API's side: what destroying a body does to its shapes. */
#ifndef TS_API_SHAPE_H
#define TS_API_SHAPE_H

#include "step/world_state.h"

/* Unlinks a shape from its body and frees its id; the caller updates the mass. */
void ts_shape_release(ts_world *world, int32_t shape);

#endif

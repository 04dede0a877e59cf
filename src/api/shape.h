/* Shapes from the API's side: what destroying a body does to its shapes. */
#ifndef TS_API_SHAPE_H
#define TS_API_SHAPE_H

#include "step/world_state.h"

/* Unlinks a shape from its body, drops its geometry block (hulls, meshes,
 * heightfields) and frees its id; the caller updates the mass. */
void ts_shape_release(ts_world *world, int32_t shape);

/* The start of every create call: the body looked up, the def checked
 * (its rotation normalised into *rotation). */
ts_result ts_shape_begin(ts_body_id body_id, const ts_shape_def *def, const char *fn, ts_world **world, ts_body **body,
                         ts_quat *rotation);

/* The end of every create call: probe holds the type and geometry (for
 * hulls, meshes and heightfields a reference to a block of the world's
 * geometry store, which this call owns from now on: it is dropped on
 * failure). Checks the mass (not for meshes and heightfields, which have
 * none), makes the record, the body's mass and the proxy. */
ts_shape_id ts_shape_finish(ts_world *world, ts_body *body, const ts_shape_def *def, ts_quat rotation,
                            const ts_shape *probe, const char *fn);

#endif

/* Motion locks from the API's side (see tessera/motion_locks.h): the check
 * of a body's lock bits, and the store's locks column of a body kept equal
 * to the locks in effect (its own, and TS_LOCK_PLANAR for a dynamic body of
 * a planar world) whenever they or its type change. */
#ifndef TS_API_MOTION_LOCKS_H
#define TS_API_MOTION_LOCKS_H

#include "step/world_state.h"

/* TS_OK, or the error for lock bits outside TS_LOCK_ALL
 * (TS_ERROR_OUT_OF_RANGE) or locks on a static body
 * (TS_ERROR_INVALID_OPERATION); `name` is the argument's. */
ts_result ts_check_motion_locks(uint32_t locks, ts_body_type type, const char *fn, const char *name);

/* The locks in effect on body `index`. */
uint32_t ts_body_motion_locks(const ts_world *world, int32_t index);

/* Writes the locks in effect to the body's store column (their locked
 * velocity components zeroed) after its locks, its type or the world's
 * planar flag changed. */
void ts_body_apply_motion_locks(ts_world *world, int32_t index);

#endif

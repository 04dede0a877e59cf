/* The stepping pipeline: the stages of one ts_world_step, in order. */
#ifndef TS_STEP_H
#define TS_STEP_H

#include "../world.h"

/* dt was checked by the caller. Allocates nothing. Returns -1, or the body id
 * index of the first body (in slot order) whose state would have become
 * non-finite and was held at its last finite value. */
int32_t ts_solver_step(ts_world *world, float dt);

#endif

/* The stepping pipeline: the stages of one ts_world_step, in order (step.c). */
#ifndef TS_STEP_H
#define TS_STEP_H

#include "api/world.h"

/* One step of dt (checked by the caller). Allocates only while the world
 * grows (new contacts, events); nothing once it has reached its size. */
ts_result ts_step_world(ts_world *world, float dt);

#endif

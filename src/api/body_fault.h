// SPDX-License-Identifier: MIT
/* Containment of a body whose state overflowed in a step (body_fault.c). */
#ifndef TS_API_BODY_FAULT_H
#define TS_API_BODY_FAULT_H

#include "step/world_state.h"

/* Takes body `index` (held at its last finite state by the step) out of
 * the simulation: its contacts and joints destroyed, out of its island and
 * the broadphase, its slot past the moving ranges; marks it faulted. */
void ts_body_contain(ts_world *world, int32_t index);

#endif

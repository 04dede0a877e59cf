/* The XPBD solver of a step (Müller et al. 2020), the second solver family
 * beside the soft step (solver.h), on the same body states, graph colours
 * and contact bundles; picked by ts_world_def.solver = TS_SOLVER_XPBD.
 * Compiled once per SIMD width like the soft step; every width and thread
 * count gives the same bits. */
#ifndef TS_XPBD_SOLVER_H
#define TS_XPBD_SOLVER_H

#include "../core.h"
#include "body_state.h"
#include "wide.h"

struct ts_world;

/* As ts_solve (solver.h), with XPBD's substep loop. */
ts_result ts_solve_xpbd_w1(struct ts_world *world, float dt, int32_t *held);
ts_result ts_solve_xpbd_w4(struct ts_world *world, float dt, int32_t *held);
ts_result ts_solve_xpbd_w8(struct ts_world *world, float dt, int32_t *held);
ts_result ts_solve_xpbd_w16(struct ts_world *world, float dt, int32_t *held);

#endif

/* The XPBD solver of a step (Müller et al. 2020), the second solver family
 * beside the soft step (solver.h), on the same body states, graph colours
 * and contact bundles; picked by ts_world_def.solver = TS_SOLVER_XPBD.
 * Compiled once per SIMD width like the soft step; every width and thread
 * count gives the same bits. */
#ifndef TS_XPBD_SOLVER_H
#define TS_XPBD_SOLVER_H

#include "base/core.h"
#include "solver/body_state.h"
#include "solver/solver.h"
#include "base/wide.h"

/* As ts_solve (solver.h), with XPBD's substep loop. */
ts_result ts_solve_xpbd_w1(ts_solver *solver, const ts_solve_input *in, int32_t *held);
ts_result ts_solve_xpbd_w4(ts_solver *solver, const ts_solve_input *in, int32_t *held);
ts_result ts_solve_xpbd_w8(ts_solver *solver, const ts_solve_input *in, int32_t *held);
ts_result ts_solve_xpbd_w16(ts_solver *solver, const ts_solve_input *in, int32_t *held);
ts_result ts_solve_xpbd_w16x(ts_solver *solver, const ts_solve_input *in, int32_t *held);

/* Per-body passes (xpbd_bodies.c), over awake slots [begin, end). */
void TS_WIDE(ts_xpbd_keep_prediction)(ts_body_state *TS_RESTRICT predicted, const ts_body_state *states,
                                      int32_t begin, int32_t end);
void TS_WIDE(ts_xpbd_derive_velocities)(ts_body_state *TS_RESTRICT states, const ts_body_state *predicted,
                                        const ts_body_store *store, int32_t begin, int32_t end, float h);

#endif

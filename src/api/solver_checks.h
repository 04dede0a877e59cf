// SPDX-License-Identifier: MIT
/* The argument checks of the solver-only entry (api/solver_context.c):
 * what ts_solve_contacts() refuses before it changes anything. */
#ifndef TS_API_SOLVER_CHECKS_H
#define TS_API_SOLVER_CHECKS_H

#include "step/solver_context.h"
#include "tessera/solver.h"

/* TS_OK, or the first problem of the call's input (recorded for fn, naming
 * the array, index and field). Also the keys: it starts the context's next
 * call, stamps the known contacts the manifolds name with it and fills
 * context->listed_ids (each manifold's known contact id, or -1), so that a
 * repeated key is found before anything changes; TS_ERROR_OUT_OF_MEMORY
 * when the scratch for that cannot grow. */
ts_result ts_check_solver_input(const ts_solver_input *input, ts_solver_context *context, const char *fn);

#endif

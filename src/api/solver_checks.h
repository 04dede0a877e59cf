// SPDX-License-Identifier: MIT
/* The argument checks of the solver-only entry (api/solver_context.c):
 * what ts_solve_contacts() refuses before it changes anything. */
#ifndef TS_API_SOLVER_CHECKS_H
#define TS_API_SOLVER_CHECKS_H

#include "base/key_map.h"
#include "tessera/solver.h"

/* TS_OK, or the first problem of the call's input (recorded for fn, naming
 * the array, index and field). listed is scratch for the check that no key
 * repeats (grown through allocator: TS_ERROR_OUT_OF_MEMORY). */
ts_result ts_check_solver_input(const ts_solver_input *input, ts_key_map *listed, const ts_allocator *allocator,
                                const char *fn);

#endif

/* The contact solver's part of a step: body states, constraint bundles per
 * graph colour, and the substep loop (soft step). */
#ifndef TS_SOLVER_H
#define TS_SOLVER_H

#include "../core.h"
#include "body_state.h"

struct ts_world;
struct ts_contact_bundle;

/* Scratch of one step, kept so that a world that stopped growing allocates
 * nothing. */
typedef struct ts_solver_scratch {
    ts_body_state *states; /* awake bodies by slot, then the dummy */
    int32_t state_capacity;
    struct ts_contact_bundle *bundles; /* colour 0's bundles, colour 1's, ..., then the overflow's */
    int32_t bundle_capacity;
    int32_t color_begin[TS_COLOR_COUNT + 2]; /* bundles of colour c: [color_begin[c], color_begin[c + 1]) */
} ts_solver_scratch;

void ts_solver_scratch_free(ts_solver_scratch *scratch, const ts_allocator *allocator);

/* Integrates and solves the awake bodies over dt (checked by the caller),
 * writes back their poses and velocities, and updates their shape bounds.
 * Returns TS_OK, or TS_ERROR_NOT_FINITE when a body was held at its last
 * finite state (*held is then its id index), or TS_ERROR_OUT_OF_MEMORY. */
ts_result ts_solve(struct ts_world *world, float dt, int32_t *held);

#endif

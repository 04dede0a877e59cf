/* The contact solver's part of a step: body states, constraint bundles per
 * graph colour, and the substep loop (soft step). */
#ifndef TS_SOLVER_H
#define TS_SOLVER_H

#include "base/core.h"
#include "solver/body_state.h"

struct ts_world;

/* Scratch of one step, kept so that a world that stopped growing allocates
 * nothing. */
typedef struct ts_solver_scratch {
    ts_body_state *states; /* awake bodies by slot, then the dummy */
    int32_t state_capacity;
    void *bundles; /* the width's bundles: colour 0's, colour 1's, ..., then the overflow's (one lane each) */
    int32_t bundle_bytes;
    void *bounces; /* soft step: restitution's bookkeeping beside each bundle (ts_contact_bounce_lanes) */
    int32_t bounce_bytes;
    int32_t color_begin[TS_COLOR_COUNT + 2]; /* bundles of colour c: [color_begin[c], color_begin[c + 1]) */
    int32_t *ordered; /* soft step: each colour's contacts in bundle order (contact_order.h) */
    int32_t ordered_capacity;
    int32_t ordered_begin[TS_COLOR_COUNT + 2]; /* colour c's: ordered + ordered_begin[c] */
    ts_body_state *predicted; /* XPBD: the states after each substep's prediction */
    int32_t predicted_capacity;
    ts_body_state *substep_start; /* XPBD, in steps that start with deep overlap: the states at each substep's start */
    int32_t substep_start_capacity;
    void *xpbd_lanes; /* XPBD: its lanes beside each bundle (xpbd_contact.h) */
    int32_t xpbd_lane_bytes;
    void *xpbd_joint_bundles; /* XPBD: its joint bundles (xpbd_joint.h) */
    int32_t xpbd_joint_bundle_bytes;
} ts_solver_scratch;

void ts_solver_scratch_free(ts_solver_scratch *scratch, const ts_allocator *allocator);

/* The widest SIMD width this CPU runs (16, 8, 4 or 1), and whether a width
 * was built. */
int ts_detect_simd_width(void);
bool ts_simd_width_is_built(int width);

/* Integrates and solves the awake bodies over dt (checked by the caller),
 * writes back their poses and velocities, and updates their shape bounds,
 * with the kernels of the world's SIMD width; every width gives the same
 * bits. Returns TS_OK, or TS_ERROR_NOT_FINITE when a body was held at its
 * last finite state (*held is then its id index), or TS_ERROR_OUT_OF_MEMORY. */
/* Makes room for the step's body states and contact bundles and fills the
 * colour ranges of the bundles (solver.c, one build per width). */
bool ts_solver_reserve_scratch_w1(struct ts_world *world, int32_t awake);
bool ts_solver_reserve_scratch_w4(struct ts_world *world, int32_t awake);
bool ts_solver_reserve_scratch_w8(struct ts_world *world, int32_t awake);
bool ts_solver_reserve_scratch_w16(struct ts_world *world, int32_t awake);

ts_result ts_solve(struct ts_world *world, float dt, int32_t *held);
/* The soft step at each width (ts_solve picks it, or XPBD: xpbd_solver.h). */
ts_result ts_solve_w1(struct ts_world *world, float dt, int32_t *held);
ts_result ts_solve_w4(struct ts_world *world, float dt, int32_t *held);
ts_result ts_solve_w8(struct ts_world *world, float dt, int32_t *held);
ts_result ts_solve_w16(struct ts_world *world, float dt, int32_t *held);

#endif

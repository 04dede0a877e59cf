/* The solver of a world: its settings and what it keeps between steps, and
 * one step's solve: body states, constraint bundles per graph colour, and
 * the substep loop (the soft step here; XPBD: xpbd_solver.h). It reads the
 * records and the colours and knows nothing of collision or islands: what
 * else a step does to the bodies it has written back runs in the step's
 * callback (ts_solve_input.finish). */
#ifndef TS_SOLVER_H
#define TS_SOLVER_H

#include "base/core.h"
#include "base/parallel.h"
#include "islands/graph.h"
#include "soa/records.h"
#include "solver/body_state.h"
#include "solver/contact_report.h"
#include "solver/joint_scratch.h"

/* Scratch of one step, kept so that a world that stopped growing allocates
 * nothing. */
typedef struct ts_solver_scratch {
    ts_body_state *states; /* awake bodies by slot, then the dummy */
    int32_t state_capacity;
    void *bundles; /* the width's bundles: colour 0's, colour 1's, ..., then the overflow's (one lane each) */
    int32_t bundle_bytes;
    void *bounces; /* soft step: restitution's bookkeeping beside each bundle (ts_contact_bounce_lanes) */
    int32_t bounce_bytes;
    void *totals; /* soft step, worlds that report impulses: the step's totals beside each bundle (ts_contact_total_lanes) */
    int32_t total_bytes;
    int32_t color_begin[TS_COLOR_COUNT + 2]; /* colour c's room: [color_begin[c], color_begin[c + 1]) */
    int32_t color_end[TS_COLOR_COUNT + 1];   /* bundles of colour c: [color_begin[c], color_end[c]); the paired
                                                passes keep a spare bundle past each colour's (pad, below) */
    int32_t *ordered; /* soft step: each colour's contacts in bundle order (contact_order.h) */
    int32_t ordered_capacity;
    int32_t ordered_begin[TS_COLOR_COUNT + 2]; /* colour c's: ordered + ordered_begin[c] (room for a pad) */
    int32_t ordered_count[TS_COLOR_COUNT + 1]; /* colour c's entries: its contacts and the paired order's pad (-1s) */
    int32_t pair_splits[TS_COLOR_COUNT][3]; /* paired passes: each colour's first bundles of cross, int1b, int1n */
    int32_t pair_work[TS_COLOR_COUNT][2];   /* paired passes: each colour's contacts of worker 0 and of worker 1 */
    uint16_t *order_keys; /* soft step: the order's keys, beside ordered (same offsets) */
    int32_t order_key_capacity;
    int32_t *order_slots; /* paired passes: each contact's two body slots, two per entry of ordered */
    int32_t order_slot_capacity;
    _Atomic uint8_t *border; /* paired passes: 1 for the awake slots that a crossing contact touches */
    int32_t border_capacity;
    ts_body_state *substep_start; /* XPBD, in steps that start with deep overlap: the states at each substep's start */
    int32_t substep_start_capacity;
    void *xpbd_lanes; /* XPBD: its lanes beside each bundle (xpbd_contact.h) */
    int32_t xpbd_lane_bytes;
    void *xpbd_joint_bundles; /* XPBD: its joint bundles (xpbd_joint.h) */
    int32_t xpbd_joint_bundle_bytes;
    void *stage_list; /* soft step: the step's stages as published lists (solver.c) */
    int32_t stage_list_bytes;
} ts_solver_scratch;

void ts_solver_scratch_free(ts_solver_scratch *scratch, const ts_allocator *allocator);

/* The soft step's stage lists (solver.c): at most this many stages a step
 * (two lists of at most a stage per colour and the overflow per pass over
 * bundles, and the body passes), each a ts_stage_def and solver.c's stage
 * record of at most TS_SOLVE_STAGE_BYTES. */
#define TS_SOLVE_STAGE_BYTES 96
static inline int32_t ts_solver_stage_list_capacity(int substeps)
{
    return 8 + (substeps + 1) * (2 + 3 * (TS_COLOR_COUNT + 1));
}
static inline int32_t ts_solver_stage_list_bytes(int substeps)
{
    return ts_solver_stage_list_capacity(substeps) * (int32_t)(sizeof(ts_stage_def) + TS_SOLVE_STAGE_BYTES);
}

/* The widest SIMD width this CPU runs (16, 8, 4 or 1), and whether a width
 * was built. */
int ts_detect_simd_width(void);
bool ts_simd_width_is_built(int width);

/* The solver of a world: its settings (ts_world_def and the ts_world_set_*
 * calls write them) and what it keeps between steps. */
typedef struct ts_solver {
    ts_solver_type type;
    int simd_width; /* the kernels' lanes: 1, 4, 8 or 16 */
    int substeps;
    ts_vec3 gravity;
    float contact_hertz;
    float contact_damping_ratio;
    float contact_push_speed;
    float contact_mass_ratio; /* ts_world_def.contact_mass_ratio */
    float restitution_threshold;
    bool enable_warm_starting;
    float joint_hertz;
    float joint_damping_ratio;
    float max_linear_speed; /* ts_world_def.max_linear_speed (tessera/limits.h) */
    float max_rotation;     /* ts_world_def.max_rotation: the largest turn per substep */
    /* Some awake body's force or torque column may be non-zero (set by
     * ts_body_apply_force and the like, which wake the body): the soft
     * step's write-back clears them, and skips that otherwise. */
    bool forces_pending;
    /* ts_world_set_solver changed the solver since the last step: XPBD's
     * next step lets the overlap the soft step's contacts held out evenly
     * over the step (xpbd_contact.c); any step clears it. */
    bool switched;
    /* The lowest joint index of the custom constraints the last step's
     * solve dropped for a bad row (custom_constraint.h), or -1. */
    int32_t dropped_joint;
    ts_contact_report report;       /* impulse totals and hit events (solver/contact_report.h) */
    ts_solver_scratch scratch;      /* body states and constraint bundles of a step */
    ts_joint_scratch joint_scratch; /* joint bundles of a step (joint_scratch.h) */
    /* paired passes (solver.c): each worker's unit cursor and done count,
     * on lines of their own, and the first count of the next paired stage */
    ts_worker_line pair_lines[4];
    uint64_t pair_base;
    int64_t pair_cut; /* the awake slot where the second worker's range starts (0: the middle) */
} ts_solver;

/* A pass over awake body slots [begin, end), run in the solver's parallel
 * body passes. */
typedef void ts_body_pass_fn(void *context, int32_t begin, int32_t end);

/* What one step's solve works on besides the solver's own state (the step
 * fills it). */
typedef struct ts_solve_input {
    ts_records *records;              /* the bodies, joints and stores */
    const ts_constraint_graph *graph; /* the colours of the touching contacts and joints */
    ts_parallel *parallel;            /* the step's workers */
    ts_step_profile *profile;         /* the solver's stages add their times */
    float dt;
    int step; /* the world's step count (ball joints refresh their kept pose every few steps) */
    /* Run on each block of awake slots right after the write-back (the
     * step's bounds update and sleep timers), while those slots are hot. */
    ts_body_pass_fn *finish;
    void *finish_context;
} ts_solve_input;

/* Makes room for the step's body states and contact bundles and fills the
 * colour ranges of the bundles (solver.c, one build per width); `spare`
 * (the soft step's paired passes): a bundle more a colour, and room for
 * the paired order (contact_order.h). */
bool ts_solver_reserve_scratch_w1(ts_solver_scratch *scratch, const ts_allocator *allocator, bool spare,
                                  const ts_constraint_graph *graph, int32_t awake);
bool ts_solver_reserve_scratch_w4(ts_solver_scratch *scratch, const ts_allocator *allocator, bool spare,
                                  const ts_constraint_graph *graph, int32_t awake);
bool ts_solver_reserve_scratch_w8(ts_solver_scratch *scratch, const ts_allocator *allocator, bool spare,
                                  const ts_constraint_graph *graph, int32_t awake);
bool ts_solver_reserve_scratch_w16(ts_solver_scratch *scratch, const ts_allocator *allocator, bool spare,
                                   const ts_constraint_graph *graph, int32_t awake);
bool ts_solver_reserve_scratch_w16x(ts_solver_scratch *scratch, const ts_allocator *allocator, bool spare,
                                   const ts_constraint_graph *graph, int32_t awake);

/* What a step may colour (step.c, islands/graph_bound.h): `awake` contacts
 * of the awake range or new that may begin touching, and `asleep` touching
 * contacts of sleeping islands that such a touch wakes, of which at most
 * `asleep_over` can reach the overflow set. */
typedef struct ts_step_adds {
    int32_t awake;
    int32_t asleep;
    int32_t asleep_over;
} ts_step_adds;

/* Before a step changes anything (step.c): room for all the scratch its
 * solve may need, whatever the step's touches wake and colour (at most
 * adds.awake + adds.asleep more contacts in colours), so that ts_solve
 * allocates nothing after it (solver_reserve.c, one build per width). An
 * add takes a lane of a bundle, or a bundle of its own in the overflow
 * set: when the room held does not take every awake add as a bundle,
 * overflow_bound(context) says how many awake adds may reach the overflow
 * set (see islands/graph_bound.h). False when out of memory; nothing but
 * capacities changed. */
typedef int32_t ts_overflow_bound_fn(void *context);
bool ts_solver_reserve_step(ts_solver *solver, const ts_records *records, const ts_constraint_graph *graph,
                            ts_step_adds adds, ts_overflow_bound_fn *overflow_bound, void *context);
bool ts_solver_reserve_step_w1(ts_solver *solver, const ts_records *records, const ts_constraint_graph *graph,
                               ts_step_adds adds, ts_overflow_bound_fn *overflow_bound, void *context);
bool ts_solver_reserve_step_w4(ts_solver *solver, const ts_records *records, const ts_constraint_graph *graph,
                               ts_step_adds adds, ts_overflow_bound_fn *overflow_bound, void *context);
bool ts_solver_reserve_step_w8(ts_solver *solver, const ts_records *records, const ts_constraint_graph *graph,
                               ts_step_adds adds, ts_overflow_bound_fn *overflow_bound, void *context);
bool ts_solver_reserve_step_w16(ts_solver *solver, const ts_records *records, const ts_constraint_graph *graph,
                                ts_step_adds adds, ts_overflow_bound_fn *overflow_bound, void *context);
bool ts_solver_reserve_step_w16x(ts_solver *solver, const ts_records *records, const ts_constraint_graph *graph,
                                 ts_step_adds adds, ts_overflow_bound_fn *overflow_bound, void *context);

/* Integrates and solves the awake bodies over in->dt (checked by the
 * caller), writes back their poses and velocities, and runs in->finish on
 * them, with the kernels of the solver's SIMD width; every width gives the
 * same bits. Returns TS_OK, or TS_ERROR_NOT_FINITE when a body was held at
 * its last finite state (*held is then its id index), or
 * TS_ERROR_OUT_OF_MEMORY. */
ts_result ts_solve(ts_solver *solver, const ts_solve_input *in, int32_t *held);
/* The soft step at each width (ts_solve picks it, or XPBD: xpbd_solver.h). */
ts_result ts_solve_w1(ts_solver *solver, const ts_solve_input *in, int32_t *held);
ts_result ts_solve_w4(ts_solver *solver, const ts_solve_input *in, int32_t *held);
ts_result ts_solve_w8(ts_solver *solver, const ts_solve_input *in, int32_t *held);
ts_result ts_solve_w16(ts_solver *solver, const ts_solve_input *in, int32_t *held);
ts_result ts_solve_w16x(ts_solver *solver, const ts_solve_input *in, int32_t *held);

#endif

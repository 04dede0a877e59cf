/* Preparing the joint bundles of a step: sorting each colour's joints by
 * type into bundles of TS_W lanes, filling each lane (bodies, masses, world
 * inverse inertias, anchors and frames at the step's start, effective masses,
 * limit / motor / spring coefficients, warm-start impulses), and storing the
 * impulses and reaction forces back after the substeps (ball bundles:
 * ball_joint.c). Compiled once per width TS_W, like the kernels that read
 * the bundles. */
#ifndef TS_JOINT_PREPARE_H
#define TS_JOINT_PREPARE_H

#include "islands/graph.h"
#include "soa/records.h"
#include "solver/joint_solver.h"

/* How often the kept ball bundles evaluate their pose afresh (ball_joint.h). */
#define TS_BALL_REFRESH_STEPS 32

typedef struct ts_joint_prepare_context {
    const ts_records *records;
    const ts_joint_scratch *scratch; /* the layout of the bundles */
    int32_t awake; /* awake bodies; the dummy state is at this index */
    float h;       /* substep */
    bool warm_start;
    bool ball_fill; /* fill the ball bundles afresh (ts_joint_take_ball_fill) */
    /* evaluate the kept ball bundles' pose at the step's start from the
     * bodies' poses (every TS_BALL_REFRESH_STEPS steps; ball_joint.h) */
    bool ball_refresh;
    const ts_body_state *states; /* the step's start states (custom constraints evaluate their rows there) */
} ts_joint_prepare_context;

/* A body as a joint lane sees it at the step's start: its state index (the
 * dummy unless awake), inverse mass and world inverse inertia (zero unless
 * awake) and its simulation frame. */
typedef struct ts_joint_body_view {
    int32_t state;
    float inv_mass;
    float inv_inertia[6]; /* xx yy zz xy xz yz */
    ts_vec3 center;       /* the simulation frame: centre of mass */
    ts_quat rotation;     /* and principal axes */
} ts_joint_body_view;

ts_joint_body_view TS_WIDE(ts_joint_view_body)(const ts_joint_prepare_context *c, int32_t body);

/* Serial, before the solver's parallel region: lays out the bundles of every
 * colour (in scratch). False when the allocator fails. */
bool TS_WIDE(ts_joint_solver_begin)(ts_joint_scratch *scratch, ts_records *records, const ts_constraint_graph *graph);

/* Whether this soft step must fill its ball bundles afresh rather than
 * refresh them (ball_joint.h): when the layout was rebuilt, or the previous
 * step did not fill them (the first step, XPBD, a solver switch). Marks
 * them filled by the step `step` (the world's step count). */
bool TS_WIDE(ts_joint_take_ball_fill)(ts_joint_scratch *scratch, ts_records *records, int32_t step);

/* Fills bundle k (any order, any thread). */
void TS_WIDE(ts_joint_prepare_bundle)(const ts_joint_prepare_context *c, int32_t k);

/* Fills bundles [begin, end) in order, asking for the next ball bundle's
 * lines while one is filled. */
void TS_WIDE(ts_joint_prepare_bundles)(const ts_joint_prepare_context *c, int32_t begin, int32_t end);

/* Writes bundle k's impulses back to its joints, with the reaction force
 * and torque (impulse per substep / h); ball bundles keep theirs until
 * ts_joint_flush_impulses (joint_scratch.h). */
void TS_WIDE(ts_joint_store_impulses)(const ts_joint_scratch *scratch, ts_records *records, int32_t k, float inv_h);

#endif

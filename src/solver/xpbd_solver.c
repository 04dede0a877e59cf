/* The XPBD solver of a step (see xpbd_solver.h), compiled once per SIMD
 * width TS_W. It prepares the body states and the contact bundles exactly as
 * the soft step does (contact_prepare.c), and its own joint bundles in the
 * soft step's joint layout (xpbd_joint_prepare.c), then runs, per substep,
 *
 *   predict      v += h a, then dp += h v, dq by w (the soft step's
 *                integrators), and keep the predicted states;
 *   positions    one pass over the contacts and joints, colour by colour
 *                (xpbd_contact.c, xpbd_joint.c): rigid non-penetration with
 *                a capped push-out, static friction as a position
 *                constraint, the joints' locks, limits and springs;
 *   derive       v, w from the correction of the predicted pose;
 *   velocities   one pass over the contacts and joints: restitution or
 *                rest, dynamic friction and twist; joint motors and spring
 *                damping;
 *   push         only in a step that starts with overlap deeper than
 *                TS_CONTACT_PUSH_DEPTH: that overlap moved out by positions
 *                alone (xpbd_push.c), which also keep the states at each
 *                substep's start for the position pass;
 *
 * and after the substeps stores the last substep's impulses (reported by
 * ts_body_get_contacts and the joints' reaction readouts; XPBD does not warm
 * start) and writes the bodies back.
 *
 * Beyond the paper, and why:
 * - Poses are deltas since the step's start (dp, dq) and separations come
 *   from anchors fixed at the step's start: no world position enters a
 *   constraint or a derived velocity, so nothing loses precision far from
 *   the origin (Solver2D found XPBD unstable there; Catto's fix).
 * - Overlap the step started with, up to TS_CONTACT_PUSH_DEPTH, is pushed
 *   out at contact_push_speed at most (a growing allowance), and the
 *   velocity pass takes back the separating speed a push-out made (the
 *   normal impulse of the substep stays >= 0). Deeper overlap is moved out
 *   by positions only (the push pass), since pushed out by the position
 *   pass it became velocity that added up along a column (a 25%-overlapped
 *   pyramid launched its top box at 20-28 m/s).
 * - Dynamic friction limits an impulse by an impulse (μ times the normal
 *   impulse of the substep), at the manifold centre with a twist limit, as
 *   the soft step does; the paper's formula mixes a speed with an impulse.
 * - Static friction holds the centre at a slip origin that moves only when
 *   the cone gives way, and is kept across steps in the contact store
 *   (slip1, slip2): reset at every step, the per-step residue of each flank
 *   box of a B = 20 pyramid added up to 0.8 m of sliding in 10 s.
 * - The friction cone uses the larger of this substep's normal multiplier
 *   and the last substep's load: without warm starting the normal push of a
 *   stacked contact comes and goes between substeps, friction should not.
 * - Two Gauss-Seidel sweeps over a manifold's points (TS_XPBD_POINT_SWEEPS).
 * - The restitution threshold is the larger of 2|g|h (the paper's) and the
 *   world's restitution_threshold.
 *
 * Runs on worker 0 inside the step's parallel region: every pass over
 * bodies and every colour of a pass over bundles is one stage of the step's
 * workers (base/parallel.h), colours in order; the overflow bundles run on worker
 * 0 after the colours. */
#include "solver/xpbd_solver.h"

#include "base/array.h"
#include "base/error.h"
#include "base/math3.h"
#include "base/parallel.h"
#include "base/timer.h"
#include "solver/contact_prepare.h"
#include "solver/contact_solver.h"
#include "solver/custom_constraint.h"
#include "solver/integrate.h"
#include "solver/solver.h"
#include "solver/xpbd_contact.h"
#include "solver/xpbd_joint.h"

/* Items per block of a stage, as the soft step's (solver.c). */
#define TS_BODY_BLOCK 128
#define TS_BUNDLE_BLOCK (32 / TS_W > 1 ? 32 / TS_W : 1)

/* Sweeps over a manifold's points in the position pass (see
 * xpbd_contact.c): one leaves the first point's correction tilting the box,
 * and a 15-box stack sways 25 cm at 4 substeps; two hold it within 1 cm. */
#define TS_XPBD_POINT_SWEEPS 2

/* Push passes per substep in a step with deep overlap (xpbd_push.c): one
 * left the 25%-overlapped B = 10 pyramid 21-25 cm deep after 1 s at 4
 * substeps (the overlap around a pushed box is pushed back into it); two
 * recover it, as the soft step's two pushes a substep (solve and relax). */
#define TS_XPBD_PUSH_PASSES 2

typedef struct xpbd_run {
    ts_records *records;
    const ts_constraint_graph *graph;
    ts_parallel *parallel;
    ts_step_profile *profile;
    ts_body_pass_fn *finish;
    void *finish_context;
    ts_solver_scratch *scratch;
    ts_contact_bundle *bundles;
    ts_xpbd_contact_lanes *lanes;
    ts_contact_prepare_context prepare;
    ts_xpbd_context kernels;
    ts_xpbd_joint_bundle *joints; /* the joint bundles, in the order of the joint scratch's refs */
    const int32_t *joint_begin;   /* joint bundles of colour c: [joint_begin[c], joint_begin[c + 1]) */
    ts_xpbd_joint_context joint_kernels;
    ts_vec3 gravity;
    ts_speed_limit limit; /* the world's speed limits in a substep */
    int substeps;
    int substep; /* the substep in progress (the position pass's push-out allowance) */
    int32_t awake;
    int32_t first_bad[TS_MAX_THREADS]; /* per worker: the first body held at its last finite state */
    bool deep[TS_MAX_THREADS];         /* per worker: a contact it prepared starts deeper than the push depth */
} xpbd_run;

typedef enum pass {
    PASS_STATES_BEGIN,
    PASS_PREDICT,
    PASS_DERIVE,
    PASS_FINISH,
    PASS_PREPARE,
    PASS_POSITIONS,
    PASS_VELOCITIES,
    PASS_PUSH,
    PASS_STORE
} pass;

/* One parallel stage: a pass over bodies, or over contact bundles
 * [first, first + count) followed by joint bundles
 * [joint_first, joint_first + joint_count) (a colour's joints touch other
 * bodies than its contacts, so both run in the same stage, as in solver.c). */
typedef struct xpbd_stage {
    xpbd_run *r;
    pass kind;
    int32_t first;
    int32_t count;
    int32_t joint_first;
    int32_t joint_count;
    int32_t block_size;
} xpbd_stage;

static inline int32_t min_slot(int32_t a, int32_t b) { return a < b ? a : b; }

/* Prepares bundles [begin, end), which may span colours. */
static void prepare_bundles(xpbd_run *r, int32_t begin, int32_t end, int worker)
{
    const int32_t *color_begin = r->scratch->color_begin;
    int color = 0;
    for (int32_t k = begin; k < end; ++k) {
        while (k >= color_begin[color + 1]) {
            ++color;
        }
        int lanes = color == TS_OVERFLOW_COLOR ? 1 : TS_W;
        const ts_graph_color *in_color = r->graph->colors + color;
        TS_WIDE(ts_contact_prepare_bundle)(&r->prepare, r->bundles + k, NULL, in_color->contacts, in_color->count,
                                           (k - color_begin[color]) * lanes, lanes);
        if (TS_WIDE(ts_xpbd_contact_begin)(&r->kernels, r->records, r->bundles + k, r->lanes + k)) {
            r->deep[worker] = true;
        }
    }
}

static void run_bundle(const xpbd_run *r, int32_t k, pass kind)
{
    switch (kind) {
    case PASS_POSITIONS:
        TS_WIDE(ts_xpbd_contact_solve_positions)(&r->kernels, r->bundles + k, r->lanes + k, r->substep);
        break;
    case PASS_VELOCITIES: TS_WIDE(ts_xpbd_contact_solve_velocities)(&r->kernels, r->bundles + k, r->lanes + k); break;
    case PASS_PUSH: TS_WIDE(ts_xpbd_contact_push)(&r->kernels, r->bundles + k, r->lanes + k); break;
    case PASS_STORE: TS_WIDE(ts_xpbd_contact_store)(r->records, r->bundles + k, r->lanes + k); break;
    default: break;
    }
}

/* A bundle of custom constraints (custom_constraint.h): its lanes' scalar rows. */
static void run_custom_bundle(const xpbd_run *r, ts_joint_bundle_ref ref, pass kind)
{
    const ts_xpbd_joint_context *c = &r->joint_kernels;
    ts_custom_lane *lanes = (ts_custom_lane *)c->joint_scratch->custom_lanes + ref.slot;
    ts_custom_pass p = {c->states, c->h, c->inv_h, 0.0f, 1.0f, 0.0f};
    switch (kind) {
    case PASS_PREPARE:
        for (int l = 0; l < ref.lanes; ++l) {
            ts_custom_prepare(lanes + l, r->records, c->states, c->joint_scratch->sorted[ref.first + l], c->awake,
                              c->h, false, true);
        }
        break;
    case PASS_POSITIONS: ts_custom_xpbd_positions(lanes, ref.lanes, &p); break;
    case PASS_VELOCITIES: ts_custom_xpbd_velocities(lanes, ref.lanes, &p); break;
    case PASS_STORE: ts_custom_store(lanes, ref.lanes, r->records, c->inv_h); break;
    default: break;
    }
}

/* Joint bundle k. */
static void run_joint_bundle(const xpbd_run *r, int32_t k, pass kind)
{
    ts_joint_bundle_ref ref = r->joint_kernels.joint_scratch->refs[k];
    if (ref.type == TS_JOINT_CUSTOM) {
        run_custom_bundle(r, ref, kind);
        return;
    }
    ts_xpbd_joint_bundle *b = r->joints + k;
    switch (kind) {
    case PASS_PREPARE: TS_WIDE(ts_xpbd_joint_prepare)(&r->joint_kernels, b, k); break;
    case PASS_POSITIONS: TS_WIDE(ts_xpbd_joint_solve_positions)(&r->joint_kernels, b); break;
    case PASS_VELOCITIES: TS_WIDE(ts_xpbd_joint_solve_velocities)(&r->joint_kernels, b); break;
    case PASS_STORE: TS_WIDE(ts_xpbd_joint_store)(r->records, b, r->kernels.inv_h); break;
    default: break;
    }
}

static void run_block(void *context, int32_t block, int worker)
{
    const xpbd_stage *stage = context;
    xpbd_run *r = stage->r;
    ts_solver_scratch *scratch = r->scratch;
    ts_body_store *store = &r->records->store;
    float h = r->kernels.h;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, stage->count + stage->joint_count, &begin, &end);
    if (end > stage->count) { /* the block's joint bundles */
        for (int32_t k = begin > stage->count ? begin : stage->count; k < end; ++k) {
            run_joint_bundle(r, stage->joint_first + k - stage->count, stage->kind);
        }
        end = stage->count;
    }
    begin += stage->first;
    end += stage->first;
    int32_t bad = INT32_MAX;
    switch (stage->kind) {
    case PASS_STATES_BEGIN: TS_WIDE(ts_states_begin)(scratch->states, store, begin, end, false); break;
    case PASS_PREDICT:
        if (r->kernels.substep_start != NULL) {
            TS_WIDE(ts_xpbd_keep_prediction)(scratch->substep_start, scratch->states, begin, end); /* a copy */
        }
        bad = TS_WIDE(ts_integrate_velocities)(scratch->states, store, begin, end, r->gravity, h, TS_FREE_AS_OTHERS, 1,
                                               false, r->limit);
        bad = min_slot(bad, TS_WIDE(ts_integrate_positions)(scratch->states, store, begin, end, h, TS_FREE_AS_OTHERS,
                                                            r->limit));
        TS_WIDE(ts_xpbd_keep_prediction)(scratch->predicted, scratch->states, begin, end);
        break;
    case PASS_DERIVE:
        TS_WIDE(ts_xpbd_derive_velocities)(scratch->states, scratch->predicted, store, begin, end, h);
        break;
    case PASS_FINISH:
        ts_states_finish(scratch->states, store, begin, end, r->limit);
        r->finish(r->finish_context, begin, end);
        break;
    case PASS_PREPARE:
        if (begin < end) {
            prepare_bundles(r, begin, end, worker);
        }
        break;
    default:
        for (int32_t k = begin; k < end; ++k) {
            run_bundle(r, k, stage->kind);
        }
        break;
    }
    if (bad < r->first_bad[worker]) {
        r->first_bad[worker] = bad;
    }
}

static void run_stage(xpbd_run *r, pass kind, int32_t first, int32_t count, int32_t joint_first, int32_t joint_count,
                      int32_t min_block)
{
    int32_t items = count + joint_count;
    if (items <= 0) {
        return;
    }
    xpbd_stage stage = {r, kind, first, count, joint_first, joint_count, ts_block_size(items, min_block)};
    ts_parallel_for(r->parallel, run_block, &stage, ts_block_count(items, stage.block_size));
}

static void run_bodies(xpbd_run *r, pass kind) { run_stage(r, kind, 0, r->awake, 0, 0, TS_BODY_BLOCK); }

/* Every contact and joint bundle, overflow included (prepare, store: each
 * bundle writes only its own data). */
static void run_all_bundles(xpbd_run *r, pass kind)
{
    run_stage(r, kind, 0, r->scratch->color_begin[TS_OVERFLOW_COLOR + 1], 0, r->joint_begin[TS_OVERFLOW_COLOR + 1],
              TS_BUNDLE_BLOCK);
}

/* Colours in order, a stage each; then the overflow bundles on worker 0, in
 * order (they may share bodies). */
static void run_colors(xpbd_run *r, pass kind)
{
    const int32_t *begin = r->scratch->color_begin;
    const int32_t *joint_begin = r->joint_begin;
    for (int color = 0; color < TS_GRAPH_COLOR_COUNT; ++color) {
        run_stage(r, kind, begin[color], begin[color + 1] - begin[color], joint_begin[color],
                  joint_begin[color + 1] - joint_begin[color], TS_BUNDLE_BLOCK);
    }
    for (int32_t k = begin[TS_OVERFLOW_COLOR]; k < begin[TS_OVERFLOW_COLOR + 1]; ++k) {
        run_bundle(r, k, kind);
    }
    for (int32_t k = joint_begin[TS_OVERFLOW_COLOR]; k < joint_begin[TS_OVERFLOW_COLOR + 1]; ++k) {
        run_joint_bundle(r, k, kind);
    }
}

static void lap(double *mark, double *stage)
{
    double now = ts_now_ms();
    *stage += now - *mark;
    *mark = now;
}

static void run_xpbd(xpbd_run *r)
{
    ts_step_profile *p = r->profile;
    double mark = ts_now_ms();
    run_bodies(r, PASS_STATES_BEGIN);
    run_all_bundles(r, PASS_PREPARE);
    bool deep = false;
    for (int w = 0; w < r->parallel->worker_count; ++w) {
        deep = deep || r->deep[w];
    }
    r->kernels.substep_start = deep ? r->scratch->substep_start : NULL;
    lap(&mark, &p->prepare);
    for (int sub = 0; sub < r->substeps; ++sub) {
        r->substep = sub;
        run_bodies(r, PASS_PREDICT);
        lap(&mark, &p->integrate_positions);
        run_colors(r, PASS_POSITIONS);
        lap(&mark, &p->solve);
        run_bodies(r, PASS_DERIVE);
        lap(&mark, &p->integrate_velocities);
        run_colors(r, PASS_VELOCITIES);
        if (deep) { /* profiled with the velocity pass */
            for (int push = 0; push < TS_XPBD_PUSH_PASSES; ++push) {
                run_colors(r, PASS_PUSH);
            }
        }
        lap(&mark, &p->relax);
    }
    run_all_bundles(r, PASS_STORE);
    lap(&mark, &p->store_impulses);
    run_bodies(r, PASS_FINISH);
    lap(&mark, &p->finalize);
}

/* The soft step's scratch (states, bundles, colour ranges) plus XPBD's:
 * the predicted states, the substep's start states (reserved in every step,
 * so that a deep overlap appearing later allocates nothing), the lanes
 * beside each contact bundle and the joint bundles. */
static bool reserve_scratch(ts_solver *solver, const ts_solve_input *in, int32_t awake)
{
    const ts_allocator *allocator = &in->records->allocator;
    if (!TS_WIDE(ts_solver_reserve_scratch)(&solver->scratch, allocator, in->graph, awake) ||
        !TS_WIDE(ts_xpbd_joint_begin)(solver, in->records, in->graph)) {
        return false;
    }
    ts_solver_scratch *s = &solver->scratch;
    int32_t bundles = s->color_begin[TS_OVERFLOW_COLOR + 1];
    return ts_array_reserve(allocator, (void **)&s->predicted, &s->predicted_capacity, awake + 1,
                            sizeof(ts_body_state)) &&
           ts_array_reserve(allocator, (void **)&s->substep_start, &s->substep_start_capacity, awake + 1,
                            sizeof(ts_body_state)) &&
           ts_array_reserve(allocator, &s->xpbd_lanes, &s->xpbd_lane_bytes,
                            bundles * (int32_t)sizeof(ts_xpbd_contact_lanes), 1);
}

ts_result TS_WIDE(ts_solve_xpbd)(ts_solver *solver, const ts_solve_input *in, int32_t *held)
{
    *held = -1;
    ts_records *records = in->records;
    float dt = in->dt;
    int32_t awake = records->store.table.end[TS_RANGE_AWAKE];
    if (!reserve_scratch(solver, in, awake)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (solver scratch)");
    }
    ts_solver_scratch *scratch = &solver->scratch;
    scratch->states[awake] = ts_body_state_at_rest(ts_v3(0, 0, 0), ts_v3(0, 0, 0)); /* the dummy */
    scratch->predicted[awake] = scratch->states[awake];
    scratch->substep_start[awake] = scratch->states[awake];

    float h = dt / (float)solver->substeps;
    ts_vec3 g = solver->gravity;
    float bounce_floor = 2.0f * sqrtf(g.x * g.x + g.y * g.y + g.z * g.z) * h;
    ts_softness unused = {0.0f, 1.0f, 0.0f}; /* the soft step's coefficients: XPBD does not read them */
    xpbd_run r = {
        .records = records,
        .graph = in->graph,
        .parallel = in->parallel,
        .profile = in->profile,
        .finish = in->finish,
        .finish_context = in->finish_context,
        .scratch = scratch,
        .bundles = scratch->bundles,
        .lanes = scratch->xpbd_lanes,
        .prepare = {records, awake, unused, unused, solver->enable_warm_starting},
        .kernels = {.states = scratch->states,
                    .substep_start = NULL, /* set after the prepare pass: deep overlap or not */
                    .h = h,
                    .inv_h = 1.0f / h,
                    .push_speed = solver->contact_push_speed,
                    .push_step = solver->contact_push_speed * h,
                    .restitution_threshold = solver->restitution_threshold > bounce_floor
                                                 ? solver->restitution_threshold
                                                 : bounce_floor,
                    .compliance = 0.0f,
                    .static_compliance = 0.0f,
                    .point_sweeps = TS_XPBD_POINT_SWEEPS},
        .joints = scratch->xpbd_joint_bundles,
        .joint_begin = solver->joint_scratch.color_begin,
        .joint_kernels = {scratch->states, records, &solver->joint_scratch, awake, h, 1.0f / h},
        .gravity = g,
        .limit = {solver->max_linear_speed, solver->max_rotation / h},
        .substeps = solver->substeps,
        .awake = awake,
    };
    int workers = in->parallel->worker_count;
    for (int w = 0; w < workers; ++w) {
        r.first_bad[w] = INT32_MAX;
        r.deep[w] = false;
    }
    run_xpbd(&r);
    solver->dropped_joint = ts_custom_take_dropped(solver->joint_scratch.custom_lanes,
                                                   solver->joint_scratch.custom_count, records);
    int32_t bad = INT32_MAX;
    for (int w = 0; w < workers; ++w) {
        bad = min_slot(bad, r.first_bad[w]);
    }
    if (bad != INT32_MAX) {
        *held = records->store.table.id_of_slot[bad];
        return TS_ERROR_NOT_FINITE;
    }
    return TS_OK;
}

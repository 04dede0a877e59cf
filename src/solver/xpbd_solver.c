/* The XPBD solver of a step (see xpbd_solver.h), compiled once per SIMD
 * width TS_W. It prepares the body states and the contact bundles exactly as
 * the soft step does (contact_prepare.c), and its own joint bundles in the
 * soft step's joint layout (xpbd_joint_prepare.c), then runs, per substep,
 *
 *   velocities   v += h a (the soft step's integrator);
 *   approach     in a step with a bouncing contact: each point's normal
 *                velocity, before the warm start changes it (restitution
 *                answers it, xpbd_contact.c);
 *   warm start   the last substep's multipliers, scaled, as velocity
 *                changes (contacts' normal impulses and ball and fixed
 *                joints' by TS_XPBD_WARM_SCALE, friction and twist whole);
 *   positions    dp += h v, dq by w (the soft step's integrator): the
 *                prediction;
 *   projection   one pass over the contacts and joints, colour by colour
 *                (xpbd_contact.c, xpbd_joint.c, and custom constraints'
 *                rows, custom_constraint.c): rigid non-penetration with
 *                a capped push-out, over-relaxed by manifold, the joints' locks, limits and springs;
 *                each correction moves the velocities with the pose
 *                (xpbd_lanes.h); then a second pass over the joints alone;
 *   velocities   one pass over the contacts and joints: restitution or
 *                rest, friction and twist; joint motors and spring damping;
 *   push         only in a step that starts with overlap deeper than
 *                TS_CONTACT_PUSH_DEPTH: that overlap moved out by positions
 *                alone (xpbd_push.c);
 *
 * and after the substeps stores the last substep's impulses (the next
 * step's warm start; reported by ts_body_get_contacts and the joints'
 * reaction readouts) and writes the bodies back. Bodies with no contact or
 * joint run their whole step in the first velocity pass, as in the soft
 * step (integrate.h).
 *
 * Beyond the paper, and why (docs/xpbd.md has the measurements):
 * - Warm starting. Rigid constraints solved by one Gauss-Seidel sweep a
 *   substep carry a load through n bodies only after ~n sweeps, so a tall
 *   stack or a heavy load on light links sags by what the sweeps have not
 *   yet carried. Starting each substep from the last one's multipliers
 *   carries the load over, but a velocity derived from the positions feeds
 *   the multiplier's error back: for the slowest modes (sweep error
 *   factor g -> 1) the substep map of (error, velocity, multiplier) has
 *   spectral radius above 1 for a scale above 1/2. At 1/2 (with some margin
 *   below the limit kept by the modes with g < 1) the steady error of those
 *   modes halves.
 * - A second projection of the joints per substep: a chain of light links
 *   carrying a heavy ball converges as g^2 instead of g.
 * - Poses are deltas since the step's start (dp, dq) and separations come
 *   from anchors fixed at the step's start: no world position enters a
 *   constraint or a velocity, so nothing loses precision far from the
 *   origin (Solver2D found XPBD unstable there; Catto's fix).
 * - Overlap the step started with, up to TS_CONTACT_PUSH_DEPTH, is pushed
 *   out at contact_push_speed at most (a growing allowance), and the
 *   velocity pass takes back the separating speed a push-out made (the
 *   normal impulse of the substep stays >= 0). Deeper overlap is moved out
 *   by positions only (the push pass), since pushed out by the position
 *   pass it became velocity that added up along a column (a 25%-overlapped
 *   pyramid launched its top box at 20-28 m/s).
 * - Friction is the soft step's, on velocities (xpbd_contact.c says why not
 *   the paper's static friction on positions).
 * - The restitution threshold is the larger of 2|g|h (the paper's) and the
 *   world's restitution_threshold.
 *
 * Runs on worker 0 inside the step's parallel region: every pass over
 * bodies and every colour of a pass over bundles (prepare and store too) is
 * one stage of the step's workers (base/parallel.h), colours in order, a
 * run of small colours one stage on one worker; the overflow bundles run on
 * worker 0 after the colours. */
#include "solver/xpbd_solver.h"

#include "base/array.h"
#include "base/error.h"
#include "base/math3.h"
#include "base/parallel.h"
#include "base/timer.h"
#include "solver/contact_prepare.h"
#include "solver/contact_report.h"
#include "solver/contact_solver.h"
#include "solver/custom_constraint.h"
#include "solver/integrate.h"
#include "solver/joint_prepare.h"
#include "solver/solver.h"
#include "solver/xpbd_ball.h"
#include "solver/xpbd_contact.h"
#include "solver/xpbd_joint.h"

#include <string.h>

/* Items per block of a stage, as the soft step's (solver.c). */
#define TS_BODY_BLOCK 128
#define TS_BUNDLE_BLOCK (32 / TS_W > 1 ? 32 / TS_W : 1)

/* The warm start's share of the last substep's multipliers (header
 * comment). 1/2 is the stability limit of the slowest modes, which it
 * leaves undamped: contacts, whose velocity pass damps their normal
 * motion, run at it; joints (nothing damps a ball joint's) at 0.4, where a
 * resting chain's top joint reads its weight within 1% (at 0.5: 1.7% off,
 * a slow oscillation). Measured at 8 substeps: the 1,000 kg box on 1 kg
 * boxes stays on them at 0.5 (1.7 cm deep) and falls through at 0.4; the
 * 1,000:1 ball and chain's largest gap is 0.245 m without warm starting
 * and one joint pass, 0.081 m at 0.4 with two; 0.6 and above diverge. */
#ifndef TS_XPBD_WARM_SCALE
#define TS_XPBD_WARM_SCALE 0.5f
#endif
#ifndef TS_XPBD_JOINT_WARM_SCALE
#define TS_XPBD_JOINT_WARM_SCALE 0.4f
#endif

/* Push passes per substep in a step with deep overlap (xpbd_push.c): one
 * left the 25%-overlapped B = 10 pyramid 21-25 cm deep after 1 s at 4
 * substeps (the overlap around a pushed box is pushed back into it); two
 * recover it, as the soft step's two pushes a substep (solve and relax). */
#define TS_XPBD_PUSH_PASSES 2

typedef struct xpbd_run {
    ts_solver *solver;
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
    ts_ball_bundle *balls;                 /* the ball bundles (ball_joint.h), at their refs' slots */
    ts_joint_prepare_context ball_prepare; /* their preparation (the soft step's) */
    ts_xpbd_ball_context ball_kernels;
    ts_vec3 gravity;
    ts_speed_limit limit; /* the world's speed limits in a substep */
    int substeps;
    int substep; /* the substep in progress */
    int32_t awake;
    int32_t step;       /* the world's step count: the reports' stamp */
    bool hits;          /* the world reports hit events: the bounce lanes track every bundle's approach */
    bool impulses;      /* the world reports impulse totals: the totals lanes are kept */
    bool free_bodies;                  /* some bundle of free bodies runs its step in the first velocity pass */
    int32_t first_bad[TS_MAX_THREADS]; /* per worker: the first body held at its last finite state */
    bool deep[TS_MAX_THREADS];         /* per worker: a contact it prepared starts deeper than the push depth */
    bool bouncy[TS_MAX_THREADS];       /* per worker: a contact it prepared has restitution */
    bool free_found[TS_MAX_THREADS];   /* per worker: the states' start met a full bundle of free bodies */
} xpbd_run;

typedef enum pass {
    PASS_STATES_BEGIN,
    PASS_INTEGRATE_VELOCITIES,
    PASS_INTEGRATE_POSITIONS,
    PASS_FINISH,
    PASS_PREPARE,
    PASS_APPROACH,
    PASS_WARM_START,
    PASS_POSITIONS,
    PASS_JOINT_POSITIONS,
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

/* The reports' lanes beside bundle k (solver/contact_report.h): hit
 * tracking and the step's impulse totals, kept only while the world
 * reports them. */
static ts_contact_bounce_lanes *bounce_lanes(const xpbd_run *r, int32_t k)
{
    return (ts_contact_bounce_lanes *)r->scratch->bounces + k;
}
static ts_contact_total_lanes *total_lanes(const xpbd_run *r, int32_t k)
{
    return (ts_contact_total_lanes *)r->scratch->totals + k;
}

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
        TS_WIDE(ts_contact_prepare_bundle)(&r->prepare, r->bundles + k, r->hits ? bounce_lanes(r, k) : NULL,
                                           in_color->contacts, in_color->count, (k - color_begin[color]) * lanes,
                                           lanes);
        if (r->impulses) {
            memset(total_lanes(r, k), 0, sizeof(ts_contact_total_lanes));
        }
        if (TS_WIDE(ts_xpbd_contact_begin)(&r->kernels, r->bundles + k, r->lanes + k)) {
            r->deep[worker] = true;
        }
        if (TS_WIDE(ts_xpbd_contact_bounces)(r->bundles + k)) {
            r->bouncy[worker] = true;
        }
    }
}

static void run_bundle(const xpbd_run *r, int32_t k, pass kind)
{
    ts_contact_bundle *b = r->bundles + k;
    ts_xpbd_contact_lanes *x = r->lanes + k;
    switch (kind) {
    case PASS_APPROACH: TS_WIDE(ts_xpbd_contact_approach)(&r->kernels, b, x); break;
    case PASS_WARM_START: TS_WIDE(ts_xpbd_contact_warm_start)(&r->kernels, b, x); break;
    case PASS_POSITIONS: TS_WIDE(ts_xpbd_contact_solve_positions)(&r->kernels, b, x, r->substep); break;
    case PASS_VELOCITIES:
        TS_WIDE(ts_xpbd_contact_solve_velocities)(&r->kernels, b, x, r->hits ? bounce_lanes(r, k) : NULL,
                                                  r->impulses ? total_lanes(r, k) : NULL);
        break;
    case PASS_PUSH: TS_WIDE(ts_xpbd_contact_push)(&r->kernels, b, x); break;
    case PASS_STORE:
        TS_WIDE(ts_contact_store_impulses)(r->records, b);
        if (r->hits || r->impulses) {
            TS_WIDE(ts_contact_report_bundle)(r->records, b, r->hits ? bounce_lanes(r, k) : NULL,
                                              r->impulses ? total_lanes(r, k) : NULL, r->solver->report.entries,
                                              r->step);
        }
        break;
    default: break; /* PASS_JOINT_POSITIONS: joints only */
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
    case PASS_POSITIONS: ts_custom_xpbd_positions(lanes, ref.lanes, &p, false); break;
    case PASS_JOINT_POSITIONS: ts_custom_xpbd_positions(lanes, ref.lanes, &p, true); break;
    case PASS_VELOCITIES: ts_custom_xpbd_velocities(lanes, ref.lanes, &p); break;
    case PASS_STORE: ts_custom_store(lanes, ref.lanes, r->records, c->inv_h); break;
    default: break;
    }
}

/* Joint bundle k: its ball bundle (xpbd_ball.h), its custom lanes or XPBD's
 * general one. */
static void run_joint_bundle(const xpbd_run *r, int32_t k, pass kind)
{
    const ts_joint_scratch *s = &r->solver->joint_scratch;
    ts_joint_bundle_ref ref = s->refs[k];
    if (ref.type == TS_JOINT_CUSTOM) {
        run_custom_bundle(r, ref, kind);
        return;
    }
    if (ref.type == TS_JOINT_BALL) {
        ts_ball_bundle *ball = r->balls + ref.slot;
        switch (kind) {
        case PASS_PREPARE: TS_WIDE(ts_ball_prepare)(&r->ball_prepare, ball, s->sorted + ref.first, ref.lanes); break;
        case PASS_WARM_START: TS_WIDE(ts_xpbd_ball_warm_start)(&r->ball_kernels, ball, 1); break;
        case PASS_POSITIONS: TS_WIDE(ts_xpbd_ball_project)(&r->ball_kernels, ball, 1, false); break;
        case PASS_JOINT_POSITIONS: TS_WIDE(ts_xpbd_ball_project)(&r->ball_kernels, ball, 1, true); break;
        default: break; /* no velocity pass; the impulses stay in the bundle (ball_impulses_pending) */
        }
        return;
    }
    ts_xpbd_joint_bundle *b = r->joints + k;
    switch (kind) {
    case PASS_PREPARE: TS_WIDE(ts_xpbd_joint_prepare)(&r->joint_kernels, b, k); break;
    case PASS_WARM_START: TS_WIDE(ts_xpbd_joint_warm_start)(&r->joint_kernels, b); break;
    case PASS_POSITIONS: TS_WIDE(ts_xpbd_joint_solve_positions)(&r->joint_kernels, b, false); break;
    case PASS_JOINT_POSITIONS: TS_WIDE(ts_xpbd_joint_solve_positions)(&r->joint_kernels, b, true); break;
    case PASS_VELOCITIES: TS_WIDE(ts_xpbd_joint_solve_velocities)(&r->joint_kernels, b); break;
    case PASS_STORE: TS_WIDE(ts_xpbd_joint_store)(r->records, b, r->kernels.inv_h); break;
    default: break;
    }
}

/* Joint bundles [begin, end) of one colour, in a block of its stage,
 * runs of ball bundles a call each. */
static void run_joint_bundles(const xpbd_run *r, int32_t begin, int32_t end, pass kind)
{
    const ts_joint_bundle_ref *refs = r->solver->joint_scratch.refs;
    for (int32_t k = begin; k < end;) {
        ts_joint_bundle_ref ref = refs[k];
        bool run = ref.type == TS_JOINT_BALL &&
                   (kind == PASS_WARM_START || kind == PASS_POSITIONS || kind == PASS_JOINT_POSITIONS);
        if (!run) {
            run_joint_bundle(r, k, kind);
            k += 1;
            continue;
        }
        int32_t count = (ref.run_end < end ? ref.run_end : end) - k;
        if (kind == PASS_WARM_START) {
            TS_WIDE(ts_xpbd_ball_warm_start)(&r->ball_kernels, r->balls + ref.slot, count);
        } else {
            TS_WIDE(ts_xpbd_ball_project)(&r->ball_kernels, r->balls + ref.slot, count, kind == PASS_JOINT_POSITIONS);
        }
        k += count;
    }
}

static void run_block(void *context, int32_t block, int worker)
{
    const xpbd_stage *stage = context;
    xpbd_run *r = stage->r;
    ts_solver_scratch *scratch = r->scratch;
    ts_body_state *states = scratch->states;
    ts_body_store *store = &r->records->store;
    float h = r->kernels.h;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, stage->count + stage->joint_count, &begin, &end);
    if (end > stage->count) { /* the block's joint bundles */
        int32_t first = stage->joint_first + (begin > stage->count ? begin : stage->count) - stage->count;
        run_joint_bundles(r, first, stage->joint_first + end - stage->count, stage->kind);
        end = stage->count;
    }
    begin += stage->first;
    end += stage->first;
    int32_t bad = INT32_MAX;
    ts_free_bodies free = r->free_bodies ? TS_FREE_SKIP : TS_FREE_AS_OTHERS;
    switch (stage->kind) {
    case PASS_STATES_BEGIN:
        if (TS_WIDE(ts_states_begin)(states, store, begin, end, true)) {
            r->free_found[worker] = true; /* written only then: the workers' entries share a cache line */
        }
        break;
    case PASS_INTEGRATE_VELOCITIES: {
        ts_free_bodies first = r->free_bodies && r->substep == 0 ? TS_FREE_ALL_SUBSTEPS : free;
        bad = TS_WIDE(ts_integrate_velocities)(states, store, begin, end, r->gravity, h, first, r->substeps,
                                               r->solver->forces_pending, r->limit);
        break;
    }
    case PASS_INTEGRATE_POSITIONS:
        if (r->kernels.substep_start != NULL && begin < end) { /* the poses the push pass measures from */
            memcpy(scratch->substep_start + begin, states + begin, sizeof(ts_body_state) * (size_t)(end - begin));
        }
        bad = TS_WIDE(ts_integrate_positions)(states, store, begin, end, h, free, r->limit);
        break;
    case PASS_FINISH:
        bad = TS_WIDE(ts_states_finish_wide)(states, store, begin, end, r->solver->forces_pending, free, r->limit);
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
    if (bad < r->first_bad[worker]) { /* written only then: the workers' entries share a cache line */
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
    /* one worker: the whole stage is one block (solver.c) */
    int32_t block_size = r->parallel->worker_count > 1 ? ts_block_size(items, min_block) : items;
    xpbd_stage stage = {r, kind, first, count, joint_first, joint_count, block_size};
    ts_parallel_for(r->parallel, run_block, &stage, ts_block_count(items, stage.block_size));
}

static void run_bodies(xpbd_run *r, pass kind) { run_stage(r, kind, 0, r->awake, 0, 0, TS_BODY_BLOCK); }

/* A colour this small is one or two blocks: splitting it gains less than
 * the stage's synchronisation costs (~4 us a stage on two cores: the soft
 * step's measure, solver.c). */
#define TS_SMALL_COLOR_ITEMS (2 * TS_BUNDLE_BLOCK)

/* The contact and joint bundles of a colour that a pass runs over (a pass
 * over joints alone skips the contacts). */
static void color_items(const xpbd_run *r, pass kind, int color, int32_t *contacts, int32_t *joints)
{
    const int32_t *begin = r->scratch->color_begin;
    *contacts = kind == PASS_JOINT_POSITIONS ? 0 : begin[color + 1] - begin[color];
    *joints = r->joint_begin[color + 1] - r->joint_begin[color];
}

typedef struct color_run {
    xpbd_run *r;
    pass kind;
    int first, end; /* colours [first, end) */
} color_run;

/* Colours [first, end) one after the other on one worker: the order is the
 * colours' order, as when each is a stage, so the result is the same. */
static void run_color_run(void *context, int32_t block, int worker)
{
    (void)block;
    const color_run *run = context;
    xpbd_run *r = run->r;
    for (int color = run->first; color < run->end; ++color) {
        int32_t contacts, joints;
        color_items(r, run->kind, color, &contacts, &joints);
        if (contacts + joints > 0) {
            int32_t first = r->scratch->color_begin[color], joint_first = r->joint_begin[color];
            xpbd_stage stage = {r, run->kind, first, contacts, joint_first, joints, contacts + joints};
            run_block(&stage, 0, worker);
        }
    }
}

/* Colours in order, each a stage over its contact and joint bundles, but a
 * run of small colours is one stage of one block (a pile's last colours
 * hold a few bundles each), as in the soft step (solver.c's run_colors);
 * then the overflow bundles on worker 0, in order (they may share bodies).
 * Prepare and the impulse store go by colour too, though their bundles are
 * independent: a stage's blocks go to the same workers in every pass, so a
 * bundle and its bodies' states stay in one core's cache from prepare to
 * store; one stage over all bundles split them otherwise, and on two cores
 * that pass a cache line slowly the store's scattered writes into the
 * contact store cost several times more on two workers than on one. */
static void run_colors(xpbd_run *r, pass kind)
{
    const int32_t *begin = r->scratch->color_begin;
    const int32_t *joint_begin = r->joint_begin;
    bool joints_only = kind == PASS_JOINT_POSITIONS;
    for (int color = 0; color < TS_GRAPH_COLOR_COUNT;) {
        int end = color, filled = 0; /* small colours from here; how many hold bundles */
        int32_t contacts, joints;
        for (; end < TS_GRAPH_COLOR_COUNT; ++end) {
            color_items(r, kind, end, &contacts, &joints);
            if (contacts + joints > TS_SMALL_COLOR_ITEMS) {
                break;
            }
            filled += contacts + joints > 0;
        }
        if (filled >= 2) {
            color_run run = {r, kind, color, end};
            ts_parallel_for(r->parallel, run_color_run, &run, 1);
            color = end;
            continue;
        }
        color_items(r, kind, color, &contacts, &joints);
        run_stage(r, kind, begin[color], contacts, joint_begin[color], joints, TS_BUNDLE_BLOCK);
        color += 1;
    }
    if (kind == PASS_PREPARE) {
        if (begin[TS_OVERFLOW_COLOR] < begin[TS_OVERFLOW_COLOR + 1]) {
            prepare_bundles(r, begin[TS_OVERFLOW_COLOR], begin[TS_OVERFLOW_COLOR + 1], 0);
        }
    } else {
        for (int32_t k = begin[TS_OVERFLOW_COLOR]; !joints_only && k < begin[TS_OVERFLOW_COLOR + 1]; ++k) {
            run_bundle(r, k, kind);
        }
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
    run_colors(r, PASS_PREPARE);
    bool deep = false, bouncy = false;
    for (int w = 0; w < r->parallel->worker_count; ++w) {
        deep = deep || r->deep[w];
        bouncy = bouncy || r->bouncy[w];
        r->free_bodies = r->free_bodies || r->free_found[w];
    }
    r->kernels.substep_start = deep ? r->scratch->substep_start : NULL;
    bool warm = r->kernels.warm_scale != 0.0f || r->joint_kernels.warm_scale != 0.0f;
    lap(&mark, &p->prepare);
    for (int sub = 0; sub < r->substeps; ++sub) {
        r->substep = sub;
        run_bodies(r, PASS_INTEGRATE_VELOCITIES);
        if (bouncy || r->hits) { /* every contact bundle, overflow included: each writes only its own lanes */
            run_stage(r, PASS_APPROACH, 0, r->scratch->color_begin[TS_OVERFLOW_COLOR + 1], 0, 0, TS_BUNDLE_BLOCK);
        }
        lap(&mark, &p->integrate_velocities);
        if (warm) {
            run_colors(r, PASS_WARM_START);
            lap(&mark, &p->warm_start);
        }
        run_bodies(r, PASS_INTEGRATE_POSITIONS);
        lap(&mark, &p->integrate_positions);
        run_colors(r, PASS_POSITIONS);
        if (r->joint_begin[TS_OVERFLOW_COLOR + 1] > 0) {
            run_colors(r, PASS_JOINT_POSITIONS);
        }
        lap(&mark, &p->solve);
        run_colors(r, PASS_VELOCITIES);
        if (deep) { /* profiled with the velocity pass */
            for (int push = 0; push < TS_XPBD_PUSH_PASSES; ++push) {
                run_colors(r, PASS_PUSH);
            }
        }
        lap(&mark, &p->relax);
    }
    run_colors(r, PASS_STORE);
    lap(&mark, &p->store_impulses);
    run_bodies(r, PASS_FINISH);
    lap(&mark, &p->finalize);
}

/* The soft step's scratch (states, bundles, colour ranges) plus XPBD's:
 * the substep's start states (reserved in every step, so that a deep
 * overlap appearing later allocates nothing), the lanes beside each contact
 * bundle and the joint bundles. */
static bool reserve_scratch(ts_solver *solver, const ts_solve_input *in, int32_t awake)
{
    const ts_allocator *allocator = &in->records->allocator;
    if (!TS_WIDE(ts_solver_reserve_scratch)(&solver->scratch, allocator, false, in->graph, awake) ||
        !TS_WIDE(ts_xpbd_joint_begin)(solver, in->records, in->graph)) {
        return false;
    }
    ts_solver_scratch *s = &solver->scratch;
    int32_t bundles = s->color_begin[TS_OVERFLOW_COLOR + 1];
    bool reports = solver->report.impulses || solver->report.hits;
    return ts_array_reserve(allocator, (void **)&s->substep_start, &s->substep_start_capacity, awake + 1,
                            sizeof(ts_body_state)) &&
           ts_array_reserve(allocator, &s->xpbd_lanes, &s->xpbd_lane_bytes,
                            bundles * (int32_t)sizeof(ts_xpbd_contact_lanes), 1) &&
           (!reports || ts_contact_report_reserve(&solver->report, in->records, &s->totals, &s->total_bytes,
                                                  bundles * (int32_t)sizeof(ts_contact_total_lanes)));
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
    scratch->substep_start[awake] = scratch->states[awake];

    float h = dt / (float)solver->substeps;
    ts_vec3 g = solver->gravity;
    float bounce_floor = 2.0f * sqrtf(g.x * g.x + g.y * g.y + g.z * g.z) * h;
    float warm_scale = solver->enable_warm_starting ? TS_XPBD_WARM_SCALE : 0.0f;
    float joint_warm_scale = solver->enable_warm_starting ? TS_XPBD_JOINT_WARM_SCALE : 0.0f;
    ts_softness unused = {0.0f, 1.0f, 0.0f}; /* the soft step's coefficients: XPBD does not read them */
    xpbd_run r = {
        .solver = solver,
        .records = records,
        .graph = in->graph,
        .parallel = in->parallel,
        .profile = in->profile,
        .finish = in->finish,
        .finish_context = in->finish_context,
        .scratch = scratch,
        .bundles = scratch->bundles,
        .lanes = scratch->xpbd_lanes,
        .prepare = {records, awake, unused, unused, solver->enable_warm_starting, .track_approach = solver->report.hits},
        .kernels = {.states = scratch->states,
                    .substep_start = NULL, /* set after the prepare pass: deep overlap or not */
                    .h = h,
                    .inv_h = 1.0f / h,
                    .push_speed = solver->contact_push_speed,
                    .push_step = solver->contact_push_speed * h,
                    .restitution_threshold = solver->restitution_threshold > bounce_floor
                                                 ? solver->restitution_threshold
                                                 : bounce_floor,
                    .warm_scale = warm_scale,
                    .substeps = solver->substeps,
                    .switched = solver->switched},
        .joints = scratch->xpbd_joint_bundles,
        .joint_begin = solver->joint_scratch.color_begin,
        .joint_kernels = {scratch->states, records, &solver->joint_scratch, awake, h, 1.0f / h, joint_warm_scale},
        .balls = TS_WIDE(ts_ball_bundles)(&solver->joint_scratch),
        /* the pose at the step's start from the bodies' every step (xpbd_ball.h) */
        .ball_prepare = {records, &solver->joint_scratch, awake, h, solver->enable_warm_starting,
                         TS_WIDE(ts_joint_take_ball_fill)(&solver->joint_scratch, records, in->step), true,
                         scratch->states},
        .ball_kernels = {scratch->states, &solver->joint_scratch, h, 1.0f / h, joint_warm_scale},
        .gravity = g,
        .limit = {solver->max_linear_speed, solver->max_rotation / h},
        .substeps = solver->substeps,
        .awake = awake,
        .step = in->step,
        .hits = solver->report.hits,
        .impulses = solver->report.impulses,
    };
    /* the ball bundles' impulses are the newest from here on (joint_scratch.h;
     * after ts_joint_take_ball_fill, whose flush writes the last ones out) */
    solver->joint_scratch.ball_impulses_pending = true;
    solver->joint_scratch.ball_inv_h = 1.0f / h;
    int workers = in->parallel->worker_count;
    for (int w = 0; w < workers; ++w) {
        r.first_bad[w] = INT32_MAX;
        r.deep[w] = false;
        r.bouncy[w] = false;
        r.free_found[w] = false;
    }
    run_xpbd(&r);
    solver->forces_pending = false; /* the write-back cleared them */
    solver->switched = false;
    solver->dropped_joint = ts_custom_take_dropped(solver->joint_scratch.custom_lanes,
                                                   solver->joint_scratch.custom_count, records);
    int32_t bad = INT32_MAX;
    for (int w = 0; w < workers; ++w) {
        bad = min_slot(bad, r.first_bad[w]);
    }
    if (bad != INT32_MAX) {
        solver->joint_scratch.ball_step = -1; /* a held body's pose is not the one its ball bundles kept */
        *held = records->store.table.id_of_slot[bad];
        return TS_ERROR_NOT_FINITE;
    }
    return TS_OK;
}

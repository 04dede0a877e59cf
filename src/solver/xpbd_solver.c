/* The XPBD solver of a step (see xpbd_solver.h), compiled once per SIMD
 * width TS_W. It prepares the body states and the contact bundles exactly as
 * the soft step does (contact_prepare.c), then runs, per substep,
 *
 *   predict      v += h a, then dp += h v, dq by w (the soft step's
 *                integrators), and keep the predicted states;
 *   positions    one pass over the contacts, colour by colour
 *                (xpbd_contact.c): rigid non-penetration with a capped
 *                push-out, static friction as a position constraint;
 *   derive       v, w from the correction of the predicted pose;
 *   velocities   one pass over the contacts: restitution or rest, dynamic
 *                friction and twist;
 *
 * and after the substeps stores the last substep's impulses (reported by
 * ts_body_get_contacts; XPBD does not warm start) and writes the bodies back.
 *
 * Beyond the paper, and why:
 * - Poses are deltas since the step's start (dp, dq) and separations come
 *   from anchors fixed at the step's start: no world position enters a
 *   constraint or a derived velocity, so nothing loses precision far from
 *   the origin (Solver2D found XPBD unstable there; Catto's fix).
 * - Overlap the step started with is pushed out at contact_push_speed at
 *   most (a growing allowance), so a deep overlap does not teleport bodies;
 *   and the velocity pass takes back the separating speed a push-out made
 *   (the normal impulse of the substep stays >= 0), so pushed boxes do not
 *   fly off.
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
 * Colours run in order, the bundles of each split across threads (a barrier
 * between colours); the overflow bundles run on one thread after them. */
#include "xpbd_solver.h"

#include "../collide/broadphase.h"
#include "../error.h"
#include "../islands/sleep.h"
#include "../math3.h"
#include "../soa/array.h"
#include "../timer.h"
#include "../world.h"
#include "contact_prepare.h"
#include "contact_solver.h"
#include "integrate.h"
#include "solver.h"
#include "xpbd_contact.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many awake bodies the solve runs on the calling thread. */
#define TS_PARALLEL_MIN_BODIES 1024
#define TS_BODY_BLOCK 256

/* Sweeps over a manifold's points in the position pass (see
 * xpbd_contact.c): one leaves the first point's correction tilting the box,
 * and a 15-box stack sways 25 cm at 4 substeps; two hold it within 1 cm. */
#define TS_XPBD_POINT_SWEEPS 2

typedef struct xpbd_run {
    ts_world *world;
    ts_solver_scratch *scratch;
    ts_contact_bundle *bundles;
    ts_xpbd_contact_lanes *lanes;
    ts_contact_prepare_context prepare;
    ts_xpbd_context kernels;
    ts_vec3 gravity;
    int substeps;
    int32_t awake;
    int32_t body_blocks;
    int32_t *first_bad; /* per thread */
    ts_step_profile *profile;
} xpbd_run;

typedef enum pass { PASS_POSITIONS, PASS_VELOCITIES } pass;

static inline int32_t min_slot(int32_t a, int32_t b) { return a < b ? a : b; }

static int thread_index(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static void block_range(int32_t block, int32_t count, int32_t *begin, int32_t *end)
{
    *begin = block * TS_BODY_BLOCK;
    *end = *begin + TS_BODY_BLOCK < count ? *begin + TS_BODY_BLOCK : count;
}

static void run_bundle(const xpbd_run *r, int32_t k, pass kind, int substep)
{
    if (kind == PASS_POSITIONS) {
        TS_WIDE(ts_xpbd_contact_solve_positions)(&r->kernels, r->bundles + k, r->lanes + k, substep);
    } else {
        TS_WIDE(ts_xpbd_contact_solve_velocities)(&r->kernels, r->bundles + k, r->lanes + k);
    }
}

static void run_colors(const xpbd_run *r, pass kind, int substep)
{
    const int32_t *begin = r->scratch->color_begin;
    for (int color = 0; color < TS_GRAPH_COLOR_COUNT; ++color) {
        if (begin[color + 1] == begin[color]) {
            continue;
        }
#pragma omp for schedule(static)
        for (int32_t k = begin[color]; k < begin[color + 1]; ++k) {
            run_bundle(r, k, kind, substep);
        }
    }
    if (begin[TS_OVERFLOW_COLOR + 1] > begin[TS_OVERFLOW_COLOR]) {
#pragma omp single
        for (int32_t k = begin[TS_OVERFLOW_COLOR]; k < begin[TS_OVERFLOW_COLOR + 1]; ++k) {
            run_bundle(r, k, kind, substep);
        }
    }
}

static void lap(bool timed, double *mark, double *stage)
{
    if (timed) {
        double now = ts_now_ms();
        *stage += now - *mark;
        *mark = now;
    }
}

static void run_xpbd(const xpbd_run *r, bool timed)
{
    ts_step_profile *p = r->profile;
    double mark = timed ? ts_now_ms() : 0.0;
    int32_t bad = INT32_MAX;
    ts_solver_scratch *scratch = r->scratch;
    ts_body_store *store = &r->world->store;
    float h = r->kernels.h;

#pragma omp for schedule(static)
    for (int32_t block = 0; block < r->body_blocks; ++block) {
        int32_t begin, end;
        block_range(block, r->awake, &begin, &end);
        TS_WIDE(ts_states_begin)(scratch->states, store, begin, end);
    }
    for (int color = 0; color <= TS_OVERFLOW_COLOR; ++color) {
        const ts_graph_color *gc = r->world->graph.colors + color;
        int32_t first = scratch->color_begin[color];
        int lanes = color == TS_OVERFLOW_COLOR ? 1 : TS_W;
#pragma omp for schedule(static) nowait
        for (int32_t k = first; k < scratch->color_begin[color + 1]; ++k) {
            TS_WIDE(ts_contact_prepare_bundle)(&r->prepare, r->bundles + k, gc, (k - first) * lanes, lanes);
            TS_WIDE(ts_xpbd_contact_begin)(&r->kernels, r->world, r->bundles + k, r->lanes + k);
        }
    }
#pragma omp barrier
    lap(timed, &mark, &p->prepare);

    for (int sub = 0; sub < r->substeps; ++sub) {
#pragma omp for schedule(static)
        for (int32_t block = 0; block < r->body_blocks; ++block) {
            int32_t begin, end;
            block_range(block, r->awake, &begin, &end);
            bad = min_slot(bad, TS_WIDE(ts_integrate_velocities)(scratch->states, store, begin, end, r->gravity, h));
            bad = min_slot(bad, TS_WIDE(ts_integrate_positions)(scratch->states, store, begin, end, h));
            TS_WIDE(ts_xpbd_keep_prediction)(scratch->predicted, scratch->states, begin, end);
        }
        lap(timed, &mark, &p->integrate_positions);
        run_colors(r, PASS_POSITIONS, sub);
        lap(timed, &mark, &p->solve);
#pragma omp for schedule(static)
        for (int32_t block = 0; block < r->body_blocks; ++block) {
            int32_t begin, end;
            block_range(block, r->awake, &begin, &end);
            TS_WIDE(ts_xpbd_derive_velocities)(scratch->states, scratch->predicted, begin, end, h);
        }
        lap(timed, &mark, &p->integrate_velocities);
        run_colors(r, PASS_VELOCITIES, sub);
        lap(timed, &mark, &p->relax);
    }
#pragma omp for schedule(static)
    for (int32_t k = 0; k < scratch->color_begin[TS_OVERFLOW_COLOR + 1]; ++k) {
        TS_WIDE(ts_xpbd_contact_store)(r->world, r->bundles + k, r->lanes + k);
    }
    lap(timed, &mark, &p->store_impulses);
#pragma omp for schedule(static)
    for (int32_t block = 0; block < r->body_blocks; ++block) {
        int32_t begin, end;
        block_range(block, r->awake, &begin, &end);
        ts_states_finish(scratch->states, store, begin, end);
        ts_sleep_update_timers(r->world, begin, end);
        ts_broadphase_compute_bounds(r->world, begin, end);
    }
    lap(timed, &mark, &p->finalize);
    r->first_bad[thread_index()] = bad;
}

/* The soft step's scratch (states, bundles, colour ranges) plus XPBD's:
 * the predicted states and the lanes beside each bundle. */
static bool reserve_scratch(ts_world *world, int32_t awake)
{
    ts_solver_scratch *s = &world->solver_scratch;
    int32_t bundles = 0;
    for (int color = 0; color < TS_OVERFLOW_COLOR; ++color) {
        s->color_begin[color] = bundles;
        bundles += (world->graph.colors[color].count + TS_W - 1) / TS_W;
    }
    s->color_begin[TS_OVERFLOW_COLOR] = bundles;
    bundles += world->graph.colors[TS_OVERFLOW_COLOR].count; /* one lane each */
    s->color_begin[TS_OVERFLOW_COLOR + 1] = bundles;
    return ts_array_reserve(&world->allocator, (void **)&s->states, &s->state_capacity, awake + 1,
                            sizeof(ts_body_state)) &&
           ts_array_reserve(&world->allocator, (void **)&s->predicted, &s->predicted_capacity, awake + 1,
                            sizeof(ts_body_state)) &&
           ts_array_reserve(&world->allocator, &s->bundles, &s->bundle_bytes,
                            bundles * (int32_t)sizeof(ts_contact_bundle), 1) &&
           ts_array_reserve(&world->allocator, &s->xpbd_lanes, &s->xpbd_lane_bytes,
                            bundles * (int32_t)sizeof(ts_xpbd_contact_lanes), 1);
}

ts_result TS_WIDE(ts_solve_xpbd)(ts_world *world, float dt, int32_t *held)
{
    *held = -1;
    int32_t awake = world->store.table.end[TS_RANGE_AWAKE];
    if (!reserve_scratch(world, awake)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (solver scratch)");
    }
    ts_solver_scratch *scratch = &world->solver_scratch;
    scratch->states[awake] = ts_body_state_at_rest(ts_v3(0, 0, 0), ts_v3(0, 0, 0)); /* the dummy */
    scratch->predicted[awake] = scratch->states[awake];

    float h = dt / (float)world->substeps;
    ts_vec3 g = world->gravity;
    float bounce_floor = 2.0f * sqrtf(g.x * g.x + g.y * g.y + g.z * g.z) * h;
    ts_softness unused = {0.0f, 1.0f, 0.0f}; /* the soft step's coefficients: XPBD does not read them */
    int32_t first_bad[TS_MAX_THREADS];
    xpbd_run r = {
        .world = world,
        .scratch = scratch,
        .bundles = scratch->bundles,
        .lanes = scratch->xpbd_lanes,
        .prepare = {world, awake, unused, unused, world->enable_warm_starting},
        .kernels = {scratch->states, h, 1.0f / h, world->contact_push_speed,
                    world->restitution_threshold > bounce_floor ? world->restitution_threshold : bounce_floor,
                    0.0f, 0.0f, TS_XPBD_POINT_SWEEPS},
        .gravity = g,
        .substeps = world->substeps,
        .awake = awake,
        .body_blocks = (awake + TS_BODY_BLOCK - 1) / TS_BODY_BLOCK,
        .first_bad = first_bad,
        .profile = &world->profile,
    };
    int threads = awake >= TS_PARALLEL_MIN_BODIES ? world->thread_count : 1;
    for (int t = 0; t < threads; ++t) {
        first_bad[t] = INT32_MAX;
    }
#ifdef _OPENMP
    if (threads > 1) {
#pragma omp parallel num_threads(threads)
        run_xpbd(&r, omp_get_thread_num() == 0);
    } else {
        run_xpbd(&r, true);
    }
#else
    run_xpbd(&r, true);
#endif
    int32_t bad = INT32_MAX;
    for (int t = 0; t < threads; ++t) {
        bad = min_slot(bad, first_bad[t]);
    }
    if (bad != INT32_MAX) {
        *held = world->store.table.id_of_slot[bad];
        return TS_ERROR_NOT_FINITE;
    }
    return TS_OK;
}

/* The soft-step solver of a step (see solver.h), compiled once per SIMD
 * width TS_W: prepares the body states and one constraint bundle per TS_W
 * touching contacts of a graph colour,
 * then runs, per substep,
 *
 *   integrate velocities, warm start, solve (soft bias), integrate positions,
 *   relax (no bias)
 *
 * and after the substeps restitution and the impulse store; finally writes
 * the bodies back and updates their shape bounds. Colours run in order; the
 * bundles of a colour are split across threads (a barrier between colours);
 * the overflow bundles run on one thread after the colours. */
#include "solver.h"

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
#include "joint_prepare.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many awake bodies the solve runs on the calling thread. */
#define TS_PARALLEL_MIN_BODIES 1024
#define TS_BODY_BLOCK 256


/* ---- the parallel region ---- */

typedef struct solve_context {
    ts_world *world;
    ts_solver_scratch *scratch;
    ts_contact_prepare_context prepare;
    ts_contact_solver_context kernels;
    ts_joint_prepare_context joint_prepare;
    ts_joint_solver_context joint_kernels;
    ts_vec3 gravity;
    float h;
    int substeps;
    int32_t awake;
    int32_t body_blocks;
    int32_t *first_bad; /* per thread */
    ts_step_profile *profile;
} solve_context;

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

typedef enum pass { PASS_WARM_START, PASS_SOLVE, PASS_RELAX, PASS_RESTITUTION, PASS_STORE } pass;

/* Most contacts do not bounce; their bundles skip the restitution pass. */
static bool any_restitution(const ts_contact_bundle *b)
{
    for (int l = 0; l < TS_W; ++l) {
        if (b->restitution[l] > 0.0f) {
            return true;
        }
    }
    return false;
}

static void run_bundle(solve_context *c, ts_contact_bundle *b, pass kind)
{
    switch (kind) {
    case PASS_WARM_START: TS_WIDE(ts_contact_warm_start)(&c->kernels, b); break;
    case PASS_SOLVE: TS_WIDE(ts_contact_solve)(&c->kernels, b, true); break;
    case PASS_RELAX: TS_WIDE(ts_contact_solve)(&c->kernels, b, false); break;
    case PASS_RESTITUTION:
        if (any_restitution(b)) {
            TS_WIDE(ts_contact_restitution)(&c->kernels, b);
        }
        break;
    case PASS_STORE: TS_WIDE(ts_contact_store_impulses)(c->world, b); break;
    }
}

/* A colour's joints touch other bodies than its contacts: they run after
 * them in the same colour (restitution and the store are not joint passes). */
static void run_joint_bundle(solve_context *c, int32_t k, pass kind)
{
    ts_joint_bundle *b = (ts_joint_bundle *)c->world->joint_scratch.bundles + k;
    switch (kind) {
    case PASS_WARM_START: TS_WIDE(ts_joint_warm_start)(&c->joint_kernels, b); break;
    case PASS_SOLVE: TS_WIDE(ts_joint_solve)(&c->joint_kernels, b, true); break;
    case PASS_RELAX: TS_WIDE(ts_joint_solve)(&c->joint_kernels, b, false); break;
    default: break;
    }
}

/* Colours in order, the bundles of each (contacts, then joints) split across
 * the team; then the overflow bundles on one thread, in order. */
static void run_colors(solve_context *c, pass kind)
{
    const int32_t *begin = c->scratch->color_begin;
    const int32_t *joint_begin = c->world->joint_scratch.color_begin;
    for (int color = 0; color < TS_GRAPH_COLOR_COUNT; ++color) {
        if (begin[color + 1] == begin[color] && joint_begin[color + 1] == joint_begin[color]) {
            continue;
        }
#pragma omp for schedule(static) nowait
        for (int32_t k = begin[color]; k < begin[color + 1]; ++k) {
            run_bundle(c, (ts_contact_bundle *)c->scratch->bundles + k, kind);
        }
#pragma omp for schedule(static)
        for (int32_t k = joint_begin[color]; k < joint_begin[color + 1]; ++k) {
            run_joint_bundle(c, k, kind);
        }
    }
    if (begin[TS_OVERFLOW_COLOR + 1] > begin[TS_OVERFLOW_COLOR] ||
        joint_begin[TS_OVERFLOW_COLOR + 1] > joint_begin[TS_OVERFLOW_COLOR]) {
#pragma omp single
        {
            for (int32_t k = begin[TS_OVERFLOW_COLOR]; k < begin[TS_OVERFLOW_COLOR + 1]; ++k) {
                run_bundle(c, (ts_contact_bundle *)c->scratch->bundles + k, kind);
            }
            for (int32_t k = joint_begin[TS_OVERFLOW_COLOR]; k < joint_begin[TS_OVERFLOW_COLOR + 1]; ++k) {
                run_joint_bundle(c, k, kind);
            }
        }
    }
}

/* Thread 0 charges the time since the last mark to a stage. */
static void lap(bool timed, double *mark, double *stage)
{
    if (timed) {
        double now = ts_now_ms();
        *stage += now - *mark;
        *mark = now;
    }
}

static void run_solver(solve_context *c, bool timed)
{
    ts_step_profile *p = c->profile;
    double mark = timed ? ts_now_ms() : 0.0;
    int32_t bad = INT32_MAX;
    ts_solver_scratch *scratch = c->scratch;
    ts_contact_bundle *bundles = scratch->bundles;

#pragma omp for schedule(static)
    for (int32_t block = 0; block < c->body_blocks; ++block) {
        int32_t begin, end;
        block_range(block, c->awake, &begin, &end);
        TS_WIDE(ts_states_begin)(scratch->states, &c->world->store, begin, end);
    }
    for (int color = 0; color <= TS_OVERFLOW_COLOR; ++color) {
        const ts_graph_color *gc = c->world->graph.colors + color;
        int32_t first = scratch->color_begin[color];
        int lanes = color == TS_OVERFLOW_COLOR ? 1 : TS_W;
#pragma omp for schedule(static) nowait
        for (int32_t k = first; k < scratch->color_begin[color + 1]; ++k) {
            TS_WIDE(ts_contact_prepare_bundle)(&c->prepare, bundles + k, gc, (k - first) * lanes, lanes);
        }
    }
#pragma omp for schedule(static) nowait
    for (int32_t k = 0; k < c->world->joint_scratch.color_begin[TS_OVERFLOW_COLOR + 1]; ++k) {
        TS_WIDE(ts_joint_prepare_bundle)(&c->joint_prepare, k);
    }
#pragma omp barrier
    lap(timed, &mark, &p->prepare);

    for (int sub = 0; sub < c->substeps; ++sub) {
#pragma omp for schedule(static)
        for (int32_t block = 0; block < c->body_blocks; ++block) {
            int32_t begin, end;
            block_range(block, c->awake, &begin, &end);
            bad = min_slot(bad, TS_WIDE(ts_integrate_velocities)(scratch->states, &c->world->store, begin, end, c->gravity, c->h));
        }
        lap(timed, &mark, &p->integrate_velocities);
        run_colors(c, PASS_WARM_START);
        lap(timed, &mark, &p->warm_start);
        run_colors(c, PASS_SOLVE);
        lap(timed, &mark, &p->solve);
#pragma omp for schedule(static)
        for (int32_t block = 0; block < c->body_blocks; ++block) {
            int32_t begin, end;
            block_range(block, c->awake, &begin, &end);
            bad = min_slot(bad, TS_WIDE(ts_integrate_positions)(scratch->states, &c->world->store, begin, end, c->h));
        }
        lap(timed, &mark, &p->integrate_positions);
        run_colors(c, PASS_RELAX);
        lap(timed, &mark, &p->relax);
    }
    run_colors(c, PASS_RESTITUTION);
    lap(timed, &mark, &p->restitution);
#pragma omp for schedule(static)
    for (int32_t k = 0; k < scratch->color_begin[TS_OVERFLOW_COLOR + 1]; ++k) {
        TS_WIDE(ts_contact_store_impulses)(c->world, bundles + k);
    }
#pragma omp for schedule(static)
    for (int32_t k = 0; k < c->world->joint_scratch.color_begin[TS_OVERFLOW_COLOR + 1]; ++k) {
        TS_WIDE(ts_joint_store_impulses)(c->world, k, c->joint_kernels.inv_h);
    }
    lap(timed, &mark, &p->store_impulses);
#pragma omp for schedule(static)
    for (int32_t block = 0; block < c->body_blocks; ++block) {
        int32_t begin, end;
        block_range(block, c->awake, &begin, &end);
        ts_states_finish(scratch->states, &c->world->store, begin, end);
        ts_sleep_update_timers(c->world, begin, end);
        ts_broadphase_compute_bounds(c->world, begin, end);
    }
    lap(timed, &mark, &p->finalize);
    c->first_bad[thread_index()] = bad;
}

/* ---- the entry ---- */

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
           ts_array_reserve(&world->allocator, &s->bundles, &s->bundle_bytes,
                            bundles * (int32_t)sizeof(ts_contact_bundle), 1);
}

ts_result TS_WIDE(ts_solve)(ts_world *world, float dt, int32_t *held)
{
    *held = -1;
    int32_t awake = world->store.table.end[TS_RANGE_AWAKE];
    if (!reserve_scratch(world, awake) || !TS_WIDE(ts_joint_solver_begin)(world)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (solver scratch)");
    }
    ts_solver_scratch *scratch = &world->solver_scratch;
    scratch->states[awake] = ts_body_state_at_rest(ts_v3(0, 0, 0), ts_v3(0, 0, 0)); /* the dummy */

    float h = dt / (float)world->substeps;
    /* The contact spring stays well below the substep rate. */
    float hertz = world->contact_hertz < 0.25f / h ? world->contact_hertz : 0.25f / h;
    float joint_hertz = world->joint_hertz < 0.25f / h ? world->joint_hertz : 0.25f / h;
    ts_softness joint_soft = ts_make_softness(joint_hertz, world->joint_damping_ratio, h);
    int32_t first_bad[TS_MAX_THREADS];
    solve_context c = {
        .world = world,
        .scratch = scratch,
        .prepare = {world, awake, ts_make_softness(hertz, world->contact_damping_ratio, h),
                    ts_make_softness(2.0f * hertz, world->contact_damping_ratio, h), world->enable_warm_starting},
        .kernels = {scratch->states, 1.0f / h, world->contact_push_speed, world->restitution_threshold},
        .joint_prepare = {world, awake, h, world->enable_warm_starting},
        .joint_kernels = {scratch->states, 1.0f / h, joint_soft.bias_rate, joint_soft.mass_scale,
                          joint_soft.impulse_scale},
        .gravity = world->gravity,
        .h = h,
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
        /* The team may come out smaller than asked; unused entries stay INT32_MAX. */
#pragma omp parallel num_threads(threads)
        run_solver(&c, omp_get_thread_num() == 0);
    } else {
        run_solver(&c, true);
    }
#else
    run_solver(&c, true);
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

/* The stepping pipeline: the stages of one ts_world_step, in order.
 *
 *   1. update pairs   (serial)   moved shapes find new pairs; contacts made in key order
 *   2. narrowphase    (parallel) every contact's manifold, points matched by feature id
 *                     (serial)   touch events in slot order; parted contacts destroyed
 *   3. substeps       (parallel) integrate velocities, integrate positions
 *                                (the contact solver's stages go in between)
 *   4. finalize       (parallel) clear forces, shape bounds
 *                     (serial)   move the proxies that left their fat bounds
 *   5. publish the step's events, sorted
 *
 * Parallel stages are work-shared loops over fixed blocks of slots inside an
 * OpenMP region; each block writes only its own slots, so the result does not
 * depend on the thread count. Thread 0 reads the clock at the barriers to
 * fill the step profile. (One region per step is the threads issue.) */
#include "step.h"

#include "../collide/broadphase.h"
#include "../collide/contact.h"
#include "../error.h"
#include "../timer.h"
#include "integrate.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this much work a stage runs on the calling thread: waking the team
 * costs more than the work. */
#define TS_PARALLEL_MIN_BODIES 4096
#define TS_PARALLEL_MIN_CONTACTS 1024

/* Slots per work block: a multiple of every SIMD width and large enough to
 * amortise scheduling. */
#define TS_BODY_BLOCK 256
#define TS_CONTACT_BLOCK 64

typedef struct step_context {
    ts_world *world;
    ts_body_store *store;
    ts_vec3 gravity;
    float h;
    int substeps;
    int32_t body_count;
    int32_t block_count;
    ts_step_profile *profile;
    int32_t *first_bad; /* per thread: first slot held at a finite state */
} step_context;

static inline int32_t min_slot(int32_t a, int32_t b) { return a < b ? a : b; }

static int thread_index(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static void block_range(int32_t block, int32_t size, int32_t count, int32_t *begin, int32_t *end)
{
    *begin = block * size;
    *end = *begin + size < count ? *begin + size : count;
}

/* ---- narrowphase ---- */

static void run_narrowphase(ts_world *world, int32_t count)
{
    int32_t blocks = (count + TS_CONTACT_BLOCK - 1) / TS_CONTACT_BLOCK;
#pragma omp for schedule(static)
    for (int32_t block = 0; block < blocks; ++block) {
        int32_t begin, end;
        block_range(block, TS_CONTACT_BLOCK, count, &begin, &end);
        ts_contacts_update(world, begin, end);
    }
}

static void narrowphase(ts_world *world)
{
    int32_t count = world->contact_store.table.end[TS_CONTACT_RANGE_AWAKE];
#ifdef _OPENMP
    int threads = count >= TS_PARALLEL_MIN_CONTACTS ? world->thread_count : 1;
    if (threads > 1) {
#pragma omp parallel num_threads(threads)
        run_narrowphase(world, count);
        return;
    }
#endif
    run_narrowphase(world, count);
}

/* ---- substeps and finalize ---- */

/* Run by every thread of the team (or by the caller alone). */
static void run_substeps(step_context *c, bool timed)
{
    double velocities = 0.0;
    double positions = 0.0;
    int32_t bad = INT32_MAX;
    double mark = timed ? ts_now_ms() : 0.0;
    for (int sub = 0; sub < c->substeps; ++sub) {
#pragma omp for schedule(static)
        for (int32_t block = 0; block < c->block_count; ++block) {
            int32_t begin, end;
            block_range(block, TS_BODY_BLOCK, c->body_count, &begin, &end);
            bad = min_slot(bad, ts_integrate_velocities(c->store, begin, end, c->gravity, c->h));
        }
        if (timed) {
            double now = ts_now_ms();
            velocities += now - mark;
            mark = now;
        }
#pragma omp for schedule(static)
        for (int32_t block = 0; block < c->block_count; ++block) {
            int32_t begin, end;
            block_range(block, TS_BODY_BLOCK, c->body_count, &begin, &end);
            bad = min_slot(bad, ts_integrate_positions(c->store, begin, end, c->h));
        }
        if (timed) {
            double now = ts_now_ms();
            positions += now - mark;
            mark = now;
        }
    }
#pragma omp for schedule(static)
    for (int32_t block = 0; block < c->block_count; ++block) {
        int32_t begin, end;
        block_range(block, TS_BODY_BLOCK, c->body_count, &begin, &end);
        ts_clear_forces(c->store, begin, end);
        ts_broadphase_compute_bounds(c->world, begin, end);
    }
    c->first_bad[thread_index()] = bad;
    if (timed) {
        c->profile->integrate_velocities = velocities;
        c->profile->integrate_positions = positions;
        c->profile->finalize = ts_now_ms() - mark;
    }
}

/* Returns -1, or the body id index of the first body (in slot order) whose
 * state would have become non-finite and was held. */
static int32_t substeps(ts_world *world, float dt)
{
    int32_t first_bad[TS_MAX_THREADS];
    step_context c = {
        .world = world,
        .store = &world->store,
        .gravity = world->gravity,
        .h = dt / (float)world->substeps,
        .substeps = world->substeps,
        .body_count = world->store.table.end[TS_RANGE_AWAKE],
        .profile = &world->profile,
        .first_bad = first_bad,
    };
    c.block_count = (c.body_count + TS_BODY_BLOCK - 1) / TS_BODY_BLOCK;
    int threads = c.body_count >= TS_PARALLEL_MIN_BODIES ? world->thread_count : 1;
    for (int t = 0; t < threads; ++t) {
        first_bad[t] = INT32_MAX;
    }
#ifdef _OPENMP
    if (threads > 1) {
        /* The team may come out smaller than asked; unused entries stay INT32_MAX. */
#pragma omp parallel num_threads(threads)
        run_substeps(&c, omp_get_thread_num() == 0);
    } else {
        run_substeps(&c, true);
    }
#else
    run_substeps(&c, true);
#endif
    int32_t bad = INT32_MAX;
    for (int t = 0; t < threads; ++t) {
        bad = min_slot(bad, first_bad[t]);
    }
    return bad == INT32_MAX ? -1 : world->store.table.id_of_slot[bad];
}

ts_result ts_step_world(ts_world *world, float dt)
{
    ts_step_profile *profile = &world->profile;
    double start = ts_now_ms();
    TS_TRY(ts_broadphase_update_pairs(world));
    double mark = ts_now_ms();
    profile->update_pairs = mark - start;

    narrowphase(world);
    TS_TRY(ts_contacts_finish_update(world));
    profile->narrowphase = ts_now_ms() - mark;

    int32_t held = substeps(world, dt);
    mark = ts_now_ms();
    TS_TRY(ts_broadphase_move_enlarged(world));
    TS_TRY(ts_contact_events_publish(world));
    profile->finalize += ts_now_ms() - mark;
    profile->step = ts_now_ms() - start;
    if (held >= 0) {
        return ts_fail(TS_ERROR_NOT_FINITE, "ts_world_step",
                       "body (index %d) would have reached a non-finite velocity or pose (huge force, torque, dt or "
                       "gravity); it was held at its last finite state and its force cleared",
                       (int)held + 1);
    }
    return TS_OK;
}

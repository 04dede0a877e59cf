/* The stepping pipeline. One OpenMP parallel region per step holds every
 * substep; inside it each stage is a work-shared loop whose implicit barrier
 * is the only synchronisation. Thread 0 reads the clock at those barriers to
 * fill the step profile.
 *
 * For now (no contacts yet) a substep is: integrate velocities, integrate
 * positions. The contact solver's stages slot in between them. */
#include "step.h"

#include "../timer.h"
#include "integrate.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many awake bodies a step runs on the calling thread: waking the
 * team costs more than the work. */
#define TS_PARALLEL_MIN_BODIES 4096

/* Bodies per work block: a multiple of every SIMD width and large enough to
 * amortise scheduling. */
#define TS_BODY_BLOCK 256

typedef struct step_context {
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

static void block_range(const step_context *c, int32_t block, int32_t *begin, int32_t *end)
{
    *begin = block * TS_BODY_BLOCK;
    *end = *begin + TS_BODY_BLOCK < c->body_count ? *begin + TS_BODY_BLOCK : c->body_count;
}

/* Run by every thread of the team (or by the caller alone). */
static void run_stages(step_context *c, bool timed)
{
    double velocities = 0.0;
    double positions = 0.0;
    int32_t bad = INT32_MAX;
    double mark = timed ? ts_now_ms() : 0.0;
    for (int sub = 0; sub < c->substeps; ++sub) {
#pragma omp for schedule(static)
        for (int32_t block = 0; block < c->block_count; ++block) {
            int32_t begin, end;
            block_range(c, block, &begin, &end);
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
            block_range(c, block, &begin, &end);
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
        block_range(c, block, &begin, &end);
        ts_clear_forces(c->store, begin, end);
    }
    c->first_bad[thread_index()] = bad;
    if (timed) {
        c->profile->integrate_velocities = velocities;
        c->profile->integrate_positions = positions;
        c->profile->finalize = ts_now_ms() - mark;
    }
}

int32_t ts_solver_step(ts_world *world, float dt)
{
    double start = ts_now_ms();
    int32_t first_bad[TS_MAX_THREADS];
    step_context c = {
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
        run_stages(&c, omp_get_thread_num() == 0);
    } else {
        run_stages(&c, true);
    }
#else
    run_stages(&c, true);
#endif
    world->profile.step = ts_now_ms() - start;
    int32_t bad = INT32_MAX;
    for (int t = 0; t < threads; ++t) {
        bad = min_slot(bad, first_bad[t]);
    }
    return bad == INT32_MAX ? -1 : world->store.table.id_of_slot[bad];
}

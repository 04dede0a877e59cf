/* The stepping pipeline: the stages of one ts_world_step, in order.
 *
 *   1. update pairs   (serial)   moved shapes find new pairs; contacts made in key order
 *   2. narrowphase    (parallel) every contact's manifold, points matched by feature id
 *                     (serial)   touch events in slot order, graph colours; parted
 *                                contacts destroyed
 *   3. solve          (parallel) the soft-step substeps (solver.c), then bodies written
 *                                back and their shape bounds computed
 *   4. finalize       (serial)   move the proxies that left their fat bounds
 *   5. sleep          (serial)   islands at rest sleep, one island split (islands/sleep.h)
 *   6. publish the step's events, sorted
 *
 * Parallel stages are work-shared loops over fixed blocks of slots inside an
 * OpenMP region; each block writes only its own slots, so the result does not
 * depend on the thread count. Thread 0 reads the clock at the barriers to
 * fill the step profile. (One region per step is the threads issue.) */
#include "step.h"

#include "../collide/broadphase.h"
#include "../collide/contact.h"
#include "../error.h"
#include "../islands/sleep.h"
#include "../timer.h"
#include "solver.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many contacts the narrowphase runs on the calling thread:
 * waking the team costs more than the work. */
#define TS_PARALLEL_MIN_CONTACTS 1024

/* Contacts per work block. */
#define TS_CONTACT_BLOCK 64

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

ts_result ts_step_world(ts_world *world, float dt)
{
    ts_step_profile *profile = &world->profile;
    *profile = (ts_step_profile){0};
    double start = ts_now_ms();
    TS_TRY(ts_broadphase_update_pairs(world));
    double mark = ts_now_ms();
    profile->update_pairs = mark - start;

    world->narrowphase_pairs = world->contact_store.table.end[TS_CONTACT_RANGE_AWAKE];
    narrowphase(world);
    TS_TRY(ts_contacts_finish_update(world));
    profile->narrowphase = ts_now_ms() - mark;

    int32_t held = -1;
    ts_result solved = ts_solve(world, dt, &held);
    if (solved == TS_ERROR_OUT_OF_MEMORY) {
        return solved;
    }
    mark = ts_now_ms();
    TS_TRY(ts_broadphase_move_enlarged(world));
    profile->finalize += ts_now_ms() - mark;
    mark = ts_now_ms();
    if (held < 0) { /* a held body stopped for overflowing, not for resting */
        ts_sleep_islands(world);
    }
    profile->sleep = ts_now_ms() - mark;
    TS_TRY(ts_contact_events_publish(world));
    profile->step = ts_now_ms() - start;
    if (held >= 0) {
        return ts_fail(TS_ERROR_NOT_FINITE, "ts_world_step",
                       "body (index %d) would have reached a non-finite velocity or pose (huge force, torque, dt or "
                       "gravity); it was held at its last finite state and its force cleared",
                       (int)held + 1);
    }
    return TS_OK;
}

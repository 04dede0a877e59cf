/* The step's workers and stages (see parallel.h). */
#include "base/parallel.h"

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "base/timer.h"

#include <string.h>
#include <sched.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* published = TS_STAGE_QUIT: the step is over, helpers return. */
#define TS_STAGE_QUIT UINT64_MAX

/* Spins of a waiting worker before it sleeps (helpers) or starts yielding
 * its core (worker 0). One spin (a pause instruction and a load) takes
 * ~10-40 ns, so this is ~20-80 us: longer than any gap between two stages
 * of a step on a quiet machine (helpers never sleep inside the solver
 * there), far shorter than a scheduler time slice on a busy one, where a
 * spinning helper would take the core from worker 0. */
#define TS_SPINS_BEFORE_YIELD 2000

bool ts_parallel_init(ts_parallel *p, const ts_allocator *allocator)
{
    memset(p, 0, sizeof *p);
    p->block_flags = ts_alloc(allocator, TS_MAX_STAGE_BLOCKS * sizeof(_Atomic uint64_t));
    if (p->block_flags == NULL) {
        return false;
    }
    for (int32_t b = 0; b < TS_MAX_STAGE_BLOCKS; ++b) {
        atomic_init(&p->block_flags[b], 0);
    }
    atomic_init(&p->published, 0);
    atomic_init(&p->sleepers, 0);
    p->worker_count = 1;
    p->adapt = true;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        return false;
    }
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        return false;
    }
    p->sync_ready = true;
    return true;
}

void ts_parallel_destroy(ts_parallel *p, const ts_allocator *allocator)
{
    ts_free(allocator, (void *)p->block_flags, TS_MAX_STAGE_BLOCKS * sizeof(_Atomic uint64_t));
    if (p->sync_ready) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        p->sync_ready = false;
    }
    ts_array_free(allocator, (void **)&p->stages, &p->stage_capacity, sizeof(ts_stage));
    p->block_flags = NULL;
}

int32_t ts_block_size(int32_t count, int32_t min_size)
{
    int32_t size = (count + TS_MAX_STAGE_BLOCKS - 1) / TS_MAX_STAGE_BLOCKS;
    return size <= min_size ? min_size : (size + min_size - 1) / min_size * min_size;
}

/* ---- waiting ---- */

/* A helper waits for the next stage: spins, then sleeps. Worker 0 stores
 * `published` and then reads `sleepers`; a helper adds itself to `sleepers`
 * and then reads `published` (both sequentially consistent), so at least
 * one of them sees the other: a helper never sleeps through a stage. */
static uint64_t wait_for_stage(ts_parallel *p, uint64_t old)
{
    for (int spin = 0; spin < TS_SPINS_BEFORE_YIELD; ++spin) {
        uint64_t v = atomic_load_explicit(&p->published, memory_order_acquire);
        if (v != old) {
            return v;
        }
        ts_cpu_pause();
    }
    pthread_mutex_lock(&p->lock);
    atomic_fetch_add(&p->sleepers, 1);
    uint64_t v;
    while ((v = atomic_load(&p->published)) == old) {
        pthread_cond_wait(&p->wake, &p->lock);
    }
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->lock);
    return v;
}

/* Worker 0 publishes a stage (or the end of the step) and wakes sleepers. */
static void publish(ts_parallel *p, uint64_t sequence)
{
    atomic_store(&p->published, sequence);
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
}

/* Worker 0 waits for the blocks that helpers still run; a wait past the
 * spins (a helper descheduled mid-block) is timed. */
static void wait_until_complete(ts_parallel *p, ts_stage *stage)
{
    double start = 0.0;
    for (int spin = 0; atomic_load_explicit(&stage->completed, memory_order_acquire) != stage->block_count; ++spin) {
        if (spin < TS_SPINS_BEFORE_YIELD) {
            ts_cpu_pause();
        } else {
            start = spin == TS_SPINS_BEFORE_YIELD ? ts_now_ms() : start;
            sched_yield();
        }
    }
    if (start > 0.0) {
        p->waited_ms += ts_now_ms() - start;
    }
}

/* ---- claiming ---- */

static bool claim(_Atomic uint64_t *flag, uint64_t sequence)
{
    uint64_t seen = atomic_load_explicit(flag, memory_order_relaxed);
    return seen < sequence && atomic_compare_exchange_strong_explicit(flag, &seen, sequence, memory_order_acquire,
                                                                      memory_order_relaxed);
}

/* Claims and runs blocks of a stage from this worker's start; see parallel.h.
 * The blocks form a ring: worker w runs forward from its start until it
 * meets a block someone took (worker w + 1's start, or the end of the
 * ring's last share), then backward from just before its start, taking the
 * tail of worker w - 1's share; worker 0's backward run starts at the last
 * block, the tail of the last worker's share. So every worker can take
 * over the end of a slower neighbour's share (without the wrap, worker 0
 * could never help the last worker, and at 2 threads a heavier second half
 * left worker 0 waiting). */
static void execute_stage(ts_parallel *p, ts_stage *stage, uint64_t sequence, int worker, int workers)
{
    int32_t count = stage->block_count;
    int32_t start = (int32_t)((int64_t)count * worker / workers);
    int32_t done = 0;
    for (int32_t b = start; b < count && claim(&p->block_flags[b], sequence); ++b) {
        stage->run(stage->context, b, worker);
        ++done;
    }
    int32_t back = start > 0 ? start - 1 : count - 1;
    for (int32_t b = back; b >= 0 && claim(&p->block_flags[b], sequence); --b) {
        stage->run(stage->context, b, worker);
        ++done;
    }
    if (done > 0) {
        atomic_fetch_add_explicit(&stage->completed, done, memory_order_release);
    }
}

void ts_parallel_for(ts_parallel *p, ts_block_fn *run, void *context, int32_t block_count)
{
    ts_parallel_for_with(p, run, context, block_count, NULL, NULL);
}

void ts_parallel_for_with(ts_parallel *p, ts_block_fn *run, void *context, int32_t block_count,
                          void (*serial)(void *), void *serial_context)
{
    if (p->worker_count <= 1 || block_count <= 1 || p->stage_count >= p->stage_capacity) {
        if (serial != NULL) {
            serial(serial_context);
        }
        for (int32_t b = 0; b < block_count; ++b) {
            run(context, b, 0);
        }
        return;
    }
    TS_ASSERT(block_count <= TS_MAX_STAGE_BLOCKS);
    ts_stage *stage = p->stages + p->stage_count;
    uint64_t sequence = p->base + (uint64_t)p->stage_count;
    p->stage_count += 1;
    stage->run = run;
    stage->context = context;
    stage->block_count = block_count;
    atomic_store_explicit(&stage->completed, 0, memory_order_relaxed);
    publish(p, sequence);
    if (serial != NULL) {
        serial(serial_context);
    }
    execute_stage(p, stage, sequence, 0, p->worker_count);
    wait_until_complete(p, stage);
}

/* ---- helpers ---- */

/* What a helper does for the whole step: follow the published stages until
 * the step is over. It may skip stages (it arrives late); then it simply
 * helps with the newest. */
static void help(ts_parallel *p, int worker, int workers)
{
    uint64_t last = p->base - 1;
    for (;;) {
        uint64_t sequence = wait_for_stage(p, last);
        if (sequence == TS_STAGE_QUIT) {
            return;
        }
        execute_stage(p, p->stages + (sequence - p->base), sequence, worker, workers);
        last = sequence;
    }
}

typedef struct helper_task {
    ts_parallel *parallel;
    int worker;
    int workers;
} helper_task;

static void helper_task_run(int32_t start, int32_t end, uint32_t thread, void *context)
{
    (void)start;
    (void)end;
    (void)thread;
    helper_task *task = context;
    help(task->parallel, task->worker, task->workers);
}

/* ---- the region ---- */

/* Worker 0's part; *end is when it finished (the rest of the step is the
 * wait for the helpers to leave). */
static ts_result run_body(ts_parallel *p, int workers, ts_step_body_fn *body, void *context, double *end)
{
    p->worker_count = workers;
    ts_result result = body(context);
    publish(p, TS_STAGE_QUIT);
    *end = ts_now_ms();
    return result;
}

/* After a step on several workers: a quarter of it spent waiting for
 * descheduled helpers sends the next steps to worker 0 alone, for twice as
 * many steps as last time (up to 64); a good step forgets the history. */
static void judge_step(ts_parallel *p, double step_ms)
{
    if (!p->adapt) {
        return;
    }
    if (p->waited_ms > 0.25 * step_ms) {
        p->alone_length = p->alone_length == 0 ? 1 : (p->alone_length < 64 ? 2 * p->alone_length : 64);
        p->alone_steps = p->alone_length;
    } else {
        p->alone_length = 0;
    }
}

static ts_result run_parallel(ts_parallel *p, int workers, ts_step_body_fn *body, void *context);

ts_result ts_parallel_run(ts_parallel *p, const ts_allocator *allocator, int workers, int32_t stage_capacity,
                          ts_step_body_fn *body, void *context)
{
    /* Sequence numbers keep growing across steps, so no flag needs a reset. */
    p->base += (uint64_t)p->stage_count + 1;
    p->stage_count = 0;
    p->waited_ms = 0.0;
    atomic_store_explicit(&p->published, p->base - 1, memory_order_relaxed);
    if (workers > 1 && p->alone_steps > 0) {
        p->alone_steps -= 1;
        workers = 1;
    }
    if (workers > 1 &&
        !ts_array_reserve(allocator, (void **)&p->stages, &p->stage_capacity, stage_capacity, sizeof(ts_stage))) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (stages)");
    }
    if (workers <= 1) {
        p->worker_count = 1;
        return body(context);
    }
    double start = ts_now_ms();
    ts_result result = run_parallel(p, workers, body, context);
    judge_step(p, ts_now_ms() - start);
    return result;
}

static ts_result run_parallel(ts_parallel *p, int workers, ts_step_body_fn *body, void *context)
{
    if (p->enqueue_task != NULL) {
        static_assert(TS_MAX_THREADS <= 256, "helper tasks live on the stack");
        helper_task tasks[TS_MAX_THREADS];
        void *handles[TS_MAX_THREADS];
        for (int w = 1; w < workers; ++w) {
            tasks[w] = (helper_task){p, w, workers};
            handles[w] = p->enqueue_task(helper_task_run, 1, 1, tasks + w, p->user_task_context);
        }
        double end;
        ts_result result = run_body(p, workers, body, context, &end);
        for (int w = 1; w < workers; ++w) {
            if (handles[w] != NULL) {
                p->finish_task(handles[w], p->user_task_context);
            }
        }
        p->waited_ms += ts_now_ms() - end;
        return result;
    }
#ifdef _OPENMP
    ts_result result = TS_OK;
    double end = 0.0;
#pragma omp parallel num_threads(workers)
    {
        int team = omp_get_num_threads();
        int worker = omp_get_thread_num();
        if (worker == 0) {
            result = run_body(p, team, body, context, &end);
        } else {
            help(p, worker, team);
        }
    }
    p->waited_ms += ts_now_ms() - end;
    return result;
#else
    p->worker_count = 1;
    return body(context);
#endif
}

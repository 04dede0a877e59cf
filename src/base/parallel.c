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
 * ~10-40 ns, so this is ~20-80 us: longer than most gaps between two
 * stages of a step on a quiet machine (helpers never sleep inside the
 * solver there), far shorter than a scheduler time slice on a busy one,
 * where a spinning helper would take the core from worker 0. */
#define TS_SPINS_BEFORE_YIELD 2000

/* Spins of a helper after ts_parallel_expect, before it sleeps anyway
 * (~0.2-0.8 ms: the serial parts it covers are tens of microseconds). */
#define TS_EXPECT_SPINS 20000

/* A worker done with its share of a listed stage waits about this long
 * (~1 us, a block or two of a colour pass) for the others before it takes
 * blocks from the back of their shares. A block taken moves its bundles
 * and body states to the thief's core and, next pass, back: taken as soon
 * as one worker was ahead (as any worker is, by the time the last done
 * count takes to reach the other), blocks moved on most stages
 * (joint_grid, two workers: ~300 blocks a step, each stage's work
 * 1.1-1.4x the one-worker figure on a VM whose cores pass a line in
 * ~500 ns). Waiting far longer (250 spins on an AMD VM, ~5-10 us) kept
 * every block home but lost 4-10% whenever one vCPU ran slower than the
 * other (a busy host): the patience balances the two. It is a time, not a
 * spin count: 30 spins, tuned on the AMD VM (~0.3-1 us there), are ~0.4 us
 * on an Intel Xeon VM whose `pause` takes ~10 ns, where they left
 * wide_pyramid 4% slower at two workers than 100 spins (medians of 37 and
 * 51 interleaved runs, 2026-11-28). ts_parallel_init times the spins. */
#define TS_STEAL_PATIENCE_NS 1000.0
#define TS_STEAL_PATIENCE_MIN 8
#define TS_STEAL_PATIENCE_MAX 1000

/* Spins of a wait loop (a pause and a load) in TS_STEAL_PATIENCE_NS, timed
 * over a thousand pauses. */
static int time_patience(void)
{
    enum { spins = 1000 };
    double start = ts_now_ms();
    for (int i = 0; i < spins; ++i) {
        ts_cpu_pause();
    }
    double ns = (ts_now_ms() - start) * 1e6 / spins;
    double patience = ns > 0.0 ? TS_STEAL_PATIENCE_NS / ns : TS_STEAL_PATIENCE_MAX;
    return patience < TS_STEAL_PATIENCE_MIN   ? TS_STEAL_PATIENCE_MIN
           : patience > TS_STEAL_PATIENCE_MAX ? TS_STEAL_PATIENCE_MAX
                                              : (int)patience;
}

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
    p->cursors = ts_alloc(allocator, TS_MAX_THREADS * sizeof(ts_worker_line));
    p->done = ts_alloc(allocator, TS_MAX_THREADS * sizeof(ts_worker_line));
    if (p->cursors == NULL || p->done == NULL) {
        return false;
    }
    for (int w = 0; w < TS_MAX_THREADS; ++w) {
        atomic_init(&p->cursors[w].value, 0);
        atomic_init(&p->done[w].value, 0);
    }
    p->entry_sequence = 1;
    p->steal_patience = time_patience();
    atomic_init(&p->published, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->expects, 0);
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
    ts_free(allocator, p->cursors, TS_MAX_THREADS * sizeof(ts_worker_line));
    ts_free(allocator, p->done, TS_MAX_THREADS * sizeof(ts_worker_line));
    p->cursors = NULL;
    p->done = NULL;
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
static uint64_t wait_for_stage(ts_parallel *p, uint64_t old, uint64_t *expected)
{
    int spins = TS_SPINS_BEFORE_YIELD;
    for (;;) {
        for (int spin = 0; spin < spins; ++spin) {
            uint64_t v = atomic_load_explicit(&p->published, memory_order_acquire);
            if (v != old) {
                return v;
            }
            uint64_t e = atomic_load_explicit(&p->expects, memory_order_relaxed);
            if (e != *expected) { /* a stage is expected: spin on, from now */
                *expected = e;
                spin = 0;
                spins = TS_EXPECT_SPINS;
            }
            ts_cpu_pause();
        }
        /* Sleep until a stage is published, or expected (then spin again);
         * the same handshake as `published`'s covers `expects`. */
        pthread_mutex_lock(&p->lock);
        atomic_fetch_add(&p->sleepers, 1);
        uint64_t v;
        while ((v = atomic_load(&p->published)) == old && atomic_load(&p->expects) == *expected) {
            pthread_cond_wait(&p->wake, &p->lock);
        }
        atomic_fetch_sub(&p->sleepers, 1);
        pthread_mutex_unlock(&p->lock);
        if (v != old) {
            return v;
        }
    }
}

void ts_parallel_expect(ts_parallel *p)
{
    if (p->worker_count <= 1) {
        return;
    }
    atomic_fetch_add(&p->expects, 1);
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
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
    stage->list = NULL;
    atomic_store_explicit(&stage->completed, 0, memory_order_relaxed);
    publish(p, sequence);
    if (serial != NULL) {
        serial(serial_context);
    }
    execute_stage(p, stage, sequence, 0, p->worker_count);
    wait_until_complete(p, stage);
}

/* ---- stage lists ----
 *
 * A list is published once; then each worker walks its stages alone. Per
 * stage, worker w claims blocks from the front of its share [count * w / n,
 * count * (w + 1) / n) through its cursor, a word on its own cache line
 * that stays in its core's cache while nobody else needs it, adds what it
 * ran to its done counter (also its own line) and waits until the counters
 * of all workers add up to the blocks of the list so far; if they do not
 * within its patience (steal_patience), it takes blocks from the back of the
 * other workers' shares through their cursors, then waits again. On
 * time, that wait costs one line transfer per worker (reading the others'
 * counters); the publish per stage it replaces cost about four in a row
 * (the sequence, the stage record, the first claim past the share, the
 * completed count and its read back), ~0.5-1.5 us a stage on a two-core VM
 * whose cores pass a line in 130-500 ns.
 *
 * A cursor is (tag << 32 | front << 16 | back): blocks [front, back) of
 * worker w's share of the list stage whose sequence number's low 32 bits
 * are tag. A cursor with an older tag was not touched in this stage: the
 * first claim, by its owner or a thief, starts it at the full share. A
 * cursor with a newer tag tells a worker that it is late (the stage is
 * over): it claims nothing and walks on. Done counters only grow, so a late
 * worker passes every wait it meets; it leaves the list as soon as worker 0
 * has published something else. The region's end joins every worker each
 * step, so tags compared within a step never wrap. */

static inline uint64_t cursor_pack(uint32_t tag, int32_t front, int32_t back)
{
    return (uint64_t)tag << 32 | (uint64_t)front << 16 | (uint64_t)back;
}

static int32_t share_begin(const ts_stage_def *stage, int worker, int workers)
{
    return (int32_t)((int64_t)stage->block_count * worker / workers);
}

/* One block of the share [begin, end) behind `cursor` for the stage tagged
 * `tag`: its front (the owner) or its back (a thief); -1 if none is left. */
static int32_t claim_from(ts_worker_line *cursor, uint32_t tag, int32_t begin, int32_t end, bool front)
{
    uint64_t seen = atomic_load_explicit(&cursor->value, memory_order_relaxed);
    for (;;) {
        int32_t age = (int32_t)(tag - (uint32_t)(seen >> 32));
        if (age < 0) {
            return -1; /* a later stage's: this one is over */
        }
        int32_t f = age > 0 ? begin : (int32_t)(seen >> 16 & 0xffff);
        int32_t b = age > 0 ? end : (int32_t)(seen & 0xffff);
        if (f >= b) {
            return -1;
        }
        uint64_t want = front ? cursor_pack(tag, f + 1, b) : cursor_pack(tag, f, b - 1);
        if (atomic_compare_exchange_weak_explicit(&cursor->value, &seen, want, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            return front ? f : b - 1;
        }
    }
}

/* What a wait for the workers' done counters ended with. */
typedef enum wait_end { WAIT_DONE, WAIT_LATE, WAIT_STALLED } wait_end;

/* Waits until the workers' done counters reach target: WAIT_DONE; or
 * WAIT_LATE if worker 0 published something else meanwhile (a late helper:
 * the list is over); or, after `patience` spins (never if negative),
 * WAIT_STALLED. Worker 0's waits past the spins are timed (judge_step). */
static wait_end wait_for_blocks(ts_parallel *p, uint64_t sequence, uint64_t target, int worker, int workers,
                                int patience)
{
    double start = 0.0;
    for (int spin = 0;; ++spin) {
        uint64_t sum = 0;
        for (int w = 0; w < workers; ++w) {
            sum += atomic_load_explicit(&p->done[w].value, memory_order_acquire);
        }
        if (sum >= target) {
            if (start > 0.0) {
                p->waited_ms += ts_now_ms() - start;
            }
            return WAIT_DONE;
        }
        if (worker != 0 && atomic_load_explicit(&p->published, memory_order_relaxed) != sequence) {
            return WAIT_LATE;
        }
        if (spin == patience) {
            return WAIT_STALLED;
        }
        if (spin < TS_SPINS_BEFORE_YIELD) {
            ts_cpu_pause();
        } else {
            start = spin == TS_SPINS_BEFORE_YIELD && worker == 0 ? ts_now_ms() : start;
            sched_yield();
        }
    }
}

/* Blocks taken from the back of the other workers' shares of a stage. */
static uint64_t steal(ts_parallel *p, const ts_stage_def *stage, uint32_t tag, int worker, int workers)
{
    uint64_t ran = 0;
    int32_t b;
    for (int k = 1; k < workers; ++k) {
        int v = worker + k < workers ? worker + k : worker + k - workers;
        int32_t begin = share_begin(stage, v, workers), end = share_begin(stage, v + 1, workers);
        while ((b = claim_from(p->cursors + v, tag, begin, end, false)) >= 0) {
            stage->run(stage->context, b, worker);
            ++ran;
        }
    }
    return ran;
}

/* Worker `worker`'s walk through a list (see above). */
static void run_list(ts_parallel *p, const ts_stage *list, uint64_t sequence, int worker, int workers,
                     ts_stage_done_fn *done, void *done_context)
{
    uint64_t target = list->list_done;
    uint64_t mine = atomic_load_explicit(&p->done[worker].value, memory_order_relaxed);
    for (int32_t i = 0; i < list->list_count; ++i) {
        const ts_stage_def *stage = list->list + i;
        uint32_t tag = (uint32_t)(list->list_tag + (uint64_t)i);
        int32_t count = stage->block_count, b;
        uint64_t ran = 0;
        target += (uint64_t)count;
        int32_t begin = share_begin(stage, worker, workers), end = share_begin(stage, worker + 1, workers);
        while ((b = claim_from(p->cursors + worker, tag, begin, end, true)) >= 0) {
            stage->run(stage->context, b, worker);
            ++ran;
        }
        if (ran > 0) {
            mine += ran;
            atomic_store_explicit(&p->done[worker].value, mine, memory_order_release);
        }
        wait_end end_of_wait = wait_for_blocks(p, sequence, target, worker, workers, p->steal_patience);
        if (end_of_wait == WAIT_STALLED) {
            ran = steal(p, stage, tag, worker, workers);
            if (ran > 0) {
                mine += ran;
                atomic_store_explicit(&p->done[worker].value, mine, memory_order_release);
            }
            end_of_wait = wait_for_blocks(p, sequence, target, worker, workers, -1);
        }
        if (end_of_wait == WAIT_LATE) {
            return;
        }
        if (done != NULL) {
            done(done_context, i);
        }
    }
}

void ts_parallel_for_list(ts_parallel *p, const ts_stage_def *stages, int32_t count, ts_stage_done_fn *done,
                          void *done_context)
{
    if (p->worker_count <= 1 || p->stage_count >= p->stage_capacity) {
        for (int32_t i = 0; i < count; ++i) {
            for (int32_t b = 0; b < stages[i].block_count; ++b) {
                stages[i].run(stages[i].context, b, 0);
            }
            if (done != NULL) {
                done(done_context, i);
            }
        }
        return;
    }
    for (int32_t i = 0; i < count; ++i) {
        TS_ASSERT(stages[i].block_count <= TS_MAX_STAGE_BLOCKS);
    }
    ts_stage *list = p->stages + p->stage_count;
    uint64_t sequence = p->base + (uint64_t)p->stage_count;
    p->stage_count += 1;
    /* every cursor older than the list's first stage and empty (a worker
     * still late in an earlier list of this step reads it as newer) */
    uint64_t tag = p->entry_sequence + 1;
    p->entry_sequence += (uint64_t)count + 1;
    for (int w = 0; w < p->worker_count; ++w) {
        atomic_store_explicit(&p->cursors[w].value, cursor_pack((uint32_t)(tag - 1), 0, 0), memory_order_relaxed);
    }
    list->run = NULL;
    list->block_count = 0;
    list->list = stages;
    list->list_count = count;
    list->list_tag = tag;
    /* the step's workers' counters, final: every earlier stage is done (and
     * a worker of an earlier step with more workers counts no more) */
    list->list_done = 0;
    for (int w = 0; w < p->worker_count; ++w) {
        list->list_done += atomic_load_explicit(&p->done[w].value, memory_order_acquire);
    }
    publish(p, sequence);
    run_list(p, list, sequence, 0, p->worker_count, done, done_context);
}

/* ---- helpers ---- */

/* What a helper does for the whole step: follow the published stages until
 * the step is over. It may skip stages (it arrives late); then it simply
 * helps with the newest. */
static void help(ts_parallel *p, int worker, int workers)
{
    uint64_t last = p->base - 1;
    uint64_t expected = atomic_load(&p->expects); /* only worker 0's calls from now on count */
    for (;;) {
        uint64_t sequence = wait_for_stage(p, last, &expected);
        if (sequence == TS_STAGE_QUIT) {
            return;
        }
        ts_stage *stage = p->stages + (sequence - p->base);
        if (stage->list != NULL) {
            run_list(p, stage, sequence, worker, workers, NULL, NULL);
        } else {
            execute_stage(p, stage, sequence, worker, workers);
        }
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

/* The step's workers: one parallel region per step, in which the calling
 * thread (worker 0) runs the stages in order and the other workers help with
 * the parallel ones.
 *
 * A parallel stage is a function over blocks [0, block_count). Worker 0
 * publishes the stage (one atomic store), every worker claims blocks, and
 * worker 0 waits until all blocks are done, then goes on. Nothing else
 * synchronises: between two stages the helpers spin, then sleep on a
 * condition variable until worker 0 publishes the next stage (it signals
 * only when someone sleeps, so a quiet machine makes no system call).
 * Before a serial part longer than that spin, worker 0 can say a stage is
 * coming (ts_parallel_expect): the helpers then spin on through it.
 *
 * Claiming (Box2D v3's scheme, on a ring): worker w of n starts at block
 * block_count * w / n and claims forward until it meets a block someone else
 * took, then backward from its start (worker 0: from the last block), so
 * each takes over the tail of its slower neighbour. With every worker present that is a
 * static split (the same blocks land on the same worker each substep, so
 * their data stays in that core's cache); a worker that is late, or never
 * runs because the machine is busy, loses its blocks to the others instead
 * of holding them up. A block is claimed by a compare-and-swap of its flag
 * from any value below the stage's sequence number to that number; stage
 * sequence numbers only grow, so a worker that wakes late inside an old
 * stage finds all of its blocks taken and claims nothing.
 *
 * Determinism: which worker runs a block may change from run to run, so a
 * block must write only its own slots (or per-worker scratch whose contents
 * are merged in a fixed order afterwards). Block boundaries depend on item
 * counts only, never on the worker count.
 *
 * Stage lists (ts_parallel_for_list): a run of stages known in advance (the
 * solver's substeps) is published once, and each worker walks it alone,
 * claiming from its own share (a cursor on its own cache line) and waiting
 * between stages only until the workers' done counters add up; a worker
 * that waits past a short patience takes the tails of the others' shares
 * (parallel.c). Same claiming, same determinism rule.
 *
 * Runners: an OpenMP parallel region, or the user's task callbacks
 * (ts_world_def.enqueue_task / finish_task), or worker 0 alone.
 *
 * A busy machine: when a helper is descheduled while it holds a block,
 * worker 0 has to wait for the scheduler to run it again (milliseconds).
 * Should worker 0 spend more than a quarter of a step waiting like that,
 * the next steps run on worker 0 alone (1, 2, 4, ... up to 64 steps, then
 * the helpers are tried again), so an oversubscribed machine costs at most
 * about the one-thread speed instead of a stall at every colour. */
#ifndef TS_PARALLEL_H
#define TS_PARALLEL_H

#include "base/core.h"

#include <pthread.h>
#include <stdatomic.h>

/* The most blocks one stage is split into; stages with more items use larger
 * blocks (ts_block_size). */
#define TS_MAX_STAGE_BLOCKS 4096

/* Runs block `block` of a stage on worker `worker`. */
typedef void ts_block_fn(void *context, int32_t block, int worker);

typedef struct ts_stage {
    ts_block_fn *run;
    void *context;
    int32_t block_count;
    _Atomic int32_t completed; /* blocks done */
    /* a list of stages (ts_parallel_for_list), or NULL: */
    const struct ts_stage_def *list;
    int32_t list_count;
    uint64_t list_tag;  /* entry sequence number of list[0] */
    uint64_t list_done; /* the step's workers' done counters' sum before the list */
} ts_stage;

/* One stage of a list (ts_parallel_for_list). */
typedef struct ts_stage_def {
    ts_block_fn *run;
    void *context;
    int32_t block_count;
} ts_stage_def;

/* A worker's claim cursor and done counter for stage lists, each on its own
 * cache line (parallel.c). */
typedef struct ts_worker_line {
    _Atomic uint64_t value;
    char pad[64 - sizeof(uint64_t)];
} ts_worker_line;

typedef struct ts_parallel {
    ts_stage *stages; /* this step's published stages, in order; never moves during a step */
    int32_t stage_capacity;
    int32_t stage_count;
    _Atomic uint64_t *block_flags; /* TS_MAX_STAGE_BLOCKS: sequence number of the last stage that claimed it */
    uint64_t base;                 /* sequence number of stages[0] this step */
    _Atomic uint64_t published;    /* sequence number of the current stage, or TS_STAGE_QUIT */
    int worker_count;              /* workers of the step in progress */
    double waited_ms;              /* this step: worker 0's waits for descheduled helpers */
    int alone_steps;               /* steps left to run on worker 0 alone (busy machine) */
    int alone_length;              /* length of the last such run of steps */
    bool adapt;                    /* false: always use every worker (tests) */
    _Atomic int sleepers;          /* helpers asleep on wake */
    _Atomic uint64_t expects;      /* ts_parallel_expect's calls, ever */
    pthread_mutex_t lock;          /* guards the sleep on wake */
    pthread_cond_t wake;           /* a stage was published, or the step ended */
    bool sync_ready;               /* lock and wake were made */
    ts_enqueue_task_fn *enqueue_task; /* the user's task callbacks (ts_world_def), or NULL: OpenMP */
    ts_finish_task_fn *finish_task;
    void *user_task_context;
    ts_worker_line *cursors; /* TS_MAX_THREADS: worker w's share of the list stage in progress (parallel.c) */
    ts_worker_line *done;    /* TS_MAX_THREADS: blocks of list stages worker w has run, ever */
    uint64_t entry_sequence; /* the sequence number the next list stage takes */
    int steal_patience;      /* spins (~1 us) a worker done with its list share waits before taking others' blocks */
} ts_parallel;

bool ts_parallel_init(ts_parallel *parallel, const ts_allocator *allocator);
void ts_parallel_destroy(ts_parallel *parallel, const ts_allocator *allocator);

/* Worker 0, before a serial part of the step that a parallel stage
 * follows: the helpers spin on until the next stage instead of going to
 * sleep after their usual spins (bounded: ~0.2-0.8 ms), and a sleeping one
 * is woken to spin. A helper that slept takes ~25-45 us to come back (a
 * futex wake and a reschedule: pile's parted contacts' copies waited that
 * long in every third step); the spin costs a core only while worker 0
 * runs that serial part. Changes no result. */
void ts_parallel_expect(ts_parallel *p);

/* Items per block for `count` items: a multiple of min_size (so blocks of
 * bodies start on a multiple of every SIMD width when min_size is), large
 * enough that there are at most TS_MAX_STAGE_BLOCKS blocks. */
int32_t ts_block_size(int32_t count, int32_t min_size);

static inline int32_t ts_block_count(int32_t count, int32_t size) { return (count + size - 1) / size; }

/* The items [*begin, *end) of block `block` of count items in blocks of size. */
static inline void ts_block_range(int32_t block, int32_t size, int32_t count, int32_t *begin, int32_t *end)
{
    *begin = block * size;
    *end = *begin + size < count ? *begin + size : count;
}

/* Worker 0 only: runs every block of a stage, on all workers of the step
 * when there are several and the stage has more than one block, else on the
 * calling thread in block order. Returns when every block is done; what the
 * blocks wrote is then visible to the caller and to every later stage. */
void ts_parallel_for(ts_parallel *parallel, ts_block_fn *run, void *context, int32_t block_count);

/* ts_parallel_for, but worker 0 first runs serial(serial_context) while the
 * other workers start on the blocks, then joins them (taking the blocks
 * left at the front of its share). serial must touch nothing the blocks
 * read or write. */
void ts_parallel_for_with(ts_parallel *parallel, ts_block_fn *run, void *context, int32_t block_count,
                          void (*serial)(void *), void *serial_context);

/* Called by worker 0 after stage `index` of a list is done (for timing). */
typedef void ts_stage_done_fn(void *context, int32_t index);

/* Worker 0 only: runs the stages of a list in order, as count calls of
 * ts_parallel_for would, but published once: every worker goes from one
 * stage to the next by itself, claiming its share from a cursor on its own
 * cache line, taking the tail of the others' shares when they lag, and
 * waiting only until the done counters of all workers add up to the stage's end
 * (parallel.c says why this costs one cache-line transfer a stage where a
 * publish per stage cost several). `stages` must stay unchanged until the
 * step ends. done(done_context, i), if not NULL, runs on worker 0 after
 * stage i. */
void ts_parallel_for_list(ts_parallel *parallel, const ts_stage_def *stages, int32_t count, ts_stage_done_fn *done,
                          void *done_context);

/* The body of a step, run by worker 0 while the others help. */
typedef ts_result ts_step_body_fn(void *context);

/* Runs body on the calling thread as worker 0, with `workers` workers in
 * all (fewer if the runner gives fewer): through the task callbacks when
 * set, else OpenMP, else alone. stage_capacity bounds the stages body may
 * publish (more run on worker 0 alone). Allocates (through allocator) only
 * when stage_capacity grows. */
ts_result ts_parallel_run(ts_parallel *parallel, const ts_allocator *allocator, int workers, int32_t stage_capacity,
                          ts_step_body_fn *body, void *context);

#endif

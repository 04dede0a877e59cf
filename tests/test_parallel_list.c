/* Stage lists (base/parallel.h, ts_parallel_for_list): every block of every
 * stage runs exactly once, no block of a stage starts before every block of
 * the stage before it is done, and worker 0's done callback sees the stages
 * in order, each complete; at 1 to 4 workers, through OpenMP and through
 * task callbacks whose helpers start only after worker 0 is done (a helper
 * that arrives late must claim nothing and leave); and around
 * ts_parallel_expect, called while the helpers spin, sleep, or are past
 * its window, and last in a step. These are exact counts: no tolerance. */
#include "test_common.h"

#include "base/alloc.h"
#include "base/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define STAGES 40
#define MAX_BLOCKS 64

typedef struct list_test {
    ts_parallel parallel;
    ts_stage_def defs[STAGES];
    _Atomic int32_t runs[STAGES][MAX_BLOCKS]; /* times each block ran */
    _Atomic int32_t finished[STAGES];         /* blocks of each stage done */
    _Atomic int32_t early;                    /* blocks that started before the stage before was done */
    int32_t callbacks;                        /* done callbacks, in order */
    bool callbacks_in_order;
    int lists; /* lists per step */
} list_test;

typedef struct stage_arg {
    list_test *t;
    int stage;
} stage_arg;

static stage_arg args[STAGES];

static void run_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const stage_arg *a = context;
    list_test *t = a->t;
    if (a->stage > 0 && atomic_load(&t->finished[a->stage - 1]) != t->defs[a->stage - 1].block_count) {
        atomic_fetch_add(&t->early, 1);
    }
    /* a little work, so that the workers overlap */
    volatile float x = (float)block;
    for (int i = 0; i < 200; ++i) {
        x = x * 0.999f + 1.0f;
    }
    atomic_fetch_add(&t->runs[a->stage][block], 1);
    atomic_fetch_add(&t->finished[a->stage], 1);
}

static void stage_done(void *context, int32_t index)
{
    list_test *t = context;
    int stage = t->callbacks;
    (void)index;
    if (atomic_load(&t->finished[stage]) != t->defs[stage].block_count) {
        t->callbacks_in_order = false;
    }
    t->callbacks += 1;
}

/* The step: the stages as `lists` lists (with a plain stage between two). */
static ts_result body(void *context)
{
    list_test *t = context;
    int per_list = STAGES / t->lists;
    for (int l = 0; l < t->lists; ++l) {
        ts_parallel_for_list(&t->parallel, t->defs + l * per_list, per_list, stage_done, t);
    }
    return TS_OK;
}

static void reset(list_test *t, int lists)
{
    for (int s = 0; s < STAGES; ++s) {
        /* 0, 1, 2, ... 63 blocks and back: empty stages, one-block stages and full ones */
        int32_t blocks = (s * 7) % (MAX_BLOCKS + 1);
        args[s] = (stage_arg){t, s};
        t->defs[s] = (ts_stage_def){run_block, args + s, blocks};
        atomic_store(&t->finished[s], 0);
        for (int b = 0; b < MAX_BLOCKS; ++b) {
            atomic_store(&t->runs[s][b], 0);
        }
    }
    atomic_store(&t->early, 0);
    t->callbacks = 0;
    t->callbacks_in_order = true;
    t->lists = lists;
}

static void check(list_test *t)
{
    for (int s = 0; s < STAGES; ++s) {
        for (int b = 0; b < MAX_BLOCKS; ++b) {
            int32_t expected = b < t->defs[s].block_count ? 1 : 0;
            if (atomic_load(&t->runs[s][b]) != expected) {
                fail_msg("stage %d block %d ran %d times, expected %d", s, b, (int)atomic_load(&t->runs[s][b]),
                         (int)expected);
            }
        }
    }
    assert_int_equal(atomic_load(&t->early), 0);
    assert_int_equal(t->callbacks, STAGES);
    assert_true(t->callbacks_in_order);
}

static void test_every_block_once_in_order(void **state)
{
    (void)state;
    static list_test t;
    ts_allocator a = ts_default_allocator();
    assert_true(ts_parallel_init(&t.parallel, &a));
    t.parallel.adapt = false; /* always every worker, even on a busy machine */
    /* up and down again: a worker of an earlier step with more workers keeps
     * its count of blocks done, and the fewer workers after must not wait
     * for it */
    const int worker_counts[] = {1, 2, 3, 4, 3, 2, 4, 2};
    for (int k = 0; k < (int)(sizeof worker_counts / sizeof worker_counts[0]); ++k) {
        int workers = worker_counts[k];
        for (int lists = 1; lists <= 2; ++lists) {
            for (int step = 0; step < 20; ++step) {
                reset(&t, lists);
                assert_ok(ts_parallel_run(&t.parallel, &a, workers, 8, body, &t));
                check(&t);
            }
        }
    }
    ts_parallel_destroy(&t.parallel, &a);
}

/* Task callbacks whose helpers start late: each on its own thread after a
 * pause of 0 to 0.6 ms, so that they arrive in the middle of a list, after
 * it, or after the step's body ended; worker 0 (and the helpers that came)
 * take their blocks meanwhile. */
typedef struct late_task {
    ts_task_fn *task;
    void *context;
    int delay_us;
    pthread_t thread;
} late_task;

static late_task late_tasks[8];
static int late_count;
static uint32_t late_seed;

static void *late_thread(void *context)
{
    late_task *task = context;
    struct timespec pause = {0, task->delay_us * 1000L};
    nanosleep(&pause, NULL);
    task->task(0, 1, 0, task->context);
    return NULL;
}

static void *enqueue_late(ts_task_fn *task, int32_t item_count, int32_t min_range, void *task_context,
                          void *user_context)
{
    (void)item_count;
    (void)min_range;
    (void)user_context;
    late_seed = late_seed * 1103515245u + 12345u;
    late_task *t = late_tasks + late_count++;
    *t = (late_task){task, task_context, (int)((late_seed >> 8 & 0x7fff) % 600), 0};
    if (pthread_create(&t->thread, NULL, late_thread, t) != 0) {
        return NULL; /* parallel.c: a NULL handle is not waited for; worker 0 does its blocks */
    }
    return t;
}

static void finish_late(void *user_task, void *user_context)
{
    (void)user_context;
    late_task *task = user_task;
    pthread_join(task->thread, NULL);
}

static void test_late_helpers_claim_nothing_twice(void **state)
{
    (void)state;
    static list_test t;
    ts_allocator a = ts_default_allocator();
    assert_true(ts_parallel_init(&t.parallel, &a));
    t.parallel.adapt = false;
    t.parallel.enqueue_task = enqueue_late;
    t.parallel.finish_task = finish_late;
    for (int workers = 2; workers <= 4; ++workers) {
        for (int step = 0; step < 20; ++step) {
            late_count = 0;
            reset(&t, 1 + step % 2);
            assert_ok(ts_parallel_run(&t.parallel, &a, workers, 8, body, &t));
            check(&t);
        }
    }
    ts_parallel_destroy(&t.parallel, &a);
}

/* Worker 0 pauses between lists, calling ts_parallel_expect before some
 * pauses and not others: pauses shorter and longer than the helpers' spins
 * (they sleep through the long ones unless expected), longer than the
 * expected window (they must sleep again, then still wake for the next
 * list), two calls in a row, and a call just before the step ends (the
 * helpers must still leave). */
static void pause_us(int us)
{
    struct timespec pause = {0, us * 1000L};
    nanosleep(&pause, NULL);
}

static ts_result expecting_body(void *context)
{
    list_test *t = context;
    const int pauses_us[4] = {5, 300, 3000, 0};
    int per_list = STAGES / t->lists;
    for (int l = 0; l < t->lists; ++l) {
        if (l % 2 == 1) {
            ts_parallel_expect(&t->parallel);
            ts_parallel_expect(&t->parallel);
        } else if (l % 4 == 2) {
            ts_parallel_expect(&t->parallel);
        }
        pause_us(pauses_us[l % 4]);
        ts_parallel_for_list(&t->parallel, t->defs + l * per_list, per_list, stage_done, t);
    }
    ts_parallel_expect(&t->parallel);
    return TS_OK;
}

static void test_expect_changes_no_run(void **state)
{
    (void)state;
    static list_test t;
    ts_allocator a = ts_default_allocator();
    assert_true(ts_parallel_init(&t.parallel, &a));
    t.parallel.adapt = false;
    for (int workers = 1; workers <= 4; ++workers) {
        for (int step = 0; step < 4; ++step) {
            reset(&t, 8);
            assert_ok(ts_parallel_run(&t.parallel, &a, workers, 8, expecting_body, &t));
            check(&t);
        }
    }
    ts_parallel_destroy(&t.parallel, &a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_block_once_in_order),
        cmocka_unit_test(test_late_helpers_claim_nothing_twice),
        cmocka_unit_test(test_expect_changes_no_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Threads: the world state after 300 steps is bitwise identical for 1, 2, 3,
 * 4 and 8 workers at every SIMD width, through OpenMP and through the task
 * callbacks (a small pthread pool written here), for three scenes of
 * shared/scenes.md: large_pyramid (B = 20, 210 boxes), a pile of 500 boxes
 * and spheres, and many_pyramids (G = 5, B = 5: 375 boxes; the small variant
 * G = 2, B = 3 has 24 boxes, fewer than a step needs before it uses helper
 * threads at all), and a joint_grid of 15 x 15 spheres (ball joints, solved
 * in the colours next to contacts) with each solver. Tolerance: none (the hash of every body's position,
 * rotation and velocities, and of every contact impulse, must be equal),
 * since every parallel stage writes only its own slots.
 *
 * The machine has 2 cores, so 3, 4 and 8 workers oversubscribe it: that also
 * checks that a step survives helpers that are descheduled mid-stage.
 * Under ThreadSanitizer (a CI job) the test runs fewer steps and workers. */
#include "test_common.h"

#include "api/world.h"

#include <pthread.h>
#include <time.h>

#if defined(__SANITIZE_THREAD__)
#define TS_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TS_TEST_TSAN 1
#endif
#endif

#ifdef TS_TEST_TSAN
#define STEPS 40
static const int thread_counts[] = {1, 2, 3}; /* 2: the paired colour passes (solver/pair_schedule.h) */
#else
#define STEPS 300
static const int thread_counts[] = {1, 2, 3, 4, 8};
#endif
#define THREAD_COUNTS ((int)(sizeof thread_counts / sizeof thread_counts[0]))

static const int widths[] = {1, 4, 8, 16};
#define WIDTHS 4

/* ---- a small thread pool behind the task callbacks ---- */

#define POOL_MAX_THREADS 8
#define POOL_MAX_TASKS 64

typedef struct pool_task {
    ts_task_fn *run;
    void *context;
    int32_t count;
    bool done;
} pool_task;

typedef struct pool {
    pthread_t threads[POOL_MAX_THREADS];
    int thread_count;
    pthread_mutex_t mutex;
    pthread_cond_t work;     /* a task was queued, or quit */
    pthread_cond_t finished; /* a task finished */
    pool_task tasks[POOL_MAX_TASKS];
    int queued, taken; /* tasks [taken, queued) wait; slots reused modulo POOL_MAX_TASKS */
    bool quit;
    int enqueued;       /* in all, to check that the callbacks were used */
    int late_us;        /* > 0: a thread waits up to this long (pseudo-random) before it runs a task */
    uint32_t late_seed; /* under the mutex */
} pool;

typedef struct pool_thread {
    pool *owner;
    uint32_t index;
} pool_thread;

static pool_thread pool_threads[POOL_MAX_THREADS];

static void *pool_main(void *argument)
{
    pool_thread *self = argument;
    pool *p = self->owner;
    pthread_mutex_lock(&p->mutex);
    for (;;) {
        while (p->taken == p->queued && !p->quit) {
            pthread_cond_wait(&p->work, &p->mutex);
        }
        if (p->taken == p->queued) {
            break;
        }
        pool_task *task = p->tasks + p->taken++ % POOL_MAX_TASKS;
        p->late_seed = p->late_seed * 1103515245u + 12345u;
        int late = p->late_us > 0 ? (int)((p->late_seed >> 8) % (uint32_t)p->late_us) : 0;
        pthread_mutex_unlock(&p->mutex);
        if (late > 0) {
            struct timespec pause = {0, (long)late * 1000L};
            nanosleep(&pause, NULL);
        }
        task->run(0, task->count, self->index, task->context);
        pthread_mutex_lock(&p->mutex);
        task->done = true;
        pthread_cond_broadcast(&p->finished);
    }
    pthread_mutex_unlock(&p->mutex);
    return NULL;
}

static void *pool_enqueue(ts_task_fn *run, int32_t item_count, int32_t min_range, void *task_context, void *user)
{
    (void)min_range;
    pool *p = user;
    pthread_mutex_lock(&p->mutex);
    pool_task *task = p->tasks + p->queued++ % POOL_MAX_TASKS;
    *task = (pool_task){run, task_context, item_count, false};
    p->enqueued += 1;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mutex);
    return task;
}

static void pool_finish(void *handle, void *user)
{
    pool *p = user;
    pool_task *task = handle;
    pthread_mutex_lock(&p->mutex);
    while (!task->done) {
        pthread_cond_wait(&p->finished, &p->mutex);
    }
    pthread_mutex_unlock(&p->mutex);
}

static void pool_start(pool *p, int threads)
{
    memset(p, 0, sizeof *p);
    p->thread_count = threads;
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->finished, NULL);
    for (int t = 0; t < threads; ++t) {
        pool_threads[t] = (pool_thread){p, (uint32_t)t};
        assert_int_equal(pthread_create(p->threads + t, NULL, pool_main, pool_threads + t), 0);
    }
}

static void pool_stop(pool *p)
{
    pthread_mutex_lock(&p->mutex);
    p->quit = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mutex);
    for (int t = 0; t < p->thread_count; ++t) {
        pthread_join(p->threads[t], NULL);
    }
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->finished);
    pthread_mutex_destroy(&p->mutex);
}

/* ---- scenes (shared/scenes.md) ---- */

#define MAX_BODIES 512

static ts_body_id dynamic_box(ts_world_id world, ts_vec3 p, ts_quat q, ts_vec3 half, float density)
{
    return test_box(world, TS_BODY_DYNAMIC, p, q, half, density);
}

/* large_pyramid, B = 20. */
static int build_large_pyramid(ts_world_id world, ts_body_id *ids)
{
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){400, 1, 400}, 1);
    const int base = 20;
    const float h = 0.5f;
    int n = 0;
    for (int r = 0; r < base; ++r) {
        for (int j = r; j < base; ++j) {
            ts_vec3 p = {(float)(r + 1) * h + 2.0f * (float)(j - r) * h - (float)base * h, (float)(2 * r + 1) * h, 0};
            ids[n++] = dynamic_box(world, p, TS_QUAT_IDENTITY, (ts_vec3){h, h, h}, 100);
        }
    }
    return n;
}

/* pile, N = 500 (test_common.h). */
static int build_pile(ts_world_id world, ts_body_id *ids)
{
    test_scenes_pile(world, 500, ids);
    return 500;
}

/* many_pyramids, G = 5, B = 5. */
static int build_many_pyramids(ts_world_id world, ts_body_id *ids)
{
    const int grid = 5, base = 5;
    const float e = 0.5f;
    const float extent = e * (float)grid * (float)(base + 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){extent, 1, extent}, 1);
    const float spacing = 2.0f * (extent - 2.0f * e) / (float)(grid - 1);
    int n = 0;
    for (int row = 0; row < grid; ++row) {
        for (int column = 0; column < grid; ++column) {
            float center_x = -extent + (float)column * (2.0f * e * (float)base + 2.0f * e) + 2.0f * e;
            float z = -extent + 2.0f * e + (float)row * spacing;
            for (int r = 0; r < base; ++r) {
                for (int j = r; j < base; ++j) {
                    ts_vec3 p = {(float)(r + 1) * e + 2.0f * (float)(j - r) * e + center_x - 0.5f,
                                 (float)(2 * r + 1) * e, z};
                    ids[n++] = dynamic_box(world, p, TS_QUAT_IDENTITY, (ts_vec3){e, e, e}, 100);
                }
            }
        }
    }
    return n;
}

/* joint_grid, S = 15: spheres joined by ball joints to the one above and the
 * one to the left, the top row static (210 dynamic bodies, 420 joints). */
static int build_joint_grid(ts_world_id world, ts_body_id *ids)
{
    const int side = 15;
    ts_body_id grid[15][15];
    int n = 0;
    for (int k = 0; k < side; ++k) {
        for (int i = 0; i < side; ++i) {
            ts_body_def def = ts_default_body_def();
            def.type = i == 0 ? TS_BODY_STATIC : TS_BODY_DYNAMIC;
            def.position = (ts_vec3){(float)k, -(float)i, 0};
            grid[k][i] = ts_create_body(world, &def);
            ts_shape_def shape = ts_default_shape_def();
            ts_sphere sphere = {0.4f};
            assert_false(ts_shape_id_is_null(ts_create_sphere_shape(grid[k][i], &shape, &sphere)));
            if (i > 0) {
                ids[n++] = grid[k][i];
            }
        }
    }
    for (int k = 0; k < side; ++k) {
        for (int i = 1; i < side; ++i) {
            ts_ball_joint_def up = ts_default_ball_joint_def();
            up.base.body_a = grid[k][i - 1];
            up.base.body_b = grid[k][i];
            up.base.local_frame_a.p = (ts_vec3){0, -0.5f, 0};
            up.base.local_frame_b.p = (ts_vec3){0, 0.5f, 0};
            assert_false(ts_joint_id_is_null(ts_create_ball_joint(world, &up)));
            if (k > 0) {
                ts_ball_joint_def left = ts_default_ball_joint_def();
                left.base.body_a = grid[k - 1][i];
                left.base.body_b = grid[k][i];
                left.base.local_frame_a.p = (ts_vec3){0.5f, 0, 0};
                left.base.local_frame_b.p = (ts_vec3){-0.5f, 0, 0};
                assert_false(ts_joint_id_is_null(ts_create_ball_joint(world, &left)));
            }
        }
    }
    return n;
}

/* pile, N = 500, every falling shape with restitution 0.6: the bounces
 * run the restitution pass over the colours, whose bundles at two workers
 * hold the paired order's empty lanes (contact_order.h). */
static int build_bouncing_pile(ts_world_id world, ts_body_id *ids)
{
    test_scenes_pile(world, 500, ids);
    for (int n = 0; n < 500; ++n) {
        ts_shape_id shape;
        int count = 0;
        assert_ok(ts_body_get_shapes(ids[n], &shape, 1, &count));
        assert_int_equal(count, 1);
        assert_ok(ts_shape_set_restitution(shape, 0.6f));
    }
    return 500;
}

typedef struct scene {
    const char *name;
    int (*build)(ts_world_id, ts_body_id *);
    ts_solver_type solver;
} scene;

static const scene scenes[] = {
    {"large_pyramid B=20", build_large_pyramid, TS_SOLVER_SOFT_STEP},
    {"pile N=500", build_pile, TS_SOLVER_SOFT_STEP},
    {"many_pyramids G=5 B=5", build_many_pyramids, TS_SOLVER_SOFT_STEP},
    {"joint_grid S=15", build_joint_grid, TS_SOLVER_SOFT_STEP},
    {"joint_grid S=15, XPBD", build_joint_grid, TS_SOLVER_XPBD},
    {"pile N=500, restitution 0.6", build_bouncing_pile, TS_SOLVER_SOFT_STEP},
};
#define SCENES 6

/* ---- running and hashing ---- */

static uint64_t state_hash(ts_world_id id, const ts_body_id *ids, int count)
{
    uint64_t h = test_hash_bodies(TEST_FNV_START, ids, count);
    const ts_world *world = ts_world_lookup(id, "test");
    const ts_contact_store *cs = &world->records.contact_store;
    h = test_fnv(h, cs->normal_impulse, sizeof(float) * 4 * (size_t)cs->table.count);
    h = test_fnv(h, cs->friction_impulse1, sizeof(float) * (size_t)cs->table.count);
    h = test_fnv(h, cs->friction_impulse2, sizeof(float) * (size_t)cs->table.count);
    return test_fnv(h, cs->twist_impulse, sizeof(float) * (size_t)cs->table.count);
}

/* Steps a scene STEPS times with `threads` workers (through the pool when
 * given) and returns the state hash. Sleeping is off, as scenes.md sets,
 * unless asked for. */
static uint64_t run_with_sleep(const scene *s, int width, int threads, pool *tasks, bool sleep)
{
    ts_world_def def = ts_default_world_def();
    def.solver = s->solver;
    def.simd_width = width;
    def.threads = threads;
    def.enable_sleep = sleep;
    if (tasks != NULL) {
        def.enqueue_task = pool_enqueue;
        def.finish_task = pool_finish;
        def.user_task_context = tasks;
    }
    ts_world_id id = ts_create_world(&def);
    assert_false(ts_world_id_is_null(id));
    /* Every step on every worker, even when the oversubscribed machine would
     * send steps to worker 0 alone (parallel.h), so that 3, 4 and 8 workers
     * are really exercised. */
    ts_world_lookup(id, "test")->parallel.adapt = false;
    /* and the tree's parallel paths (the sweep of moved shapes, the shared
     * enlarge and the refit by marker) at every step, which these small
     * scenes would not reach */
    ts_world_lookup(id, "test")->collision.broadphase.parallel_sweep_min = 1;
    ts_world_lookup(id, "test")->collision.broadphase.parallel_enlarge_min = 1;
    ts_body_id ids[MAX_BODIES];
    int n = s->build(id, ids);
    for (int i = 0; i < STEPS; ++i) {
        assert_ok(ts_world_step(id, 1.0f / 60.0f));
    }
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(id, &counters));
    assert_int_equal(counters.simd_width, width);
    if (sleep) {
        assert_true(counters.awake_body_count < n); /* the test did exercise sleeping */
    }
    assert_int_equal(counters.thread_count, threads);
    uint64_t h = state_hash(id, ids, n);
    assert_ok(ts_destroy_world(id));
    return h;
}

static uint64_t run(const scene *s, int width, int threads, pool *tasks)
{
    return run_with_sleep(s, width, threads, tasks, false);
}

static uint64_t reference_hash(int scene_index)
{
    static uint64_t cache[SCENES];
    if (cache[scene_index] == 0) {
        cache[scene_index] = run(scenes + scene_index, 1, 1, NULL);
    }
    return cache[scene_index];
}

static void expect_every_width_and_thread_count(pool *tasks, const char *runner)
{
    int widest = ts_default_world_def().simd_width; /* 0: resolved below */
    {
        ts_world_def def = ts_default_world_def();
        ts_world_id id = ts_create_world(&def);
        ts_world_counters counters;
        assert_ok(ts_world_get_counters(id, &counters));
        widest = counters.simd_width;
        assert_ok(ts_destroy_world(id));
    }
    for (int k = 0; k < SCENES; ++k) {
        uint64_t reference = reference_hash(k);
        for (int w = 0; w < WIDTHS; ++w) {
            if ((tasks != NULL && widths[w] != 1 && widths[w] != widest) || !test_width_built(widths[w])) {
                continue;
            }
            for (int t = 0; t < THREAD_COUNTS; ++t) {
                if (tasks != NULL && (thread_counts[t] == 1 || thread_counts[t] == 4)) {
                    continue; /* one worker never calls the callbacks; 4 adds little to 3 and 8 (time) */
                }
                uint64_t h = run(scenes + k, widths[w], thread_counts[t], tasks);
                if (h != reference) {
                    fail_msg("%s, width %d, %d workers (%s): state hash %016llx, on 1 worker at width 1 %016llx",
                             scenes[k].name, widths[w], thread_counts[t], runner, (unsigned long long)h,
                             (unsigned long long)reference);
                }
            }
        }
    }
}

/* OpenMP (or, in a build without it, one thread). */
static void test_same_state_for_every_thread_count(void **state)
{
    (void)state;
    expect_every_width_and_thread_count(NULL, "OpenMP");
}

/* The task callbacks, with a pool of 7 threads: every helper gets its own.
 * (Widths 1 and the widest and 2, 3 and 8 workers here, to keep the test
 * short: the runner does not change what a width computes, and the OpenMP
 * test covers every width and count.) */
static void test_task_callbacks_same_state(void **state)
{
    (void)state;
    pool p;
    pool_start(&p, 7);
    expect_every_width_and_thread_count(&p, "task callbacks");
    pool_stop(&p);
    assert_true(p.enqueued > 0);
}

/* A pool with one thread for up to 7 helpers: the helpers run late or one
 * after another; the calling thread does their blocks, and the state is the same. */
static void test_task_callbacks_with_fewer_pool_threads(void **state)
{
    (void)state;
    pool p;
    pool_start(&p, 1);
    for (int k = 0; k < SCENES; ++k) {
        uint64_t h = run(scenes + k, 1, thread_counts[THREAD_COUNTS - 1], &p);
        assert_true(h == reference_hash(k));
    }
    pool_stop(&p);
}

/* Helpers that start up to 1.5 ms late, at two workers: the paired colour
 * passes (solver/pair_schedule.h), where each worker waits for units of
 * the other, must take the late partner's units themselves and still give
 * the same state (and never hang). */
static void test_late_helpers_same_state(void **state)
{
    (void)state;
    pool p;
    pool_start(&p, 1);
    pthread_mutex_lock(&p.mutex);
    p.late_us = 1500;
    pthread_mutex_unlock(&p.mutex);
    for (int k = 0; k < SCENES; ++k) {
        assert_true(run(scenes + k, 1, 2, &p) == reference_hash(k));
    }
    pool_stop(&p);
    assert_true(p.enqueued > 0);
}

/* Sleeping on: the pyramids come to rest and their islands sleep within
 * the 300 steps (timers in a parallel stage, islands on worker 0); the
 * state is the same for every worker count. */
static void test_sleeping_same_state_for_every_thread_count(void **state)
{
    (void)state;
    const scene *s = scenes + 2;
    uint64_t reference = run_with_sleep(s, 1, 1, NULL, true);
    for (int t = 1; t < THREAD_COUNTS; ++t) {
        uint64_t h = run_with_sleep(s, test_wide_width(), thread_counts[t], NULL, true);
        if (h != reference) {
            fail_msg("%s with sleeping, %d workers: state hash %016llx, on 1 worker %016llx", s->name,
                     thread_counts[t], (unsigned long long)h, (unsigned long long)reference);
        }
    }
}

/* A plate carrying 64 boxes: its contacts need more colours than there are
 * (a colour holds a body once), so 40-odd of them go to the overflow set,
 * which is solved in order on worker 0. That order must not depend on the
 * worker count (the colours' order does, for locality: contact_order.h), or
 * the bodies on the plate would end at other bits on 2 workers than on 1. */
static uint64_t run_plate(int width, int threads)
{
    ts_world_id world = test_world_at_width(width, threads);
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){20, 1, 20}, 1.0f);
    ts_body_id ids[65];
    for (int i = 0; i < 64; ++i) {
        int cell = i * 37 % 64; /* body slots scattered over the plate: its contacts' order mixes both halves */
        ts_vec3 p = {-7.0f + 2.0f * (float)(cell % 8), 0.9f, -7.0f + 2.0f * (float)(cell / 8)};
        ids[i] = test_box(world, TS_BODY_DYNAMIC, p, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
    }
    ids[64] = test_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 0.2f, 0}, TS_QUAT_IDENTITY, (ts_vec3){9, 0.2f, 9}, 1.0f);
    int overflow = 0;
    for (int step = 0; step < 60; ++step) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        ts_world_counters counters;
        assert_ok(ts_world_get_counters(world, &counters));
        overflow = counters.overflow_count > overflow ? counters.overflow_count : overflow;
    }
    assert_true(overflow > 0); /* the case this test is about */
    uint64_t h = test_hash_bodies(TEST_FNV_START, ids, 65);
    assert_ok(ts_destroy_world(world));
    return h;
}

static void test_overflow_same_state_for_every_thread_count(void **state)
{
    (void)state;
    uint64_t reference = run_plate(1, 1);
    for (int w = 0; w < WIDTHS; ++w) {
        if (!test_width_built(widths[w])) {
            continue;
        }
        for (int t = 0; t < THREAD_COUNTS; ++t) {
            uint64_t h = run_plate(widths[w], thread_counts[t]);
            if (h != reference) {
                fail_msg("plate with overflow, width %d, %d workers: hash %016llx, on 1 worker at width 1 %016llx",
                         widths[w], thread_counts[t], (unsigned long long)h, (unsigned long long)reference);
            }
        }
    }
}

/* ts_world_set_threads between steps changes nothing in the result. */
static void test_set_threads_between_steps(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    def.simd_width = 1;
    def.threads = 1;
    def.enable_sleep = false;
    ts_world_id id = ts_create_world(&def);
    ts_world_lookup(id, "test")->parallel.adapt = false;
    ts_body_id ids[MAX_BODIES];
    int n = build_large_pyramid(id, ids);
    for (int i = 0; i < STEPS; ++i) {
        assert_ok(ts_world_set_threads(id, 1 + i % 4));
        assert_ok(ts_world_step(id, 1.0f / 60.0f));
    }
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(id, &counters));
    assert_int_equal(counters.thread_count, 1 + (STEPS - 1) % 4);
    assert_true(state_hash(id, ids, n) == reference_hash(0));
    assert_ok(ts_world_set_threads(id, 0));
    assert_ok(ts_world_get_counters(id, &counters));
    assert_true(counters.thread_count >= 1);
    assert_ok(ts_destroy_world(id));
}

/* ---- bad input ---- */

/* ts_world_set_threads outside 0..256 is refused with TS_ERROR_OUT_OF_RANGE
 * naming "threads", and the count stays; a stale world id gives TS_ERROR_STALE_ID. */
static void test_set_threads_out_of_range(void **state)
{
    (void)state;
    ts_world_id id = test_world(4, 2);
    int bad[] = {-1, 257, 1 << 30};
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(ts_world_set_threads(id, bad[i]), TS_ERROR_OUT_OF_RANGE);
        assert_non_null(strstr(ts_last_error(), "ts_world_set_threads"));
        assert_non_null(strstr(ts_last_error(), "threads"));
    }
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(id, &counters));
    assert_int_equal(counters.thread_count, 2);
    assert_ok(ts_destroy_world(id));
    assert_int_equal(ts_world_set_threads(id, 1), TS_ERROR_STALE_ID);
}

/* One task callback without the other: no world, TS_ERROR_NULL_POINTER naming both. */
static void test_half_a_task_system_is_refused(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    def.enqueue_task = pool_enqueue;
    assert_true(ts_world_id_is_null(ts_create_world(&def)));
    assert_non_null(strstr(ts_last_error(), "enqueue_task"));
    def = ts_default_world_def();
    def.finish_task = pool_finish;
    assert_true(ts_world_id_is_null(ts_create_world(&def)));
    assert_non_null(strstr(ts_last_error(), "finish_task"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_state_for_every_thread_count),
        cmocka_unit_test(test_task_callbacks_same_state),
        cmocka_unit_test(test_task_callbacks_with_fewer_pool_threads),
        cmocka_unit_test(test_late_helpers_same_state),
        cmocka_unit_test(test_sleeping_same_state_for_every_thread_count),
        cmocka_unit_test(test_overflow_same_state_for_every_thread_count),
        cmocka_unit_test(test_set_threads_between_steps),
        cmocka_unit_test(test_set_threads_out_of_range),
        cmocka_unit_test(test_half_a_task_system_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

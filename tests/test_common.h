/* Includes and small helpers shared by the cmocka test files. */
#ifndef TS_TEST_COMMON_H
#define TS_TEST_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/tessera.h"

/* |actual - expected| <= tolerance, with both values in the failure message. */
#define assert_near(actual, expected, tolerance)                                                               \
    do {                                                                                                       \
        double a_ = (double)(actual), e_ = (double)(expected), t_ = (double)(tolerance);                      \
        if (!(fabs(a_ - e_) <= t_)) {                                                                          \
            fail_msg("%s = %.9g, expected %.9g within %.3g", #actual, a_, e_, t_);                            \
        }                                                                                                      \
    } while (0)

#define assert_ok(call)                                                                                        \
    do {                                                                                                       \
        ts_result r_ = (call);                                                                                 \
        if (r_ != TS_OK) {                                                                                     \
            fail_msg("%s returned %s: %s", #call, ts_result_name(r_), ts_last_error());                       \
        }                                                                                                      \
    } while (0)

/* The sanitizer jobs of scripts/test.sh set TESSERA_TEST_MAX_STEPS (120):
 * there a test may shorten the loops whose extra rounds a sanitizer learns
 * nothing from (more of the same single-threaded work, or more random
 * operations of the kinds already done). The default build runs every test
 * at full size, with every assertion; the short runs keep every assertion
 * kind too, on less work. */
static inline bool test_short_run(void) { return getenv("TESSERA_TEST_MAX_STEPS") != NULL; }

/* An allocator that counts what the world takes and returns (tests of "no
 * allocation once warmed up"); fail_after >= 0 makes it return NULL after
 * that many allocations. Start it as (counting_allocator){0, 0, 0, -1}. */
typedef struct counting_allocator {
    long allocations;
    long frees;
    long bytes_live;
    long fail_after; /* allocations allowed before NULL is returned; -1 = never fail */
} counting_allocator;

static inline void *counting_alloc(size_t size, size_t alignment, void *context)
{
    counting_allocator *c = context;
    if (c->fail_after >= 0 && c->allocations >= c->fail_after) {
        return NULL;
    }
    assert_true(alignment == 64 && size % alignment == 0);
    c->allocations += 1;
    c->bytes_live += (long)size;
    return aligned_alloc(alignment, size);
}

static inline void counting_free(void *memory, size_t size, void *context)
{
    counting_allocator *c = context;
    c->frees += 1;
    c->bytes_live -= (long)size;
    free(memory);
}

/* xorshift32: a fixed-seed generator, so random scenes are the same every run. */
static inline uint32_t next_random(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

/* A body of one box shape (friction 0.6, restitution 0 unless set later). */
static inline ts_body_id test_box(ts_world_id world, ts_body_type type, ts_vec3 p, ts_quat q, ts_vec3 half,
                                  float density)
{
    ts_body_def def = ts_default_body_def();
    def.type = type;
    def.position = p;
    def.rotation = q;
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    shape.density = density;
    ts_box box = {half};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)));
    return body;
}

static inline ts_world_id test_world(int substeps, int threads)
{
    ts_world_def def = ts_default_world_def();
    def.substeps = substeps;
    def.threads = threads;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    return world;
}

/* A default world at a SIMD width (0: the widest built) on threads. */
static inline ts_world_id test_world_at_width(int width, int threads)
{
    ts_world_def def = ts_default_world_def();
    def.simd_width = width;
    def.threads = threads;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    return world;
}

/* A static ground (top at y = 0) and 27 boxes of 0.9 m dropped in a
 * 3 x 3 x 3 grid, each layer shifted 0.1 m in x so that they tumble: a
 * small pile for the tests of what a step reports. */
static inline void test_drop_small_pile(ts_world_id world)
{
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){10, 1, 10}, 1.0f);
    for (int i = 0; i < 27; ++i) {
        ts_vec3 p = {(float)(i % 3) * 1.1f + 0.1f * (float)(i / 9), 1.0f + 1.2f * (float)(i / 9), (float)(i / 3 % 3)};
        test_box(world, TS_BODY_DYNAMIC, p, TS_QUAT_IDENTITY, (ts_vec3){0.45f, 0.45f, 0.45f}, 1.0f);
    }
}

/* scenes.md's pile at N = count: unit boxes (rotated to land on edges) and
 * spheres of radius 0.5 from a 10 x 10 lattice (layers 1.5 m apart from
 * y = 2) into a walled bin on the ground; the dynamic bodies' ids go to ids
 * (may be NULL), in creation order: layer by layer. */
static inline void test_scenes_pile(ts_world_id world, int count, ts_body_id *ids)
{
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){200, 1, 200}, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){10.5f, 10, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 10, 10}, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){-10.5f, 10, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 10, 10}, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, 10, 10.5f}, TS_QUAT_IDENTITY, (ts_vec3){10, 10, 0.5f}, 1);
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, 10, -10.5f}, TS_QUAT_IDENTITY, (ts_vec3){10, 10, 0.5f}, 1);
    for (int n = 0; n < count; ++n) {
        int i = n % 10, k = (n / 10) % 10, layer = n / 100;
        ts_vec3 p = {((float)i - 4.5f) * 1.5f, 2.0f + 1.5f * (float)layer, ((float)k - 4.5f) * 1.5f};
        ts_body_id body;
        if (n % 2 == 0) {
            float a = 0.37f * (float)n, s = sinf(0.5f * a) * 0.57735027f;
            body = test_box(world, TS_BODY_DYNAMIC, p, (ts_quat){s, s, s, cosf(0.5f * a)}, (ts_vec3){0.5f, 0.5f, 0.5f},
                            1);
        } else {
            ts_body_def def = ts_default_body_def();
            def.type = TS_BODY_DYNAMIC;
            def.position = p;
            body = ts_create_body(world, &def);
            ts_shape_def shape = ts_default_shape_def();
            ts_sphere sphere = {0.5f};
            assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &shape, &sphere)));
        }
        if (ids != NULL) {
            ids[n] = body;
        }
    }
}

/* Whether a body's pose and velocities, read through the getters, are all
 * finite. */
static inline bool test_body_is_finite(ts_body_id body)
{
    ts_transform t;
    ts_vec3 v, w;
    assert_ok(ts_body_get_transform(body, &t));
    assert_ok(ts_body_get_linear_velocity(body, &v));
    assert_ok(ts_body_get_angular_velocity(body, &w));
    const float values[] = {t.p.x, t.p.y, t.p.z, t.q.x, t.q.y, t.q.z, t.q.w, v.x, v.y, v.z, w.x, w.y, w.z};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
        if (!isfinite(values[i])) {
            return false;
        }
    }
    return true;
}

/* Whether this build has SIMD width `width` (-DTESSERA_WIDTHS): a world
 * of that width can be made. */
static inline bool test_width_built(int width)
{
    ts_world_def def = ts_default_world_def();
    def.simd_width = width;
    ts_world_id world = ts_create_world(&def);
    if (ts_world_id_is_null(world)) {
        return false;
    }
    assert_int_equal(ts_destroy_world(world), TS_OK);
    return true;
}

/* A width above 1 that this build has (8 if built, else 16, else 4), else 1. */
static inline int test_wide_width(void)
{
    return test_width_built(8) ? 8 : test_width_built(16) ? 16 : test_width_built(4) ? 4 : 1;
}

/* The width to run for an entry (width, threads) of a comparison with
 * width 1 on one thread: the width when built; else width 1 when the entry
 * has several threads (its thread count is still compared), else 0: skip
 * the entry. CI's ThreadSanitizer build has widths 1 and 16 only. */
static inline int test_entry_width(int width, int threads)
{
    if (test_width_built(width)) {
        return width;
    }
    return threads > 1 ? 1 : 0;
}

/* A run of a scene that lists something a step reports (on) or not (off):
 * returns the hash of the lists and sets *state_hash to the world's. */
typedef uint64_t test_report_run(int width, int threads, bool on, uint64_t *state_hash);

/* What a report must be: the same list hash at every built width on 1 and
 * 2 threads, and the same world state hash as with the report off (a
 * report only reads the step). */
static inline void test_report_same_everywhere(test_report_run *run)
{
    uint64_t plain;
    run(1, 1, false, &plain);
    uint64_t first = 0;
    const int widths[4] = {1, 4, 8, 16};
    for (int w = 0; w < 4; ++w) {
        for (int threads = 1; threads <= 2; ++threads) {
            int width = test_entry_width(widths[w], threads);
            if (width == 0) {
                continue;
            }
            uint64_t state_hash;
            uint64_t h = run(width, threads, true, &state_hash);
            if (w == 0 && threads == 1) {
                first = h;
            }
            assert_true(h == first);
            assert_true(state_hash == plain);
        }
    }
}

static inline ts_body_id test_dynamic_body(ts_world_id world, ts_vec3 position)
{
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.position = position;
    ts_body_id body = ts_create_body(world, &def);
    assert_false(ts_body_id_is_null(body));
    return body;
}

/* FNV-1a over bytes, for the determinism tests' state hashes: start from
 * TEST_FNV_START and feed the pieces in a fixed order. */
#define TEST_FNV_START 1469598103934665603ull

static inline uint64_t test_fnv(uint64_t h, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < size; ++i) {
        h = (h ^ bytes[i]) * 1099511628211ull;
    }
    return h;
}

/* h extended by the transform and the velocities of each body, in order. */
static inline uint64_t test_hash_bodies(uint64_t h, const ts_body_id *ids, int count)
{
    for (int i = 0; i < count; ++i) {
        ts_transform t;
        ts_vec3 v, w;
        assert_int_equal(ts_body_get_transform(ids[i], &t), TS_OK);
        assert_int_equal(ts_body_get_linear_velocity(ids[i], &v), TS_OK);
        assert_int_equal(ts_body_get_angular_velocity(ids[i], &w), TS_OK);
        h = test_fnv(h, &t, sizeof t);
        h = test_fnv(h, &v, sizeof v);
        h = test_fnv(h, &w, sizeof w);
    }
    return h;
}

/* The arguments of the tests run for both solvers: [soft_step|xpbd]
 * [substeps]. Returns false (after a usage line) on anything else. */
static inline bool test_solver_args(int argc, char **argv, const char *program, ts_solver_type *solver, int *substeps)
{
    if (argc > 1) {
        if (strcmp(argv[1], "xpbd") == 0) {
            *solver = TS_SOLVER_XPBD;
        } else if (strcmp(argv[1], "soft_step") != 0) {
            fprintf(stderr, "usage: %s [soft_step|xpbd] [substeps]\n", program);
            return false;
        }
    }
    if (argc > 2) {
        *substeps = atoi(argv[2]);
        if (*substeps < 1 || *substeps > 64) {
            fprintf(stderr, "substeps must be 1..64\n");
            return false;
        }
    }
    return true;
}

#endif

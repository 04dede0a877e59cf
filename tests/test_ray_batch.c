/* Batched rays (ts_world_cast_rays) against single rays (ts_world_cast_ray):
 * the same hit, bit for bit, for every ray, on 1 and 2 threads and at every
 * SIMD width. The scene mixes every shape type on static and moving bodies,
 * compounds, a sensor and a small pyramid of boxes touching face to face
 * (rays along the shared faces tie between neighbours: the tie rule must
 * pick the same shape in both paths); the rays include axis-parallel ones
 * (the parallel-axis slab path), rays starting inside shapes and misses. */
#include "test_common.h"

#define RAY_COUNT 6000

static float frand(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)(next_random(state) >> 8) * (1.0f / 16777216.0f);
}

static void add_body(ts_world_id world, uint32_t *state, ts_body_type type, int i)
{
    ts_body_def bd = ts_default_body_def();
    bd.type = type;
    bd.position = (ts_vec3){frand(state, -12, 12), frand(state, 1, 14), frand(state, -12, 12)};
    float angle = frand(state, 0, 3.0f);
    bd.rotation = (ts_quat){0.6f * sinf(angle), 0.0f, 0.8f * sinf(angle), cosf(angle)};
    if (type == TS_BODY_KINEMATIC) {
        bd.linear_velocity = (ts_vec3){1, 0, 0};
    }
    ts_body_id body = ts_create_body(world, &bd);
    ts_shape_def sd = ts_default_shape_def();
    for (int k = 0; k <= i % 3; ++k) { /* compounds of 1 to 3 shapes */
        sd.local_position = (ts_vec3){1.2f * (float)k, 0, 0};
        sd.is_sensor = i % 17 == 5 && k == 0;
        switch ((i + k) % 3) {
        case 0: ts_create_sphere_shape(body, &sd, &(ts_sphere){frand(state, 0.2f, 0.8f)}); break;
        case 1:
            ts_create_box_shape(body, &sd,
                                &(ts_box){{frand(state, 0.2f, 0.8f), frand(state, 0.2f, 0.8f), frand(state, 0.2f, 0.8f)}});
            break;
        default: ts_create_capsule_shape(body, &sd, &(ts_capsule){frand(state, 0.0f, 0.8f), frand(state, 0.2f, 0.5f)});
        }
    }
}

static ts_world_id make_scene(int width, int threads)
{
    ts_world_def def = ts_default_world_def();
    def.simd_width = width;
    def.threads = threads;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    test_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){40, 1, 40}, 1.0f);
    /* a pyramid of base 8 at z = 20, boxes touching face to face (static, so
     * their tree boxes are exact) */
    for (int row = 0; row < 8; ++row) {
        for (int j = row; j < 8; ++j) {
            ts_vec3 p = {(float)(row + 1) * 0.5f + (float)(j - row) - 4.0f, 0.5f + (float)row, 20.0f};
            test_box(world, TS_BODY_STATIC, p, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 0.5f, 0.5f}, 1.0f);
        }
    }
    uint32_t state = 777u;
    for (int i = 0; i < 150; ++i) {
        add_body(world, &state, i % 5 == 0 ? TS_BODY_STATIC : (i % 7 == 0 ? TS_BODY_KINEMATIC : TS_BODY_DYNAMIC), i);
    }
    for (int s = 0; s < 20; ++s) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    return world;
}

typedef struct rays {
    ts_vec3 origins[RAY_COUNT];
    ts_vec3 directions[RAY_COUNT];
    float lengths[RAY_COUNT];
} rays;

static void make_rays(rays *r)
{
    uint32_t state = 4242u;
    for (int i = 0; i < RAY_COUNT; ++i) {
        ts_vec3 o = {frand(&state, -20, 20), frand(&state, -2, 20), frand(&state, -20, 25)};
        ts_vec3 t = {frand(&state, -12, 12), frand(&state, 0, 14), frand(&state, -12, 22)};
        ts_vec3 d = {t.x - o.x, t.y - o.y, t.z - o.z};
        switch (i % 6) {
        case 1: d = (ts_vec3){0, -1, 0}; break;                       /* straight down: two parallel axes */
        case 2: d = (ts_vec3){d.x, 0, d.z}; break;                    /* horizontal: one parallel axis */
        case 3: o = (ts_vec3){frand(&state, -4, 4), frand(&state, 0, 8), 19.5f}; /* along the pyramid's face plane */
            d = (ts_vec3){i % 4 == 0 ? 1.0f : -1.0f, 0, 0};
            break;
        case 4: o.y = (float)(i % 9) + 0.5f; o.z = 20.0f; d = (ts_vec3){1, 0.0f, 0.3f}; break; /* from inside rows */
        default: break;
        }
        r->origins[i] = o;
        r->directions[i] = d;
        r->lengths[i] = frand(&state, 5, 60);
    }
}

/* Every field the same, floats bit for bit (ids by index and generation:
 * the worlds compared are different worlds). */
static void assert_same_hit(const ts_cast_hit *a, const ts_cast_hit *b, int i)
{
    if (a->hit != b->hit || a->shape.index1 != b->shape.index1 || a->shape.generation != b->shape.generation ||
        a->body.index1 != b->body.index1 || a->body.generation != b->body.generation ||
        memcmp(&a->point, &b->point, sizeof a->point) != 0 ||
        memcmp(&a->normal, &b->normal, sizeof a->normal) != 0 ||
        memcmp(&a->fraction, &b->fraction, sizeof a->fraction) != 0) {
        fail_msg("ray %d: hit %d shape %d fraction %.9g normal (%g %g %g) vs hit %d shape %d fraction %.9g normal (%g %g %g)",
                 i, a->hit, a->shape.index1, (double)a->fraction, (double)a->normal.x, (double)a->normal.y,
                 (double)a->normal.z, b->hit, b->shape.index1, (double)b->fraction, (double)b->normal.x,
                 (double)b->normal.y, (double)b->normal.z);
    }
}

static bool skip_odd_shapes(ts_shape_id shape, void *context)
{
    (void)context;
    return shape.index1 % 2 == 0;
}

/* For widths 1, 4, 8, 16 and 1 and 2 threads: batched hits equal single
 * hits, with the default filter and with a mask and callback filter. Also
 * checks that the scene hits plenty (not a test of empty space). */
static void test_batch_equals_single(void **state)
{
    (void)state;
    static rays r;
    make_rays(&r);
    static ts_cast_hit single[RAY_COUNT], batch[RAY_COUNT];
    ts_query_filter filters[2] = {ts_default_query_filter(), ts_default_query_filter()};
    filters[1].fn = skip_odd_shapes;
    const int widths[4] = {1, 4, 8, 16};
    for (int f = 0; f < 2; ++f) {
        ts_world_id reference = make_scene(1, 1);
        int hits = 0;
        for (int i = 0; i < RAY_COUNT; ++i) {
            assert_ok(ts_world_cast_ray(reference, r.origins[i], r.directions[i], r.lengths[i], filters + f,
                                        single + i));
            hits += single[i].hit;
        }
        printf("filter %d: %d of %d rays hit\n", f, hits, RAY_COUNT);
        assert_true(hits > RAY_COUNT / 8);
        ts_destroy_world(reference);
        for (int w = 0; w < 4; ++w) {
            for (int threads = 1; threads <= 2; ++threads) {
                if (test_entry_width(widths[w], threads) == 0) {
                    continue;
                }
                ts_world_id world = make_scene(test_entry_width(widths[w], threads), threads);
                memset(batch, 0xAB, sizeof batch);
                assert_ok(ts_world_cast_rays(world, r.origins, r.directions, r.lengths, RAY_COUNT, filters + f, batch));
                for (int i = 0; i < RAY_COUNT; ++i) {
                    assert_same_hit(single + i, batch + i, i);
                }
                ts_destroy_world(world);
            }
        }
    }
}

/* A batch smaller than an eighth of the shapes goes ray by ray through the
 * binary trees: the same hits again; an empty batch writes nothing. */
static void test_small_batch(void **state)
{
    (void)state;
    static rays r;
    make_rays(&r);
    ts_world_id world = make_scene(test_wide_width(), 2);
    ts_cast_hit hits[10], one;
    assert_ok(ts_world_cast_rays(world, r.origins, r.directions, r.lengths, 10, NULL, hits));
    for (int i = 0; i < 10; ++i) {
        assert_ok(ts_world_cast_ray(world, r.origins[i], r.directions[i], r.lengths[i], NULL, &one));
        assert_same_hit(&one, hits + i, i);
    }
    assert_ok(ts_world_cast_rays(world, NULL, NULL, NULL, 0, NULL, NULL));
    ts_destroy_world(world);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_equals_single),
        cmocka_unit_test(test_small_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

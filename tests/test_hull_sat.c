/* The hull separating axis test skips faces and edge pairs by a bound
 * (collide_hull.c, collide_hull_edges.c): the skipped ones provably cannot
 * change its answer. These tests hold the skipping versions to the plain
 * loops over every face and every edge pair, bit for bit, on random hull
 * pairs at random poses from deep overlap to apart. Exact equality is the
 * claim (the same features, the same floats), so no tolerance. */
#include "test_common.h"

#include "collide/collide_hull.h"
#include "collide/hull_build.h"

#define MARGIN TS_SPECULATIVE_DISTANCE

static ts_hull_data *make_hull(const ts_vec3 *points, int count)
{
    ts_hull_topology t;
    assert_ok(ts_hull_compute(points, count, &t, "test"));
    void *memory = aligned_alloc(64, ts_hull_block_size(&t));
    return (ts_hull_data *)ts_hull_write(&t, 0, memory);
}

static float unit_draw(uint32_t *seed) { return (float)(next_random(seed) & 0xffff) / 65535.0f; }

/* count points on a sphere of radius r (uniform in the cube by rejection, pushed out) */
static void sphere_points(ts_vec3 *out, int count, float r, uint32_t seed)
{
    for (int i = 0; i < count;) {
        ts_vec3 p = {unit_draw(&seed) - 0.5f, unit_draw(&seed) - 0.5f, unit_draw(&seed) - 0.5f};
        float len = sqrtf(ts_dot(p, p));
        if (len > 0.05f && len <= 0.5f) {
            out[i++] = ts_scale(r / len, p);
        }
    }
}

static ts_vec3 random_unit(uint32_t *seed)
{
    for (;;) {
        ts_vec3 p = {2.0f * unit_draw(seed) - 1.0f, 2.0f * unit_draw(seed) - 1.0f, 2.0f * unit_draw(seed) - 1.0f};
        float len = sqrtf(ts_dot(p, p));
        if (len > 0.1f && len <= 1.0f) {
            return ts_scale(1.0f / len, p);
        }
    }
}

/* The plain face loop: every face of A, min over B's vertices in A's frame
 * (placed as the narrowphase places them: R v + t in that order), the first
 * face of largest separation, stopping at one above the margin. */
static tsn_sat_result all_faces(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t,
                                float margin)
{
    tsn_sat_result q = {-FLT_MAX, -1, -1, {0.0f, 0.0f, 0.0f}, true};
    for (int f = 0; f < a->face_count; ++f) {
        ts_plane pl = a->planes[f];
        float low = FLT_MAX;
        for (int i = 0; i < b->vertex_count; ++i) {
            ts_vec3 y = ts_add(tsn_mul_mv(r, b->vertices[i]), t);
            float d = (pl.normal.x * y.x + pl.normal.y * y.y) + pl.normal.z * y.z;
            low = d < low ? d : low;
        }
        float sep = low - pl.offset;
        if (sep > q.separation) {
            q.separation = sep;
            q.index_a = f;
            if (sep > margin) {
                break;
            }
        }
    }
    return q;
}

typedef struct pair_counts {
    int faces;       /* face queries compared */
    int edges_above; /* edge queries whose best pair lay above the floor (must match) */
    int edges_below; /* ... below it (the skipping one may find less, never more) */
} pair_counts;

/* Both queries of A against B at one pose, against the plain loops. */
static void check_pose(const ts_hull_data *a, const ts_hull_data *b, ts_transform xa, ts_transform xb,
                       pair_counts *counts)
{
    tsn_mat3 ra = tsn_mat3_from_quat(xa.q), rb = tsn_mat3_from_quat(xb.q);
    tsn_mat3 r = tsn_mul_tm(&ra, &rb);
    ts_vec3 t = tsn_mul_tv(&ra, ts_sub(xb.p, xa.p));
    const float margins[2] = {MARGIN, FLT_MAX};
    for (int k = 0; k < 2; ++k) {
        tsn_sat_result fast = tsn_hull_query_faces(a, b, &r, t, margins[k]);
        tsn_sat_result slow = all_faces(a, b, &r, t, margins[k]);
        assert_int_equal(fast.index_a, slow.index_a);
        assert_true(fast.separation == slow.separation);
        counts->faces++;
    }
    tsn_sat_result full = tsn_hull_query_edges(a, b, &r, t);
    float base = full.valid ? full.separation : 0.0f;
    const float floors[6] = {-1.0f, -0.1f, 0.0f, MARGIN, base - 0.001f, base};
    for (int k = 0; k < 6; ++k) {
        tsn_sat_result near = tsn_hull_query_edges_above(a, b, &r, t, floors[k]);
        if (full.valid && full.separation > floors[k]) {
            assert_true(near.valid);
            assert_true(near.separation == full.separation);
            assert_int_equal(near.index_a, full.index_a);
            assert_int_equal(near.index_b, full.index_b);
            assert_true(near.normal.x == full.normal.x && near.normal.y == full.normal.y &&
                        near.normal.z == full.normal.z);
            counts->edges_above++;
        } else {
            /* a subset of the pairs: nothing above the floor, nothing the full loop lacks */
            assert_true(!near.valid || (full.valid && near.separation <= full.separation));
            counts->edges_below++;
        }
    }
}

/* Random poses of A and B, B placed along a random direction at a centre
 * distance from 0.4 to 1.1 times the sum of their radii (deep overlap to
 * apart), both turned at random. */
static void check_pairs(const ts_hull_data *a, const ts_hull_data *b, int poses, uint32_t seed, pair_counts *counts)
{
    for (int i = 0; i < poses; ++i) {
        ts_transform xa = {{unit_draw(&seed), unit_draw(&seed), unit_draw(&seed)},
                           ts_quat_from_axis_angle(random_unit(&seed), 6.2831853f * unit_draw(&seed))};
        float reach = (0.4f + 0.7f * unit_draw(&seed)) * (a->radius + b->radius);
        ts_transform xb = {ts_mul_add(xa.p, reach, random_unit(&seed)),
                           ts_quat_from_axis_angle(random_unit(&seed), 6.2831853f * unit_draw(&seed))};
        check_pose(a, b, xa, xb, counts);
        check_pose(b, a, xb, xa, counts);
    }
}

/* convex_pile's kind of hull (32 points on a 2 m sphere) against another,
 * against a hull of 12 points, against a cube and a ground-like flat box. */
static void test_skipping_queries_equal_full_loops(void **state)
{
    (void)state;
    ts_vec3 p32[32], p12[12];
    sphere_points(p32, 32, 2.0f, 42u);
    sphere_points(p12, 12, 0.7f, 7u);
    ts_hull_data *big = make_hull(p32, 32);
    ts_hull_data *small = make_hull(p12, 12);
    ts_box_hull cube, slab;
    ts_make_box_hull((ts_vec3){0.5f, 0.5f, 0.5f}, &cube);
    ts_make_box_hull((ts_vec3){6.0f, 0.5f, 6.0f}, &slab);
    pair_counts counts = {0, 0, 0};
    check_pairs(big, big, 150, 1u, &counts);
    check_pairs(big, small, 100, 2u, &counts);
    check_pairs(&cube.hull, big, 100, 3u, &counts);
    check_pairs(&slab.hull, small, 60, 4u, &counts);
    /* both branches of the edge check were taken, many times */
    assert_true(counts.edges_above > 500);
    assert_true(counts.edges_below > 500);
    free(big);
    free(small);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skipping_queries_equal_full_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

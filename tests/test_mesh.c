/* Static triangle meshes and heightfields (tessera/shapes.h): bad input is
 * refused with the argument named and the body unchanged; a box slides
 * across a flat mesh of many triangles without bumping at their shared
 * edges; a sphere rolling over a heightfield keeps to its surface. */
#include "test_common.h"

#include <string.h>

/* Counts the body's shapes (0 after every refused create call). */
static int shape_count(ts_body_id body)
{
    int count = -1;
    assert_ok(ts_body_get_shapes(body, NULL, 0, &count));
    return count;
}

static ts_body_id static_body(ts_world_id world)
{
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_STATIC;
    ts_body_id body = ts_create_body(world, &def);
    assert_false(ts_body_id_is_null(body));
    return body;
}

/* A flat grid of n x n cells of `cell` metres in the plane y = 0 from
 * (x0, z0), two triangles per cell facing +y: (n + 1)^2 vertices. */
static void flat_grid(int n, float cell, float x0, float z0, ts_vec3 *vertices, int32_t *indices)
{
    for (int k = 0; k <= n; ++k) {
        for (int i = 0; i <= n; ++i) {
            vertices[k * (n + 1) + i] = (ts_vec3){x0 + cell * (float)i, 0.0f, z0 + cell * (float)k};
        }
    }
    int t = 0;
    for (int k = 0; k < n; ++k) {
        for (int i = 0; i < n; ++i) {
            int32_t v00 = k * (n + 1) + i, v10 = v00 + 1, v01 = v00 + n + 1, v11 = v01 + 1;
            /* counter-clockwise seen from above: (v01 - v00) x (v11 - v00) points up */
            int32_t tris[6] = {v00, v01, v11, v00, v11, v10};
            memcpy(&indices[t], tris, sizeof(tris));
            t += 6;
        }
    }
}

/* ------------------------------------------------------------ bad input */

/* One refused mesh: the message names `words`, no shape was added. */
static void expect_mesh_error(ts_body_id body, const ts_mesh_def *mesh, const char *words)
{
    ts_shape_def def = ts_default_shape_def();
    assert_true(ts_shape_id_is_null(ts_create_mesh_shape(body, &def, mesh)));
    if (strstr(ts_last_error(), words) == NULL) {
        fail_msg("expected \"%s\" in: %s", words, ts_last_error());
    }
    assert_int_equal(shape_count(body), 0);
}

/* Every bad mesh of the issue: NULL arrays, too few vertices or triangles,
 * a NaN vertex, an index out of range, a zero-area triangle, a dynamic body. */
static void test_bad_meshes(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = static_body(world);
    ts_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {2, 0, 0}};
    int32_t good[3] = {0, 2, 1};
    int32_t out_of_range[3] = {0, 2, 4};
    int32_t negative[3] = {0, -1, 1};
    int32_t collinear[3] = {0, 1, 3}; /* three points on the x axis: zero area */
    int32_t repeated[3] = {0, 0, 1};
    ts_vec3 nan_v[3] = {{0, 0, 0}, {1, NAN, 0}, {0, 0, 1}};

    ts_shape_def def = ts_default_shape_def();
    assert_true(ts_shape_id_is_null(ts_create_mesh_shape(body, &def, NULL)));
    assert_non_null(strstr(ts_last_error(), "mesh is NULL"));
    expect_mesh_error(body, &(ts_mesh_def){NULL, 3, good, 1}, "vertices");
    expect_mesh_error(body, &(ts_mesh_def){v, 3, NULL, 1}, "indices");
    expect_mesh_error(body, &(ts_mesh_def){v, 2, good, 1}, "vertex_count");
    expect_mesh_error(body, &(ts_mesh_def){v, 3, good, 0}, "triangle_count");
    expect_mesh_error(body, &(ts_mesh_def){nan_v, 3, good, 1}, "vertices[1]");
    expect_mesh_error(body, &(ts_mesh_def){v, 4, out_of_range, 1}, "indices");
    expect_mesh_error(body, &(ts_mesh_def){v, 4, negative, 1}, "indices");
    expect_mesh_error(body, &(ts_mesh_def){v, 4, collinear, 1}, "area");
    expect_mesh_error(body, &(ts_mesh_def){v, 4, repeated, 1}, "area");

    /* a dynamic body cannot carry a mesh, and a body with a mesh cannot be made dynamic */
    ts_body_id dynamic = test_dynamic_body(world, (ts_vec3){0, 0, 0});
    expect_mesh_error(dynamic, &(ts_mesh_def){v, 3, good, 1}, "dynamic");
    assert_false(ts_shape_id_is_null(ts_create_mesh_shape(body, &def, &(ts_mesh_def){v, 3, good, 1})));
    assert_int_equal(ts_body_set_type(body, TS_BODY_DYNAMIC), TS_ERROR_INVALID_OPERATION);
    ts_body_type type;
    assert_ok(ts_body_get_type(body, &type));
    assert_int_equal(type, TS_BODY_STATIC);
    assert_ok(ts_destroy_world(world));
}

static void expect_heightfield_error(ts_body_id body, const ts_heightfield_def *hf, const char *words)
{
    ts_shape_def def = ts_default_shape_def();
    assert_true(ts_shape_id_is_null(ts_create_heightfield_shape(body, &def, hf)));
    if (strstr(ts_last_error(), words) == NULL) {
        fail_msg("expected \"%s\" in: %s", words, ts_last_error());
    }
    assert_int_equal(shape_count(body), 0);
}

/* Heightfields: NULL, fewer than 2 vertices a side, a scale that is not
 * positive or not finite, a NaN height, a dynamic body. */
static void test_bad_heightfields(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = static_body(world);
    float h[4] = {0, 0, 0, 0};
    float nan_h[4] = {0, NAN, 0, 0};
    ts_vec3 one = {1, 1, 1};
    expect_heightfield_error(body, NULL, "heightfield is NULL");
    expect_heightfield_error(body, &(ts_heightfield_def){NULL, 2, 2, one}, "heights");
    expect_heightfield_error(body, &(ts_heightfield_def){h, 1, 4, one}, "count_x");
    expect_heightfield_error(body, &(ts_heightfield_def){h, 4, 1, one}, "count_z");
    expect_heightfield_error(body, &(ts_heightfield_def){h, 2, 2, {1, 0, 1}}, "scale.y");
    expect_heightfield_error(body, &(ts_heightfield_def){h, 2, 2, {-1, 1, 1}}, "scale.x");
    expect_heightfield_error(body, &(ts_heightfield_def){h, 2, 2, {1, 1, INFINITY}}, "scale.z");
    expect_heightfield_error(body, &(ts_heightfield_def){nan_h, 2, 2, one}, "heights[1]");
    ts_body_id dynamic = test_dynamic_body(world, (ts_vec3){0, 0, 0});
    expect_heightfield_error(dynamic, &(ts_heightfield_def){h, 2, 2, one}, "dynamic");
    ts_shape_def def = ts_default_shape_def();
    assert_false(ts_shape_id_is_null(ts_create_heightfield_shape(body, &def, &(ts_heightfield_def){h, 2, 2, one})));
    assert_ok(ts_destroy_world(world));
}

/* ------------------------------------------------------------ physics */

/* A unit box (half 0.5, frictionless, so it keeps its speed) slides at
 * 4 m/s across a flat mesh of 30 x 30 cells of 0.5 m (1,800 triangles): in
 * 3 s it crosses 24 cell edges and 24 diagonals. With the shared edges
 * removed (one-sided, coplanar neighbours) nothing pushes it up: |v_y|
 * stays below 1e-3 m/s (the bound) at every step, and it keeps its
 * speed within 1% (a bump would turn speed into rotation). The first 30
 * steps let it settle onto the mesh from 1 mm above and are not checked. */
static void test_box_slides_over_shared_edges(void **state)
{
    (void)state;
    enum { N = 30 };
    static ts_vec3 vertices[(N + 1) * (N + 1)];
    static int32_t indices[6 * N * N];
    flat_grid(N, 0.5f, -2.0f, -7.5f, vertices, indices);
    ts_world_id world = test_world(4, 1);
    ts_body_id ground = static_body(world);
    ts_shape_def def = ts_default_shape_def();
    ts_mesh_def mesh = {vertices, (N + 1) * (N + 1), indices, 2 * N * N};
    assert_false(ts_shape_id_is_null(ts_create_mesh_shape(ground, &def, &mesh)));

    ts_body_id box = test_dynamic_body(world, (ts_vec3){0.0f, 0.501f, 0.1f});
    def.friction = 0.0f;
    assert_false(ts_shape_id_is_null(ts_create_box_shape(box, &def, &(ts_box){{0.5f, 0.5f, 0.5f}})));
    for (int i = 0; i < 30; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    assert_ok(ts_body_set_linear_velocity(box, (ts_vec3){4.0f, 0.0f, 0.0f}));
    float max_vy = 0.0f;
    ts_vec3 v;
    for (int i = 0; i < 180; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        assert_ok(ts_body_get_linear_velocity(box, &v));
        max_vy = fmaxf(max_vy, fabsf(v.y));
    }
    ts_vec3 p;
    assert_ok(ts_body_get_position(box, &p));
    print_message("box on mesh: max |v_y| %.3g m/s, v_x %.4f m/s, x %.3f m, y %.4f m\n", (double)max_vy, (double)v.x,
                  (double)p.x, (double)p.y);
    assert_true(max_vy < 1e-3f);
    assert_near(v.x, 4.0, 0.04);
    assert_true(p.x > 11.0f);           /* it did cross the mesh */
    assert_near(p.y, 0.5, 0.01);        /* and rests on it (soft contact: mm) */
    assert_ok(ts_destroy_world(world));
}

/* The heightfield of the rolling test: h(x) = 0.2 sin(x / 2) m, the same
 * along z, vertices every 0.5 m. */
#define HF_COUNT_X 41
#define HF_COUNT_Z 9
#define HF_CELL 0.5f
static float bump(int i) { return 0.2f * sinf((float)i * HF_CELL / 2.0f); }

/* The distance from (x, y) to the heightfield's profile (a polyline
 * through its vertices; the field is constant along z). */
static float profile_distance(float x, float y)
{
    float best = INFINITY;
    for (int i = 0; i + 1 < HF_COUNT_X; ++i) {
        float ax = (float)i * HF_CELL, ay = bump(i), bx = ax + HF_CELL, by = bump(i + 1);
        float dx = bx - ax, dy = by - ay;
        float s = ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy);
        s = fminf(fmaxf(s, 0.0f), 1.0f);
        float ex = x - (ax + s * dx), ey = y - (ay + s * dy);
        best = fminf(best, sqrtf(ex * ex + ey * ey));
    }
    return best;
}

/* A sphere of radius 0.5 rolls at 2 m/s over the bumps (2.4 bumps of 0.4 m
 * amplitude in its 15 m): at every step its centre stays 0.5 m from the
 * surface within 1 cm (soft contacts sink by mm, a missed triangle would
 * drop it by far more, a bump at an edge would lift it). Curvature is small
 * (v^2 h'' = 0.2 m/s^2 << g), so it never leaves the ground. It must get
 * past the third crest (x > 12 m), and z stays put (no sideways kick). */
static void test_sphere_follows_heightfield(void **state)
{
    (void)state;
    static float heights[HF_COUNT_X * HF_COUNT_Z];
    for (int k = 0; k < HF_COUNT_Z; ++k) {
        for (int i = 0; i < HF_COUNT_X; ++i) {
            heights[k * HF_COUNT_X + i] = bump(i);
        }
    }
    ts_world_id world = test_world(4, 1);
    ts_body_id ground = static_body(world);
    ts_shape_def def = ts_default_shape_def();
    ts_heightfield_def hf = {heights, HF_COUNT_X, HF_COUNT_Z, {HF_CELL, 1.0f, HF_CELL}};
    assert_false(ts_shape_id_is_null(ts_create_heightfield_shape(ground, &def, &hf)));

    float x0 = 1.0f;
    ts_body_def bd = ts_default_body_def();
    bd.type = TS_BODY_DYNAMIC;
    bd.position = (ts_vec3){x0, 0.2f * sinf(x0 / 2.0f) + 0.5f / cosf(atanf(0.05f * cosf(x0 / 2.0f))), 2.0f};
    bd.linear_velocity = (ts_vec3){2.0f, 0.0f, 0.0f};
    bd.angular_velocity = (ts_vec3){0.0f, 0.0f, -4.0f}; /* rolling: w = v / r about -z */
    ts_body_id ball = ts_create_body(world, &bd);
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(ball, &def, &(ts_sphere){0.5f})));
    float worst = 0.0f;
    ts_vec3 p = {0};
    for (int i = 0; i < 420 && p.x < 18.0f; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        assert_ok(ts_body_get_position(ball, &p));
        worst = fmaxf(worst, fabsf(profile_distance(p.x, p.y) - 0.5f));
    }
    print_message("sphere on heightfield: worst |distance - r| %.3g m, x %.3f m, z %.4f m\n", (double)worst,
                  (double)p.x, (double)p.z);
    assert_true(worst < 0.01f);
    assert_true(p.x > 12.0f);
    assert_near(p.z, 2.0, 1e-3);
    assert_ok(ts_destroy_world(world));
}

/* ts_shape_get_triangles gives back a mesh's triangles exactly as its
 * ts_mesh_def gave them (the tree reorders them inside), and a
 * heightfield's two per cell at the grid's heights; a short array gets the
 * first ones; bad calls are refused with the argument named. */
static void test_get_triangles(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = static_body(world);
    enum { N = 6 };
    ts_vec3 vertices[(N + 1) * (N + 1)];
    int32_t indices[6 * N * N];
    flat_grid(N, 1.0f, -3.0f, -3.0f, vertices, indices);
    ts_shape_def def = ts_default_shape_def();
    ts_shape_id mesh = ts_create_mesh_shape(body, &def, &(ts_mesh_def){vertices, (N + 1) * (N + 1), indices, 2 * N * N});
    assert_false(ts_shape_id_is_null(mesh));
    ts_vec3 corners[3 * 2 * N * N];
    int count = -1;
    assert_ok(ts_shape_get_triangles(mesh, &count, corners, 2 * N * N));
    assert_int_equal(count, 2 * N * N);
    for (int c = 0; c < 3 * 2 * N * N; ++c) {
        assert_memory_equal(&corners[c], &vertices[indices[c]], sizeof(ts_vec3));
    }
    ts_vec3 first[3] = {{0}};
    assert_ok(ts_shape_get_triangles(mesh, &count, first, 1));
    assert_memory_equal(first, corners, sizeof first);
    assert_ok(ts_shape_get_triangles(mesh, &count, NULL, 0));
    assert_int_equal(count, 2 * N * N);

    float heights[3 * 2] = {0, 1, 2, 3, 4, 5}; /* count_x 3, count_z 2: 2 cells, 4 triangles */
    ts_shape_id field = ts_create_heightfield_shape(body, &def, &(ts_heightfield_def){heights, 3, 2, {1, 2, 1}});
    assert_false(ts_shape_id_is_null(field));
    ts_vec3 grid[12];
    assert_ok(ts_shape_get_triangles(field, &count, grid, 4));
    assert_int_equal(count, 4);
    for (int c = 0; c < 12; ++c) { /* every corner is a grid vertex at its scaled height */
        int i = (int)grid[c].x, k = (int)grid[c].z;
        assert_true(grid[c].x == (float)i && grid[c].z == (float)k && i < 3 && k < 2);
        assert_true(grid[c].y == 2.0f * heights[k * 3 + i]);
    }
    assert_true(grid[0].x < 1.0f + 1e-6f && grid[3].x < 1.0f + 1e-6f); /* cell (0, 0) first */

    ts_shape_id ball = ts_create_sphere_shape(static_body(world), &def, &(ts_sphere){0.5f});
    assert_int_equal(ts_shape_get_triangles(ball, &count, NULL, 0), TS_ERROR_INVALID_OPERATION);
    assert_non_null(strstr(ts_last_error(), "neither a mesh nor a heightfield"));
    assert_int_equal(ts_shape_get_triangles(mesh, NULL, NULL, 0), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_shape_get_triangles(mesh, &count, NULL, 1), TS_ERROR_NULL_POINTER);
    assert_non_null(strstr(ts_last_error(), "corners"));
    assert_int_equal(ts_shape_get_triangles(mesh, &count, corners, -1), TS_ERROR_OUT_OF_RANGE);
    assert_ok(ts_destroy_world(world));
    assert_int_equal(ts_shape_get_triangles(mesh, &count, NULL, 0), TS_ERROR_STALE_ID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_meshes),
        cmocka_unit_test(test_bad_heightfields),
        cmocka_unit_test(test_box_slides_over_shared_edges),
        cmocka_unit_test(test_sphere_follows_heightfield),
        cmocka_unit_test(test_get_triangles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

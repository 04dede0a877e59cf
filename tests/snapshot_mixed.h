/* A small world of everything snapshot format 3 added, for the snapshot
 * tests and the loader fuzzer's seed: a static mesh (a 4 x 4 grid of
 * vertices with a bump, 18 triangles), a heightfield beside it, two hull
 * bodies made from the same points (one shared hull) and a cylinder, a
 * sensor box above the mesh that falling spheres pass through, and (with
 * customs) a chain of three spheres held by custom constraints: a
 * one-body pin of 3 rows and two distance rows. */
#ifndef TS_SNAPSHOT_MIXED_H
#define TS_SNAPSHOT_MIXED_H

#include "tessera/tessera.h"

#include <math.h>
#include <stdint.h>

/* user_data tags of the custom constraints, for the resolver */
#define MIXED_PIN_TAG 1u
#define MIXED_DISTANCE_TAG 2u

static const float mixed_link_length = 1.0f;
static const ts_vec3 mixed_pin_point = {-4.0f, 6.0f, 3.0f};

/* A rod of mixed_link_length between the bodies' centres: one row. */
static void mixed_distance_rows(const ts_constraint_input *in, ts_constraint_row *rows, void *context)
{
    const float *length = context;
    ts_vec3 a = in->body_a.center, b = in->body_b.center;
    ts_vec3 d = {b.x - a.x, b.y - a.y, b.z - a.z};
    float l = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
    ts_vec3 n = l > 1e-6f ? (ts_vec3){d.x / l, d.y / l, d.z / l} : (ts_vec3){1.0f, 0.0f, 0.0f};
    rows[0].value = l - *length;
    rows[0].linear_a = (ts_vec3){-n.x, -n.y, -n.z};
    rows[0].linear_b = n;
}

/* Body A's centre held at a point: three rows, x, y, z. */
static void mixed_pin_rows(const ts_constraint_input *in, ts_constraint_row *rows, void *context)
{
    const ts_vec3 *p = context;
    ts_vec3 c = in->body_a.center;
    rows[0].value = c.x - p->x;
    rows[0].linear_a = (ts_vec3){1.0f, 0.0f, 0.0f};
    rows[1].value = c.y - p->y;
    rows[1].linear_a = (ts_vec3){0.0f, 1.0f, 0.0f};
    rows[2].value = c.z - p->z;
    rows[2].linear_a = (ts_vec3){0.0f, 0.0f, 1.0f};
}

/* The resolver a program would write: the callback by the tag in
 * user_data, the context as saved (the same process). */
static bool mixed_resolve(ts_joint_id joint, void *user_data, void *saved_context, void *resolver_context,
                          ts_constraint_fn **evaluate, void **context)
{
    (void)joint;
    (void)resolver_context;
    uintptr_t tag = (uintptr_t)user_data;
    *evaluate = tag == MIXED_PIN_TAG ? mixed_pin_rows : tag == MIXED_DISTANCE_TAG ? mixed_distance_rows : NULL;
    *context = saved_context;
    return *evaluate != NULL;
}

static ts_body_id mixed_body(ts_world_id world, ts_body_type type, ts_vec3 p)
{
    ts_body_def def = ts_default_body_def();
    def.type = type;
    def.position = p;
    return ts_create_body(world, &def);
}

static void mixed_sphere(ts_world_id world, ts_vec3 p, float radius)
{
    ts_shape_def shape = ts_default_shape_def();
    ts_sphere sphere = {radius};
    ts_create_sphere_shape(mixed_body(world, TS_BODY_DYNAMIC, p), &shape, &sphere);
}

/* The world (sleep off, so that every body moves in the steps tested). */
static ts_world_id mixed_world(ts_solver_type solver, int width, int threads, bool customs)
{
    ts_world_def def = ts_default_world_def();
    def.solver = solver;
    def.simd_width = width;
    def.threads = threads;
    def.enable_sleep = false;
    ts_world_id world = ts_create_world(&def);
    if (ts_world_id_is_null(world)) {
        return world;
    }
    ts_shape_def shape = ts_default_shape_def();
    /* the mesh first: GEOM's first field is its vertex count (test_snapshot_bad_files) */
    ts_vec3 vertices[16];
    for (int k = 0; k < 16; ++k) {
        vertices[k] = (ts_vec3){-3.0f + 2.0f * (float)(k % 4), (k == 5 || k == 10) ? 0.4f : 0.0f,
                                -3.0f + 2.0f * (float)(k / 4)};
    }
    int32_t indices[54];
    int t = 0;
    for (int z = 0; z < 3; ++z) {
        for (int x = 0; x < 3; ++x) {
            int32_t v = z * 4 + x;
            int32_t quad[6] = {v, v + 4, v + 5, v, v + 5, v + 1};
            for (int k = 0; k < 6; ++k) {
                indices[t++] = quad[k];
            }
        }
    }
    ts_mesh_def mesh = {vertices, 16, indices, 18};
    ts_create_mesh_shape(mixed_body(world, TS_BODY_STATIC, (ts_vec3){0, 0, 0}), &shape, &mesh);
    float heights[12] = {0.0f, 0.1f, 0.0f, 0.2f, 0.1f, 0.3f, 0.2f, 0.1f, 0.0f, 0.1f, 0.2f, 0.0f};
    ts_heightfield_def hf = {heights, 4, 3, {1.5f, 2.0f, 2.0f}};
    ts_create_heightfield_shape(mixed_body(world, TS_BODY_STATIC, (ts_vec3){4.0f, 0.0f, -2.0f}), &shape, &hf);
    ts_shape_def sensor = ts_default_shape_def();
    sensor.is_sensor = true;
    ts_box sensor_box = {{2.5f, 0.5f, 2.5f}};
    ts_create_box_shape(mixed_body(world, TS_BODY_STATIC, (ts_vec3){0.0f, 1.5f, 0.0f}), &sensor, &sensor_box);
    ts_vec3 points[8] = {{-0.4f, -0.3f, -0.3f}, {0.4f, -0.3f, -0.3f}, {-0.3f, 0.3f, -0.4f}, {0.3f, 0.3f, -0.4f},
                         {-0.4f, -0.3f, 0.3f},  {0.4f, -0.3f, 0.3f},  {-0.3f, 0.3f, 0.4f},  {0.3f, 0.3f, 0.4f}};
    ts_hull_def hull = {points, 8};
    ts_create_hull_shape(mixed_body(world, TS_BODY_DYNAMIC, (ts_vec3){-1.0f, 2.4f, 0.3f}), &shape, &hull);
    ts_create_hull_shape(mixed_body(world, TS_BODY_DYNAMIC, (ts_vec3){1.0f, 3.2f, -0.2f}), &shape, &hull);
    ts_cylinder cylinder = {0.3f, 0.4f, 8};
    ts_create_cylinder_shape(mixed_body(world, TS_BODY_DYNAMIC, (ts_vec3){6.0f, 1.5f, 0.0f}), &shape, &cylinder);
    mixed_sphere(world, (ts_vec3){0.5f, 3.0f, 1.0f}, 0.3f); /* inside the sensor from step ~27 to ~40 */
    mixed_sphere(world, (ts_vec3){-0.5f, 4.0f, -1.0f}, 0.3f);
    mixed_sphere(world, (ts_vec3){0.0f, 5.0f, 0.0f}, 0.3f);
    if (customs) {
        ts_body_id chain[3];
        for (int k = 0; k < 3; ++k) {
            chain[k] = mixed_body(world, TS_BODY_DYNAMIC,
                                  (ts_vec3){mixed_pin_point.x + (float)k * mixed_link_length, mixed_pin_point.y,
                                            mixed_pin_point.z});
            ts_sphere ball = {0.2f};
            ts_create_sphere_shape(chain[k], &shape, &ball);
        }
        ts_custom_constraint_def pin = ts_default_custom_constraint_def();
        pin.body_a = chain[0];
        pin.row_count = 3;
        pin.evaluate = mixed_pin_rows;
        pin.context = (void *)&mixed_pin_point;
        pin.user_data = (void *)(uintptr_t)MIXED_PIN_TAG;
        ts_create_custom_constraint(world, &pin);
        for (int k = 0; k < 2; ++k) {
            ts_custom_constraint_def rod = ts_default_custom_constraint_def();
            rod.body_a = chain[k];
            rod.body_b = chain[k + 1];
            rod.evaluate = mixed_distance_rows;
            rod.context = (void *)&mixed_link_length;
            rod.user_data = (void *)(uintptr_t)MIXED_DISTANCE_TAG;
            ts_create_custom_constraint(world, &rod);
        }
    }
    return world;
}

#endif

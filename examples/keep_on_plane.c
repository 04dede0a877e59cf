// SPDX-License-Identifier: MIT
/* Keep on a plane: a custom constraint (tessera/constraint.h) that holds a
 * point of a body on a plane, n . x = d, with nothing there to touch. One
 * row on one body,
 *     C = n . (c + r) - d,   dC/dt = n . (v + w x r) = n . v + (r x n) . w,
 * with c the centre of mass and r the point's offset from it: linear_a = n,
 * angular_a = r x n. An equality (the default bounds): the plane holds the
 * point from both sides.
 *
 * 150 boxes, each held by a corner on a plane tilted 30 degrees from the
 * horizontal, start at rest: each slides and swings down the plane. The
 * corner stays on the plane (within 5 mm: the soft step's row is a stiff
 * spring, as its built-in joints are; XPBD's is rigid), and the energy the
 * boxes gain is what gravity gives them (a frictionless constraint does no
 * work): never 1% more, and at most 5% less (XPBD's projections lose a few
 * percent). For both solvers at 4 and 8 substeps, on 1 and 2 threads, which
 * must give the same bits. Exit status 1 when a check fails. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "tessera/tessera.h"

#define BOXES 150

typedef struct plane {
    ts_vec3 normal; /* unit */
    float offset;   /* the plane: normal . x = offset */
    ts_vec3 corner; /* the held point, in the body's frame */
} plane;

static ts_vec3 cross(ts_vec3 a, ts_vec3 b)
{
    return (ts_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static float dot(ts_vec3 a, ts_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/* v turned by the unit quaternion q */
static ts_vec3 rotate(ts_quat q, ts_vec3 v)
{
    ts_vec3 u = {q.x, q.y, q.z};
    ts_vec3 t = cross(u, v);
    t = (ts_vec3){2 * t.x, 2 * t.y, 2 * t.z};
    ts_vec3 ut = cross(u, t);
    return (ts_vec3){v.x + q.w * t.x + ut.x, v.y + q.w * t.y + ut.y, v.z + q.w * t.z + ut.z};
}

static void plane_row(const ts_constraint_input *input, ts_constraint_row *rows, void *context)
{
    const plane *p = context;
    const ts_constraint_body *b = &input->body_a;
    ts_vec3 world = rotate(b->rotation, p->corner);
    ts_vec3 point = {b->position.x + world.x, b->position.y + world.y, b->position.z + world.z};
    ts_vec3 r = {point.x - b->center.x, point.y - b->center.y, point.z - b->center.z};
    rows[0].value = dot(p->normal, point) - p->offset;
    rows[0].linear_a = p->normal;
    rows[0].angular_a = cross(r, p->normal);
}

static uint64_t fnv(uint64_t h, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < size; ++i) {
        h = (h ^ bytes[i]) * 1099511628211ull;
    }
    return h;
}

/* Kinetic energy of a box of mass m and principal inertia i (a box's axes
 * are its principal axes). */
static double kinetic(ts_body_id body)
{
    ts_mass_data m;
    ts_quat q;
    ts_vec3 v, w;
    ts_body_get_mass_data(body, &m);
    ts_body_get_rotation(body, &q);
    ts_body_get_linear_velocity(body, &v);
    ts_body_get_angular_velocity(body, &w);
    ts_vec3 local = rotate((ts_quat){-q.x, -q.y, -q.z, q.w}, w);
    return 0.5 * m.mass * dot(v, v) + 0.5 * (m.principal_inertia.x * local.x * local.x +
                                             m.principal_inertia.y * local.y * local.y +
                                             m.principal_inertia.z * local.z * local.z);
}

static int run(ts_solver_type solver, int substeps, int threads, uint64_t *hash)
{
    ts_world_def world_def = ts_default_world_def();
    world_def.solver = solver;
    world_def.substeps = substeps;
    world_def.threads = threads;
    world_def.enable_sleep = false;
    ts_world_id world = ts_create_world(&world_def);

    const float angle = 30.0f * 3.14159265f / 180.0f;
    static plane planes[BOXES];
    ts_body_id boxes[BOXES];
    ts_shape_def shape_def = ts_default_shape_def();
    shape_def.filter.mask_bits = 0; /* the boxes pass through each other */
    ts_box box = {{0.2f, 0.1f, 0.15f}};
    float start_height[BOXES];
    for (int i = 0; i < BOXES; ++i) {
        /* the plane through (0, 0, z) rising along -x; the corner (0.2, -0.1, 0.15) on it */
        planes[i] = (plane){{sinf(angle), cosf(angle), 0}, 0.0f, {0.2f, -0.1f, 0.15f}};
        float along = -0.5f * (float)(i % 10); /* up the slope */
        ts_vec3 corner = {along * cosf(angle), -along * sinf(angle), (float)i};
        ts_body_def body_def = ts_default_body_def();
        body_def.type = TS_BODY_DYNAMIC;
        body_def.position = (ts_vec3){corner.x - 0.2f, corner.y + 0.1f, corner.z - 0.15f};
        boxes[i] = ts_create_body(world, &body_def);
        ts_create_box_shape(boxes[i], &shape_def, &box);
        start_height[i] = body_def.position.y;

        ts_custom_constraint_def def = ts_default_custom_constraint_def();
        def.body_a = boxes[i];
        def.evaluate = plane_row;
        def.context = planes + i;
        if (ts_joint_id_is_null(ts_create_custom_constraint(world, &def))) {
            fprintf(stderr, "%s\n", ts_last_error());
            return 1;
        }
    }

    float worst_gap = 0.0f;
    for (int step = 1; step <= 120; ++step) {
        ts_world_step(world, 1.0f / 60.0f);
        for (int i = 0; i < BOXES; ++i) {
            ts_transform pose;
            ts_body_get_transform(boxes[i], &pose);
            ts_vec3 c = rotate(pose.q, planes[i].corner);
            ts_vec3 point = {pose.p.x + c.x, pose.p.y + c.y, pose.p.z + c.z};
            worst_gap = fmaxf(worst_gap, fabsf(dot(planes[i].normal, point) - planes[i].offset));
        }
    }
    double gained = 0.0, dropped = 0.0;
    *hash = 1469598103934665603ull;
    for (int i = 0; i < BOXES; ++i) {
        ts_transform pose;
        ts_vec3 v;
        float mass;
        ts_body_get_transform(boxes[i], &pose);
        ts_body_get_linear_velocity(boxes[i], &v);
        ts_body_get_mass(boxes[i], &mass);
        *hash = fnv(*hash, &pose, sizeof pose);
        *hash = fnv(*hash, &v, sizeof v);
        gained += kinetic(boxes[i]);
        dropped += (double)mass * 10.0 * (double)(start_height[i] - pose.p.y);
    }
    /* the soft step's row is a stiff spring (the world's joint softness);
     * XPBD's projections lose a few percent of the energy */
    int failed = (worst_gap > 5e-3f) + (gained > 1.01 * dropped) + (gained < 0.95 * dropped) + (dropped <= 0.0);
    printf("%-9s %d substeps %d thread%s: corners off the plane by %.5f m at most; kinetic energy %.3f J for %.3f J "
           "of drop (%+.2f%%)\n",
           solver == TS_SOLVER_XPBD ? "xpbd" : "soft_step", substeps, threads, threads > 1 ? "s" : " ",
           (double)worst_gap, gained, dropped, 100.0 * (gained - dropped) / dropped);
    ts_destroy_world(world);
    return failed;
}

int main(void)
{
    int failed = 0;
    const ts_solver_type solvers[2] = {TS_SOLVER_SOFT_STEP, TS_SOLVER_XPBD};
    for (int s = 0; s < 2; ++s) {
        for (int substeps = 4; substeps <= 8; substeps += 4) {
            uint64_t one, two;
            failed += run(solvers[s], substeps, 1, &one);
            failed += run(solvers[s], substeps, 2, &two);
            if (one != two) {
                printf("  1 and 2 threads differ (hash %016llx, %016llx)\n", (unsigned long long)one,
                       (unsigned long long)two);
                failed += 1;
            }
        }
    }
    printf("keep_on_plane: %s (%d checks failed)\n", failed == 0 ? "passed" : "FAILED", failed);
    return failed == 0 ? 0 : 1;
}

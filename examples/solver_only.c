// SPDX-License-Identifier: MIT
/* tessera's solver under a program's own collision detection ("bring your
 * own contacts"): the program keeps its bodies in its own arrays, finds the
 * contacts itself (here: spheres on a ground plane and on each other, one
 * point per contact) and asks ts_solve_contacts for one step of tessera's
 * solver each frame, with a joint besides (a sphere on a rope).
 *
 * A manifold is named by a key of the program's choosing (here the pair of
 * body indices), so that the solver finds last frame's impulses for it and
 * warm starts; a point's feature id names the point within it (one point:
 * 0). The solver wants each point as its offset from body A's centre of
 * mass, and the offset between the two centres (anchor_shift).
 *
 * Twelve spheres are dropped in a loose column, which topples: they roll
 * apart on the ground; a thirteenth swings on a rope from a fixed point.
 * The program checks that after 4 s every sphere lies on the ground (its
 * centre a radius up, within 1 cm: neither sunk nor still in the air) and
 * that the rope kept its length within 1 cm. */
#include <math.h>
#include <stdio.h>

#include "tessera/tessera.h"

#define SPHERES 12
#define BODIES (SPHERES + 2) /* the ground, the spheres, the swinging one */
#define RADIUS 0.25f
#define MARGIN 0.02f /* contacts closer than this are handed to the solver (speculative) */

static ts_vec3 sub(ts_vec3 a, ts_vec3 b) { return (ts_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static float length(ts_vec3 a) { return sqrtf(a.x * a.x + a.y * a.y + a.z * a.z); }

/* A contact of one point between bodies a and b: the point's world
 * position, the normal from a to b, the gap along it. */
static void add_contact(ts_solver_manifold *manifolds, int *count, const ts_solver_body *bodies, int a, int b,
                        ts_vec3 point, ts_vec3 normal, float separation)
{
    ts_solver_manifold *m = manifolds + (*count)++;
    *m = ts_default_solver_manifold();
    m->key = (uint64_t)a << 32 | (uint64_t)b; /* the same pair, the same key: warm starting */
    m->body_a = a;
    m->body_b = b;
    m->normal = normal;
    m->anchor_shift = sub(bodies[a].center, bodies[b].center);
    m->friction = 0.5f;
    m->point_count = 1;
    m->points[0].anchor = sub(point, bodies[a].center);
    m->points[0].separation = separation;
    m->points[0].feature_id = 0;
}

/* The program's collision detection: spheres on the plane y = 0 (body 0)
 * and on each other. */
static int find_contacts(const ts_solver_body *bodies, ts_solver_manifold *manifolds)
{
    int count = 0;
    for (int i = 1; i < BODIES; ++i) {
        ts_vec3 c = bodies[i].center;
        if (c.y - RADIUS < MARGIN) {
            add_contact(manifolds, &count, bodies, 0, i, (ts_vec3){c.x, 0.0f, c.z}, (ts_vec3){0.0f, 1.0f, 0.0f},
                        c.y - RADIUS);
        }
        for (int j = i + 1; j < BODIES; ++j) {
            ts_vec3 d = sub(bodies[j].center, c);
            float distance = length(d);
            if (distance - 2.0f * RADIUS < MARGIN && distance > 0.0f) {
                ts_vec3 n = {d.x / distance, d.y / distance, d.z / distance};
                float gap = distance - 2.0f * RADIUS;
                float reach = RADIUS + 0.5f * gap; /* the point midway between the surfaces */
                add_contact(manifolds, &count, bodies, i, j, (ts_vec3){c.x + reach * n.x, c.y + reach * n.y, c.z + reach * n.z},
                            n, gap);
            }
        }
    }
    return count;
}

int main(void)
{
    ts_world_def def = ts_default_world_def(); /* gravity, substeps, solver, threads: as for a world */
    ts_solver_context_id context = ts_create_solver_context(&def);
    if (ts_solver_context_id_is_null(context)) {
        fprintf(stderr, "%s\n", ts_last_error());
        return 1;
    }

    static ts_solver_body bodies[BODIES];
    bodies[0] = ts_default_solver_body(); /* the ground plane's body: static, at the origin */
    bodies[0].type = TS_BODY_STATIC;
    const float mass = 1.0f, inertia = 0.4f * 1.0f * RADIUS * RADIUS; /* a solid sphere */
    for (int i = 1; i < BODIES; ++i) {
        bodies[i] = ts_default_solver_body();
        bodies[i].mass = mass;
        bodies[i].inertia = (ts_vec3){inertia, inertia, inertia};
        bodies[i].center = (ts_vec3){0.05f * (float)(i % 3), 0.3f + 0.55f * (float)i, 0.04f * (float)(i % 2)};
    }
    /* the last sphere hangs on a 2 m rope from (3, 3, 0), starting sideways */
    const int swinging = BODIES - 1;
    bodies[swinging].center = (ts_vec3){5.0f, 3.0f, 0.0f};
    ts_solver_joint rope = ts_default_solver_joint();
    rope.key = 1;
    rope.type = TS_JOINT_DISTANCE;
    rope.body_a = 0;
    rope.body_b = swinging;
    rope.local_frame_a.p = (ts_vec3){3.0f, 3.0f, 0.0f}; /* in the ground body's frame */
    rope.length = 2.0f;

    static ts_solver_manifold manifolds[BODIES * BODIES];
    ts_solver_input input = {1.0f / 60.0f, bodies, BODIES, manifolds, 0, &rope, 1};
    for (int frame = 1; frame <= 240; ++frame) {
        input.manifold_count = find_contacts(bodies, manifolds);
        if (ts_solve_contacts(context, &input) != TS_OK) {
            fprintf(stderr, "%s\n", ts_last_error());
            return 1;
        }
        if (frame % 60 == 0) {
            float top = 0.0f;
            for (int i = 1; i <= SPHERES; ++i) {
                top = bodies[i].center.y > top ? bodies[i].center.y : top;
            }
            printf("t = %d s  contacts %2d  highest sphere at %.3f m  rope %.3f m\n", frame / 60,
                   input.manifold_count, top, length(sub(bodies[swinging].center, rope.local_frame_a.p)));
        }
    }

    int ok = fabsf(length(sub(bodies[swinging].center, rope.local_frame_a.p)) - rope.length) < 0.01f;
    for (int i = 1; i <= SPHERES; ++i) {
        ok &= fabsf(bodies[i].center.y - RADIUS) < 0.01f;
    }
    ts_destroy_solver_context(context);
    printf("%s\n", ok ? "every sphere lies on the ground and the rope holds" : "a sphere is off the ground or the rope stretched");
    return ok ? 0 : 1;
}

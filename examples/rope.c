// SPDX-License-Identifier: MIT
/* A rope: a custom constraint (tessera/constraint.h) that keeps a lamp no
 * farther than L from its hook, and lets it come closer. One row,
 *     C = L - |p - hook| >= 0,
 * with lower = 0: the row may only pull the lamp in (a rope pushes nothing),
 * and the solver does the rest (effective mass, warm starting, the row's
 * speculative limit: C reaches 0, never passes it).
 *
 * 150 lamps hang from hooks in a row, each dropped from beside its hook on
 * a slack rope: it falls freely until the rope is taut, then swings. The
 * program checks that a slack lamp falls exactly as in free fall, that no
 * rope stretches by more than 1 cm, and that every rope does catch its
 * lamp (the lamp reaches the rope's length), for both solvers at 4 and 8
 * substeps, on 1 and 2 threads: the two thread counts must give the same
 * bits. Exit status 1 when a check fails. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tessera/tessera.h"

#define LAMPS 150
#define ROPE 2.0f /* m */

typedef struct rope {
    ts_vec3 hook; /* a point fixed in the world */
    float length;
} rope;

static ts_vec3 sub(ts_vec3 a, ts_vec3 b) { return (ts_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static float length(ts_vec3 a) { return sqrtf(a.x * a.x + a.y * a.y + a.z * a.z); }

/* The rope's row. The lamp is body A (a one-body constraint: the hook is
 * in the world), tied at its centre of mass, so the row has no angular part:
 * dC/dt = -n . vA with n the unit vector from the hook to the lamp. */
static void rope_row(const ts_constraint_input *input, ts_constraint_row *rows, void *context)
{
    const rope *r = context;
    ts_vec3 d = sub(input->body_a.center, r->hook);
    float distance = length(d);
    ts_vec3 n = distance > 1e-6f ? (ts_vec3){d.x / distance, d.y / distance, d.z / distance} : (ts_vec3){0, -1, 0};
    rows[0].value = r->length - distance;
    rows[0].linear_a = (ts_vec3){-n.x, -n.y, -n.z};
    rows[0].lower = 0.0f; /* pulls, never pushes */
}

static uint64_t fnv(uint64_t h, const void *data, size_t size)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < size; ++i) {
        h = (h ^ bytes[i]) * 1099511628211ull;
    }
    return h;
}

/* One run; returns the number of failed checks and the state's hash. */
static int run(ts_solver_type solver, int substeps, int threads, uint64_t *hash)
{
    ts_world_def world_def = ts_default_world_def();
    world_def.solver = solver;
    world_def.substeps = substeps;
    world_def.threads = threads;
    world_def.enable_sleep = false;
    ts_world_id world = ts_create_world(&world_def);

    static rope ropes[LAMPS];
    ts_body_id lamps[LAMPS];
    ts_shape_def shape_def = ts_default_shape_def();
    shape_def.filter.mask_bits = 0; /* lamps pass through each other */
    for (int i = 0; i < LAMPS; ++i) {
        ropes[i] = (rope){{(float)i, 10.0f, 0.0f}, ROPE};
        /* beside the hook, the rope slack: 0.5 to 1.9 m out */
        float out = 0.5f + 1.4f * (float)(i % 8) / 7.0f;
        ts_body_def body_def = ts_default_body_def();
        body_def.type = TS_BODY_DYNAMIC;
        body_def.position = (ts_vec3){(float)i + out, 10.0f, 0.1f * (float)(i % 3)};
        lamps[i] = ts_create_body(world, &body_def);
        ts_sphere sphere = {0.1f};
        ts_create_sphere_shape(lamps[i], &shape_def, &sphere);

        ts_custom_constraint_def rope_def = ts_default_custom_constraint_def();
        rope_def.body_a = lamps[i]; /* body_b null: one body */
        rope_def.evaluate = rope_row;
        rope_def.context = ropes + i;
        if (ts_joint_id_is_null(ts_create_custom_constraint(world, &rope_def))) {
            fprintf(stderr, "%s\n", ts_last_error());
            return 1;
        }
    }

    int failed = 0, taut = 0;
    float worst_stretch = 0.0f, worst_fall = 0.0f, farthest[LAMPS] = {0};
    float h = 1.0f / 60.0f / (float)substeps;
    for (int step = 1; step <= 300; ++step) { /* 5 s: every rope is taut within 1 s */
        ts_world_step(world, 1.0f / 60.0f);
        for (int i = 0; i < LAMPS; ++i) {
            ts_vec3 p;
            ts_body_get_position(lamps[i], &p);
            float distance = length(sub(p, ropes[i].hook));
            worst_stretch = fmaxf(worst_stretch, distance - ROPE);
            farthest[i] = fmaxf(farthest[i], distance);
            /* the lamps 1.9 m out are slack for their first 0.2 s: free fall,
             * as the substep integrator steps it (velocity first, then
             * position: after n substeps of h, y0 - g h^2 n (n + 1) / 2) */
            if (i % 8 == 7 && step <= 12) {
                float n = (float)(step * substeps);
                worst_fall = fmaxf(worst_fall, fabsf(p.y - (10.0f - 0.5f * 10.0f * h * h * n * (n + 1.0f))));
            }
        }
    }
    *hash = 1469598103934665603ull;
    for (int i = 0; i < LAMPS; ++i) {
        ts_transform pose;
        ts_vec3 v;
        ts_body_get_transform(lamps[i], &pose);
        ts_body_get_linear_velocity(lamps[i], &v);
        *hash = fnv(*hash, &pose, sizeof pose);
        *hash = fnv(*hash, &v, sizeof v);
        taut += farthest[i] > ROPE - 0.001f; /* the rope caught it */
    }
    failed += worst_fall > 1e-4f;
    failed += worst_stretch > 0.01f;
    failed += taut != LAMPS;
    printf("%-9s %d substeps %d thread%s: free fall off by %.2g m, ropes stretched %.4f m at most, %d of %d ropes "
           "caught their lamp\n",
           solver == TS_SOLVER_XPBD ? "xpbd" : "soft_step", substeps, threads, threads > 1 ? "s" : " ",
           (double)worst_fall, (double)worst_stretch, taut, LAMPS);
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
    printf("rope: %s (%d checks failed)\n", failed == 0 ? "passed" : "FAILED", failed);
    return failed == 0 ? 0 : 1;
}

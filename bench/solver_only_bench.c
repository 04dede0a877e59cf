// SPDX-License-Identifier: MIT
/* tessera-solver-bench: the solver-only entry (ts_solve_contacts) against a
 * world's step on the same contacts.
 *
 *   tessera-solver-bench [base] [steps] [threads] [soft_step|xpbd]
 *
 * A world steps large_pyramid (shared/scenes.md: base B boxes, default 100:
 * 5,050 boxes, sleeping off) for 60 steps to settle; then, for `steps`
 * steps (default 60), its bodies are read out before the step and the
 * manifolds its narrowphase made after it (tests/world_capture.h), and a
 * solver context solves them: the same contacts, bit for bit the same
 * result (checked here on every step). Printed: the median per step of the
 * world's whole step, of its solve stages (prepare, the substeps,
 * restitution, impulse store: what the context runs too), and of the
 * context's call (its take of the arrays, the same solve stages, its give
 * back). Steps interleave world and context, so both see the same machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "world_capture.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* The solver's stages of a profile (what world and context both run). */
static double solve_stages(const ts_step_profile *p)
{
    return p->prepare + p->integrate_velocities + p->warm_start + p->solve + p->integrate_positions + p->relax +
           p->restitution + p->store_impulses;
}

static void build_pyramid(ts_world_id world, int base)
{
    ts_shape_def shape = ts_default_shape_def();
    ts_body_def ground = ts_default_body_def();
    ground.position = (ts_vec3){0, -1, 0};
    ts_create_box_shape(ts_create_body(world, &ground), &shape, &(ts_box){{400, 1, 400}});
    shape.density = 100.0f;
    for (int r = 0; r < base; ++r) {
        for (int j = r; j < base; ++j) {
            ts_body_def def = ts_default_body_def();
            def.type = TS_BODY_DYNAMIC;
            def.position = (ts_vec3){(float)(r + 1) * 0.5f + (float)(j - r) - (float)base * 0.5f, (float)(2 * r + 1) * 0.5f, 0};
            ts_create_box_shape(ts_create_body(world, &def), &shape, &(ts_box){{0.5f, 0.5f, 0.5f}});
        }
    }
}

int main(int argc, char **argv)
{
    int base = argc > 1 ? atoi(argv[1]) : 100;
    int steps = argc > 2 ? atoi(argv[2]) : 60;
    int threads = argc > 3 ? atoi(argv[3]) : 1;
    ts_solver_type solver = argc > 4 && strcmp(argv[4], "xpbd") == 0 ? TS_SOLVER_XPBD : TS_SOLVER_SOFT_STEP;
    ts_world_def def = ts_default_world_def();
    def.enable_sleep = false;
    def.threads = threads;
    def.solver = solver;
    ts_world_id world = ts_create_world(&def);
    build_pyramid(world, base);
    ts_solver_context_id context = ts_create_solver_context(&def);

    int capacity = base * (base + 1) / 2 + 1;
    ts_solver_body *bodies = malloc((size_t)capacity * sizeof *bodies);
    ts_solver_manifold *manifolds = malloc((size_t)capacity * 8 * sizeof *manifolds);
    int32_t *order = malloc((size_t)capacity * 8 * sizeof *order);
    double *world_step = malloc((size_t)steps * sizeof(double)), *world_solve = malloc((size_t)steps * sizeof(double));
    double *call = malloc((size_t)steps * sizeof(double)), *call_solve = malloc((size_t)steps * sizeof(double));
    double *take = malloc((size_t)steps * sizeof(double)), *give = malloc((size_t)steps * sizeof(double));

    /* The context must see the world's history from its first step (colours
     * and warm starts are kept per key), so it follows the settling too. */
    int manifold_count = 0, mismatches = 0;
    for (int step = -60; step < steps; ++step) {
        int body_count = capture_bodies(world, bodies);
        int order_count = capture_order(world, order);
        if (ts_world_step(world, 1.0f / 60.0f) != TS_OK) {
            fprintf(stderr, "%s\n", ts_last_error());
            return 1;
        }
        ts_step_profile wp, cp;
        ts_world_get_profile(world, &wp);
        manifold_count = capture_manifolds(world, order, order_count, manifolds, NULL);
        ts_solver_input input = {1.0f / 60.0f, bodies, body_count, manifolds, manifold_count, NULL, 0};
        double start = now_ms();
        if (ts_solve_contacts(context, &input) != TS_OK) {
            fprintf(stderr, "%s\n", ts_last_error());
            return 1;
        }
        double elapsed = now_ms() - start;
        ts_solver_context_get_profile(context, &cp);
        /* the same bits as the world (every body) */
        ts_solver_body *after = malloc((size_t)body_count * sizeof *after);
        capture_bodies(world, after);
        for (int k = 0; k < body_count; ++k) {
            mismatches += memcmp(&after[k].center, &bodies[k].center, sizeof(ts_vec3)) != 0 ||
                          memcmp(&after[k].linear_velocity, &bodies[k].linear_velocity, sizeof(ts_vec3)) != 0;
        }
        free(after);
        if (step >= 0) {
            world_step[step] = wp.step;
            world_solve[step] = solve_stages(&wp);
            call[step] = elapsed;
            call_solve[step] = solve_stages(&cp);
            take[step] = cp.narrowphase;
            give[step] = cp.finalize;
        }
    }
    ts_world_counters counters;
    ts_world_get_counters(world, &counters);
    printf("large_pyramid B=%d (%d bodies, %d manifolds, %d points), %s, %d thread(s), width %d, median of %d steps:\n",
           base, counters.body_count, manifold_count, counters.point_count,
           solver == TS_SOLVER_XPBD ? "xpbd" : "soft_step", counters.thread_count, counters.simd_width, steps);
    printf("  world step %.3f ms, of which solve stages %.3f ms\n", median(world_step, steps),
           median(world_solve, steps));
    printf("  ts_solve_contacts %.3f ms: take %.3f ms, solve stages %.3f ms, write-back and give %.3f ms\n", median(call, steps),
           median(take, steps), median(call_solve, steps), median(give, steps));
    printf("  bodies that differ from the world's: %d (over all steps)\n", mismatches);
    ts_destroy_solver_context(context);
    ts_destroy_world(world);
    free(bodies);
    free(manifolds);
    free(order);
    free(world_step);
    free(world_solve);
    free(call);
    free(call_solve);
    free(take);
    free(give);
    return mismatches == 0 ? 0 : 1;
}

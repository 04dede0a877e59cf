/* kernel_bench: nanoseconds per contact manifold per solver pass (prepare,
 * warm start, solve, relax) at every SIMD width, on large_pyramid's contacts,
 * single thread. The world settles for a few steps, then the step profile of
 * the timed steps is divided by manifolds x substeps (prepare: by manifolds).
 *
 *   tessera-kernel-bench [base (default 100)] [steps (default 30)] */
#include "tessera/tessera.h"

#include <stdio.h>
#include <stdlib.h>

static ts_world_id build(int width, int base)
{
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    def.simd_width = width;
    ts_world_id world = ts_create_world(&def);
    if (ts_world_id_is_null(world)) {
        return world;
    }
    ts_body_def body = ts_default_body_def();
    body.position = (ts_vec3){0, -1, 0};
    ts_shape_def shape = ts_default_shape_def();
    ts_box ground = {{400, 1, 400}};
    ts_create_box_shape(ts_create_body(world, &body), &shape, &ground);
    body.type = TS_BODY_DYNAMIC;
    shape.density = 100.0f;
    ts_box box = {{0.5f, 0.5f, 0.5f}};
    for (int r = 0; r < base; ++r) {
        for (int j = r; j < base; ++j) {
            body.position = (ts_vec3){(float)(r + 1) * 0.5f + (float)(j - r) - (float)base * 0.5f,
                                      (float)(2 * r + 1) * 0.5f, 0.0f};
            ts_create_box_shape(ts_create_body(world, &body), &shape, &box);
        }
    }
    return world;
}

int main(int argc, char **argv)
{
    int base = argc > 1 ? atoi(argv[1]) : 100;
    int steps = argc > 2 ? atoi(argv[2]) : 30;
    if (base < 2 || steps < 1) {
        fprintf(stderr, "usage: tessera-kernel-bench [base >= 2] [steps >= 1]\n");
        return 2;
    }
    printf("large_pyramid B=%d, 1 thread, 4 substeps, %d timed steps: ns per manifold per pass\n", base, steps);
    printf("%6s %10s %10s %10s %10s %10s\n", "width", "manifolds", "prepare", "warm", "solve", "relax");
    int widths[] = {1, 4, 8, 16};
    for (int k = 0; k < 4; ++k) {
        ts_world_id world = build(widths[k], base);
        if (ts_world_id_is_null(world)) {
            printf("%6d not built: %s\n", widths[k], ts_last_error());
            continue;
        }
        for (int i = 0; i < 5; ++i) {
            ts_world_step(world, 1.0f / 60.0f);
        }
        ts_step_profile sum = {0};
        for (int i = 0; i < steps; ++i) {
            ts_world_step(world, 1.0f / 60.0f);
            ts_step_profile p;
            ts_world_get_profile(world, &p);
            sum.prepare += p.prepare;
            sum.warm_start += p.warm_start;
            sum.solve += p.solve;
            sum.relax += p.relax;
        }
        ts_world_counters c;
        ts_world_get_counters(world, &c);
        double passes = (double)steps * 4.0 * c.touching_count;
        printf("%6d %10d %10.1f %10.1f %10.1f %10.1f\n", c.simd_width, c.touching_count,
               1.0e6 * sum.prepare / ((double)steps * c.touching_count), 1.0e6 * sum.warm_start / passes,
               1.0e6 * sum.solve / passes, 1.0e6 * sum.relax / passes);
        ts_destroy_world(world);
    }
    return 0;
}

// SPDX-License-Identifier: MIT
/* tessera-bulk-bench: what a backend pays to write the state of many
 * bodies each frame, one call per body and quantity against one bulk call.
 *
 *   tessera-bulk-bench [N] [rounds] [single|bulk|both]
 *
 * N boxes (default 4096) rest on a ground box in a grid, 1 cm apart from
 * their neighbours' reach (every one touches the ground: a contact to walk
 * when waking). A round writes every body's position, rotation and
 * linear and angular velocity (small corrections, as a network or an
 * animation system sends them), either with ts_body_set_transform +
 * ts_body_set_linear_velocity + ts_body_set_angular_velocity per body
 * (single) or with one ts_world_set_body_states (bulk), then steps the
 * world once (untimed) so the next round starts from a normal world. The
 * two are interleaved round by round and the best round of each is
 * printed (this machine's clock drifts; the best of many interleaved
 * rounds is the least disturbed). For instruction counts, run one mode
 * under callgrind with --toggle-collect=write_single or
 * --toggle-collect=write_bulk. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tessera/tessera.h"

typedef struct frame_values {
    ts_vec3 *p, *v, *w;
    ts_quat *q;
} frame_values;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

__attribute__((noinline)) static void write_single(const ts_body_id *ids, int n, const frame_values *f)
{
    for (int i = 0; i < n; ++i) {
        ts_body_set_transform(ids[i], f->p[i], f->q[i]);
        ts_body_set_linear_velocity(ids[i], f->v[i]);
        ts_body_set_angular_velocity(ids[i], f->w[i]);
    }
}

__attribute__((noinline)) static void write_bulk(ts_world_id world, const ts_body_id *ids, int n,
                                                 const frame_values *f)
{
    ts_body_state_arrays arrays = {ts_vec3_structs(f->p, sizeof(ts_vec3)), ts_quat_structs(f->q, sizeof(ts_quat)),
                                   ts_vec3_structs(f->v, sizeof(ts_vec3)), ts_vec3_structs(f->w, sizeof(ts_vec3))};
    if (ts_world_set_body_states(world, ids, n, &arrays) != TS_OK) {
        fprintf(stderr, "%s\n", ts_last_error());
        exit(1);
    }
}

static ts_world_id make_world(int n, ts_body_id *ids)
{
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    def.enable_sleep = false;
    def.body_capacity = n + 1;
    def.shape_capacity = n + 1;
    ts_world_id world = ts_create_world(&def);
    int side = (int)ceil(sqrt((double)n));
    float extent = 1.1f * (float)side;
    ts_shape_def shape = ts_default_shape_def();
    ts_body_def ground = ts_default_body_def();
    ground.position = (ts_vec3){0, -1, 0};
    ts_create_box_shape(ts_create_body(world, &ground), &shape, &(ts_box){{extent, 1, extent}});
    for (int i = 0; i < n; ++i) {
        ts_body_def def_i = ts_default_body_def();
        def_i.type = TS_BODY_DYNAMIC;
        def_i.position = (ts_vec3){1.1f * (float)(i % side) - 0.5f * extent, 0.5f, 1.1f * (float)(i / side) - 0.5f * extent};
        ids[i] = ts_create_body(world, &def_i);
        ts_create_box_shape(ids[i], &shape, &(ts_box){{0.5f, 0.5f, 0.5f}});
    }
    for (int s = 0; s < 10; ++s) {
        ts_world_step(world, 1.0f / 60.0f);
    }
    return world;
}

/* This round's values: the bodies' transforms nudged by a millimetre, a
 * small turn, small velocities. */
static void make_values(ts_world_id world, const ts_body_id *ids, int n, int round, frame_values *f)
{
    ts_body_state_arrays now = {ts_vec3_structs(f->p, sizeof(ts_vec3)), ts_quat_structs(f->q, sizeof(ts_quat)),
                                {0}, {0}};
    ts_world_get_body_states(world, ids, n, &now);
    float s = round % 2 == 0 ? 1.0f : -1.0f;
    for (int i = 0; i < n; ++i) {
        f->p[i].x += 0.001f * s;
        f->q[i] = (ts_quat){0.0f, 0.0049999792f * s, 0.0f, 0.9999875f};
        f->v[i] = (ts_vec3){0.01f * s, 0.0f, 0.0f};
        f->w[i] = (ts_vec3){0.0f, 0.02f * s, 0.0f};
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    const char *mode = argc > 3 ? argv[3] : "both";
    bool single = strcmp(mode, "bulk") != 0, bulk = strcmp(mode, "single") != 0;
    ts_body_id *ids_a = malloc((size_t)n * sizeof *ids_a), *ids_b = malloc((size_t)n * sizeof *ids_b);
    frame_values f = {malloc((size_t)n * sizeof(ts_vec3)), malloc((size_t)n * sizeof(ts_vec3)),
                      malloc((size_t)n * sizeof(ts_vec3)), malloc((size_t)n * sizeof(ts_quat))};
    ts_world_id world_a = make_world(n, ids_a), world_b = make_world(n, ids_b);
    double best_single = 1e30, best_bulk = 1e30;
    for (int r = 0; r < rounds; ++r) {
        if (single) {
            make_values(world_a, ids_a, n, r, &f);
            double t = now_ms();
            write_single(ids_a, n, &f);
            t = now_ms() - t;
            best_single = t < best_single ? t : best_single;
            ts_world_step(world_a, 1.0f / 60.0f);
        }
        if (bulk) {
            make_values(world_b, ids_b, n, r, &f);
            double t = now_ms();
            write_bulk(world_b, ids_b, n, &f);
            t = now_ms() - t;
            best_bulk = t < best_bulk ? t : best_bulk;
            ts_world_step(world_b, 1.0f / 60.0f);
        }
    }
    printf("%d bodies, best of %d interleaved rounds: one-body setters %.3f ms, ts_world_set_body_states %.3f ms "
           "(%.1fx)\n",
           n, rounds, single ? best_single : 0.0, bulk ? best_bulk : 0.0,
           single && bulk ? best_single / best_bulk : 0.0);
    ts_destroy_world(world_a);
    ts_destroy_world(world_b);
    free(ids_a);
    free(ids_b);
    free(f.p);
    free(f.v);
    free(f.w);
    free(f.q);
    return 0;
}

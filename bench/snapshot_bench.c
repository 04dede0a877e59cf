/* tessera-snapshot-bench: how long ts_world_save and ts_world_load take,
 * and how large the snapshot is, for a pile of N bodies (shared/scenes.md's
 * pile, 10,000 by default) after it has fallen for a while (contacts,
 * islands and warm-start impulses to save). One thread, best of 7 rounds
 * (this VM drifts; the best is the least disturbed).
 *
 *   tessera-snapshot-bench [--count N] [--steps S] [--save FILE]
 *
 * --save FILE also writes the snapshot to FILE (to profile the loader on
 * its own, or to seed the loader's fuzzer). */
#include "bench_timing.h"
#include "build_tessera.h"
#include "scene_registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* This thread's CPU time: on a shared machine the wall clock also counts
 * the time other processes held the core. */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

int main(int argc, char **argv)
{
    int count = 10000, steps = 120;
    const char *save_path = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--count") == 0) {
            count = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--steps") == 0) {
            steps = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--save") == 0) {
            save_path = argv[i + 1];
        }
    }
    const scene_info *pile = scene_find("pile");
    scene_params p = pile->defaults;
    p.count = count;
    scene_desc desc;
    scene_describe(pile, &p, &desc);
    tessera_settings settings = {1, 4, 0.0f, 0, TS_SOLVER_SOFT_STEP};
    char error[256];
    ts_world_id world = tessera_create_world(&desc, &settings, error, sizeof error);
    ts_body_id *bodies = malloc(sizeof(ts_body_id) * (size_t)desc.body_count);
    if (ts_world_id_is_null(world) || !tessera_build_scene(world, &desc, bodies, error, sizeof error)) {
        fprintf(stderr, "pile: %s\n", error);
        return 1;
    }
    for (int i = 0; i < steps; ++i) {
        ts_world_step(world, 1.0f / 60.0f);
    }
    size_t size = 0;
    ts_world_save(world, NULL, 0, &size);
    void *data = malloc(size);
    double save_ms = 1e30, load_ms = 1e30, save_cpu = 1e30, load_cpu = 1e30;
    for (int round = 0; round < 7; ++round) {
        double c0 = cpu_ms(), t0 = bench_now_ms();
        if (ts_world_save(world, data, size, &size) != TS_OK) {
            fprintf(stderr, "save: %s\n", ts_last_error());
            return 1;
        }
        double t1 = bench_now_ms(), c1 = cpu_ms();
        ts_world_def def = ts_default_world_def();
        def.threads = 1;
        ts_world_id loaded;
        if (ts_world_load(data, size, &def, &loaded) != TS_OK) {
            fprintf(stderr, "load: %s\n", ts_last_error());
            return 1;
        }
        double t2 = bench_now_ms(), c2 = cpu_ms();
        ts_destroy_world(loaded);
        save_ms = t1 - t0 < save_ms ? t1 - t0 : save_ms;
        load_ms = t2 - t1 < load_ms ? t2 - t1 : load_ms;
        save_cpu = c1 - c0 < save_cpu ? c1 - c0 : save_cpu;
        load_cpu = c2 - c1 < load_cpu ? c2 - c1 : load_cpu;
    }
    ts_world_counters c;
    ts_world_get_counters(world, &c);
    printf("pile of %d bodies after %d steps (%d contacts, %d touching, %d islands): snapshot %zu bytes "
           "(%.2f MB), save %.2f ms (CPU %.2f), load %.2f ms (CPU %.2f) (one thread, best of 7)\n",
           c.body_count, steps, c.contact_count, c.touching_count, c.island_count, size, size / 1e6, save_ms,
           save_cpu, load_ms, load_cpu);
    if (save_path != NULL && ts_world_save_file(world, save_path) != TS_OK) {
        fprintf(stderr, "save: %s\n", ts_last_error());
        return 1;
    }
    free(data);
    free(bodies);
    ts_destroy_world(world);
    scene_desc_free(&desc);
    return 0;
}

/* tessera-ray-bench: rays per second of tessera's ray queries.
 *
 * Builds a scene of shared/scenes.md (large_pyramid and pile by default),
 * steps it (the pile 120 steps, so that it is a pile), then casts N random
 * rays (default 100,000): from points on a sphere around the scene's
 * dynamic bodies towards random points of their bounding box, each twice
 * the sphere's radius long. It times, best of R rounds (default 5):
 *
 *   loop      ts_world_cast_ray once per ray (one thread)
 *   batch 1   ts_world_cast_rays on one worker
 *   batch 2   ts_world_cast_rays on two workers
 *
 * and checks that the batches' hits equal the loop's bit for bit. The
 * rounds of the three are interleaved, so a machine busy with other work
 * slows them alike; the best round is the one least disturbed. The
 * one-thread modes also report the calling thread's CPU time
 * (cpu_rays_per_second): on a machine shared with other work, the wall
 * clock counts the time the thread waited for a core, the CPU time not.
 *
 *   tessera-ray-bench [--scene NAME]... [--rays N] [--rounds R] [--width W] [--small]
 *
 * One JSON object per scene and mode on stdout. */
#include "build_tessera.h"
#include "scene_registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu_s(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }

static uint32_t rng = 0x2545F491u;

static float frand(float lo, float hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return lo + (hi - lo) * (float)(rng >> 8) * (1.0f / 16777216.0f);
}

typedef struct ray_set {
    ts_vec3 *origins, *directions;
    float *lengths;
    int count;
} ray_set;

/* Rays from a sphere around the dynamic bodies' box into that box. */
static void make_rays(const scene_desc *desc, int count, ray_set *rays)
{
    scene_vec3 lo = {1e30f, 1e30f, 1e30f}, hi = {-1e30f, -1e30f, -1e30f};
    for (int i = desc->first_dynamic; i < desc->body_count; ++i) {
        scene_vec3 p = desc->bodies[i].position;
        lo = (scene_vec3){p.x < lo.x ? p.x : lo.x, p.y < lo.y ? p.y : lo.y, p.z < lo.z ? p.z : lo.z};
        hi = (scene_vec3){p.x > hi.x ? p.x : hi.x, p.y > hi.y ? p.y : hi.y, p.z > hi.z ? p.z : hi.z};
    }
    scene_vec3 c = {0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y), 0.5f * (lo.z + hi.z)};
    float dx = hi.x - lo.x + 1.0f, dy = hi.y - lo.y + 1.0f, dz = hi.z - lo.z + 1.0f;
    float radius = 0.75f * sqrtf(dx * dx + dy * dy + dz * dz);
    rays->origins = malloc(sizeof(ts_vec3) * (size_t)count);
    rays->directions = malloc(sizeof(ts_vec3) * (size_t)count);
    rays->lengths = malloc(sizeof(float) * (size_t)count);
    rays->count = count;
    for (int i = 0; i < count; ++i) {
        ts_vec3 u;
        float l;
        do {
            u = (ts_vec3){frand(-1, 1), frand(-1, 1), frand(-1, 1)};
            l = sqrtf(u.x * u.x + u.y * u.y + u.z * u.z);
        } while (l < 0.1f || l > 1.0f);
        ts_vec3 o = {c.x + radius * u.x / l, c.y + radius * u.y / l, c.z + radius * u.z / l};
        ts_vec3 t = {frand(lo.x - 0.5f, hi.x + 0.5f), frand(lo.y - 0.5f, hi.y + 0.5f), frand(lo.z - 0.5f, hi.z + 0.5f)};
        rays->origins[i] = o;
        rays->directions[i] = (ts_vec3){t.x - o.x, t.y - o.y, t.z - o.z};
        rays->lengths[i] = 2.0f * radius;
    }
}

static bool same_hit(const ts_cast_hit *a, const ts_cast_hit *b)
{
    return a->hit == b->hit && memcmp(&a->shape, &b->shape, sizeof a->shape) == 0 &&
           memcmp(&a->point, &b->point, sizeof a->point) == 0 && memcmp(&a->normal, &b->normal, sizeof a->normal) == 0 &&
           memcmp(&a->fraction, &b->fraction, sizeof a->fraction) == 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: tessera-ray-bench [--scene NAME]... [--rays N] [--rounds R] [--width W] [--small]\n"
                    "  defaults: --scene large_pyramid --scene pile --rays 100000 --rounds 5, the widest width\n");
}

static int run_scene(const char *name, bool small, int ray_count, int rounds, int width)
{
    const scene_info *scene = scene_find(name);
    if (scene == NULL || scene->missing != NULL) {
        fprintf(stderr, "tessera-ray-bench: no scene %s\n", name);
        return 1;
    }
    scene_desc desc;
    scene_describe(scene, small ? &scene->small : &scene->defaults, &desc);
    tessera_settings settings = {1, 4, 0.0f, width, TS_SOLVER_SOFT_STEP};
    char error[256];
    ts_world_id world = tessera_create_world(&desc, &settings, error, sizeof error);
    ts_body_id *bodies = malloc(sizeof(ts_body_id) * (size_t)desc.body_count);
    if (ts_world_id_is_null(world) || !tessera_build_scene(world, &desc, bodies, error, sizeof error)) {
        fprintf(stderr, "tessera-ray-bench: %s\n", error);
        return 1;
    }
    int steps = strcmp(name, "pile") == 0 ? 120 : 1;
    for (int s = 0; s < steps; ++s) {
        ts_world_step(world, 1.0f / 60.0f);
    }
    rng = 0x2545F491u;
    ray_set rays;
    make_rays(&desc, ray_count, &rays);
    ts_cast_hit *loop_hits = malloc(sizeof(ts_cast_hit) * (size_t)ray_count);
    ts_cast_hit *batch_hits = malloc(sizeof(ts_cast_hit) * (size_t)ray_count);
    double best[3] = {1e30, 1e30, 1e30};
    double best_cpu[3] = {1e30, 1e30, 1e30}; /* the calling thread's CPU time (one-thread modes) */
    int mismatches = 0, hit_count = 0;
    for (int round = 0; round < rounds; ++round) {
        double start = now_s(), start_cpu = cpu_s();
        for (int i = 0; i < ray_count; ++i) {
            ts_world_cast_ray(world, rays.origins[i], rays.directions[i], rays.lengths[i], NULL, loop_hits + i);
        }
        double t = now_s() - start, t_cpu = cpu_s() - start_cpu;
        best[0] = t < best[0] ? t : best[0];
        best_cpu[0] = t_cpu < best_cpu[0] ? t_cpu : best_cpu[0];
        for (int threads = 1; threads <= 2; ++threads) {
            ts_world_set_threads(world, threads);
            memset(batch_hits, 0, sizeof(ts_cast_hit) * (size_t)ray_count);
            start = now_s();
            start_cpu = cpu_s();
            ts_result r = ts_world_cast_rays(world, rays.origins, rays.directions, rays.lengths, ray_count, NULL,
                                             batch_hits);
            t = now_s() - start;
            t_cpu = cpu_s() - start_cpu;
            best_cpu[threads] = t_cpu < best_cpu[threads] ? t_cpu : best_cpu[threads];
            if (r != TS_OK) {
                fprintf(stderr, "tessera-ray-bench: %s\n", ts_last_error());
                return 1;
            }
            best[threads] = t < best[threads] ? t : best[threads];
            for (int i = 0; i < ray_count; ++i) {
                mismatches += !same_hit(loop_hits + i, batch_hits + i);
            }
        }
    }
    for (int i = 0; i < ray_count; ++i) {
        hit_count += loop_hits[i].hit;
    }
    ts_world_counters counters;
    ts_world_get_counters(world, &counters);
    const char *modes[3] = {"loop", "batch", "batch"};
    const int threads[3] = {1, 1, 2};
    for (int m = 0; m < 3; ++m) {
        printf("{\"scene\": \"%s\", \"bodies\": %d, \"shapes\": %d, \"rays\": %d, \"hits\": %d, \"mode\": \"%s\", "
               "\"threads\": %d, \"width\": %d, \"best_of\": %d, \"seconds\": %.6f, \"rays_per_second\": %.0f, "
               "\"cpu_rays_per_second\": %.0f, \"mismatches\": %d}\n",
               name, counters.body_count, counters.shape_count, ray_count, hit_count, modes[m], threads[m],
               counters.simd_width, rounds, best[m], (double)ray_count / best[m],
               threads[m] == 1 ? (double)ray_count / best_cpu[m] : 0.0, mismatches);
    }
    ts_destroy_world(world);
    free(bodies);
    free(rays.origins);
    free(rays.directions);
    free(rays.lengths);
    free(loop_hits);
    free(batch_hits);
    scene_desc_free(&desc);
    return mismatches != 0;
}

int main(int argc, char **argv)
{
    const char *scenes[8];
    int scene_count = 0, ray_count = 100000, rounds = 5, width = 0;
    bool small = false;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc && scene_count < 8) {
            scenes[scene_count++] = argv[++i];
        } else if (strcmp(argv[i], "--rays") == 0 && i + 1 < argc) {
            ray_count = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--width") == 0 && i + 1 < argc) {
            width = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--small") == 0) {
            small = true;
        } else {
            usage();
            return 2;
        }
    }
    if (ray_count < 1 || rounds < 1) {
        usage();
        return 2;
    }
    if (scene_count == 0) {
        scenes[scene_count++] = "large_pyramid";
        scenes[scene_count++] = "pile";
    }
    int failed = 0;
    for (int s = 0; s < scene_count; ++s) {
        failed |= run_scene(scenes[s], small, ray_count, rounds, width);
    }
    return failed;
}

/* tessera-bench: builds a standard scene, steps it, and reports the time of a
 * step (mean, median, slowest; min and median across runs) and the per-stage
 * profile, as a table or as one JSON object per run. */
#include "scenes.h"
#include "tessera/tessera.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct options {
    const char *scene;
    ts_scene_params params;
    int steps;   /* 0 = the scene's own count */
    int runs;
    int threads; /* 0 = every core */
    int substeps;
    int json;
    int collide_only; /* zero gravity: the scene stays in its initial state; times collision */
} options;

typedef struct run_result {
    int bodies;
    int threads;
    int contacts, touching, points; /* at the last step */
    double first_update_pairs_ms;    /* the first step's pair update: every pair is new */
    double mean_ms, median_ms, max_ms;
    ts_step_profile stage_ms; /* mean over the timed steps */
} run_result;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec * 1.0e-6;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof(double), compare_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

static void usage(void)
{
    printf("usage: tessera-bench [--scene NAME|all] [--count N] [--base B] [--grid G] [--height H]\n"
           "                     [--side S] [--stacks K] [--steps N] [--runs R] [--threads T]\n"
           "                     [--substeps S] [--json] [--list] [--collide-only]\n"
           "Scenes are those of shared/scenes.md, plus free_fall (N free bodies, no contacts).\n"
           "--collide-only runs a scene that waits for the solver with gravity off, so that it\n"
           "stays in its initial state, and times the collision stages on it.\n");
}

static void list_scenes(void)
{
    for (const ts_scene *s = ts_scenes; s->name != NULL; ++s) {
        printf("%-14s %s%s%s\n", s->name, s->missing ? "unavailable: needs " : "available",
               s->missing ? s->missing : "", s->missing && s->build ? " (--collide-only runs it)" : "");
    }
}

static int run_scene(const ts_scene *scene, const options *o, run_result *out)
{
    ts_world_def def = ts_default_world_def();
    def.threads = o->threads;
    def.substeps = o->substeps;
    ts_world_id world = ts_create_world(&def);
    if (ts_world_id_is_null(world)) {
        fprintf(stderr, "tessera-bench: %s\n", ts_last_error());
        return -1;
    }
    out->bodies = scene->build(world, &o->params);
    if (out->bodies < 0) {
        fprintf(stderr, "tessera-bench: building %s failed: %s\n", scene->name, ts_last_error());
        ts_destroy_world(world);
        return -1;
    }
    if (o->collide_only) {
        ts_world_set_gravity(world, (ts_vec3){0, 0, 0});
    }
    const float dt = 1.0f / 60.0f;
    out->first_update_pairs_ms = -1.0;
    for (int i = 0; i < scene->warmup_steps; ++i) {
        ts_world_step(world, dt);
        if (i == 0) {
            ts_step_profile p;
            ts_world_get_profile(world, &p);
            out->first_update_pairs_ms = p.update_pairs;
        }
    }
    int steps = o->steps > 0 ? o->steps : scene->steps;
    double *times = malloc(sizeof(double) * (size_t)steps);
    ts_step_profile sum = {0};
    double total = 0.0;
    out->max_ms = 0.0;
    for (int i = 0; i < steps; ++i) {
        double start = now_ms();
        ts_world_step(world, dt);
        times[i] = now_ms() - start;
        total += times[i];
        out->max_ms = times[i] > out->max_ms ? times[i] : out->max_ms;
        ts_step_profile p;
        ts_world_get_profile(world, &p);
        if (out->first_update_pairs_ms < 0.0) {
            out->first_update_pairs_ms = p.update_pairs;
        }
        sum.step += p.step;
        sum.update_pairs += p.update_pairs;
        sum.narrowphase += p.narrowphase;
        sum.integrate_velocities += p.integrate_velocities;
        sum.integrate_positions += p.integrate_positions;
        sum.finalize += p.finalize;
    }
    out->mean_ms = total / steps;
    out->median_ms = median(times, steps);
    out->stage_ms = (ts_step_profile){sum.step / steps, sum.update_pairs / steps, sum.narrowphase / steps,
                                      sum.integrate_velocities / steps, sum.integrate_positions / steps,
                                      sum.finalize / steps};
    ts_world_counters counters;
    ts_world_get_counters(world, &counters);
    out->threads = counters.thread_count;
    out->contacts = counters.contact_count;
    out->touching = counters.touching_count;
    out->points = counters.point_count;
    free(times);
    ts_destroy_world(world);
    return 0;
}

static void print_json(const ts_scene *scene, const options *o, const run_result *r, int run)
{
    const ts_scene_params *p = &o->params;
    printf("{\"engine\":\"tessera\",\"version\":\"%s\",\"scene\":\"%s\",\"run\":%d,"
           "\"params\":{\"base\":%d,\"grid\":%d,\"height\":%d,\"count\":%d,\"side\":%d,\"stacks\":%d},"
           "\"threads\":%d,\"solver\":\"%s\",\"substeps\":%d,\"steps\":%d,\"bodies\":%d,"
           "\"contacts\":%d,\"touching\":%d,\"contact_points\":%d,"
           "\"ms_mean\":%.4f,\"ms_median\":%.4f,\"ms_max\":%.4f,\"ns_per_body_step\":%.3f,"
           "\"first_update_pairs_ms\":%.4f,"
           "\"stages\":{\"update_pairs\":%.4f,\"narrowphase\":%.4f,\"integrate_velocities\":%.4f,"
           "\"integrate_positions\":%.4f,\"finalize\":%.4f}}\n",
           TS_VERSION_STRING, scene->name, run, p->base, p->grid, p->height, p->count, p->side, p->stacks,
           r->threads, o->collide_only ? "none (collide only)" : "soft_step", o->substeps,
           o->steps > 0 ? o->steps : scene->steps, r->bodies, r->contacts, r->touching, r->points, r->mean_ms,
           r->median_ms, r->max_ms, 1.0e6 * r->mean_ms / r->bodies, r->first_update_pairs_ms,
           r->stage_ms.update_pairs, r->stage_ms.narrowphase, r->stage_ms.integrate_velocities,
           r->stage_ms.integrate_positions, r->stage_ms.finalize);
}

static int bench_scene(const ts_scene *scene, const options *o)
{
    if (scene->missing != NULL && !(o->collide_only && scene->build != NULL)) {
        fprintf(stderr, "tessera-bench: scene %s is unavailable: it needs %s%s\n", scene->name, scene->missing,
                scene->build != NULL ? " (--collide-only times its collision)" : "");
        return 1;
    }
    run_result *runs = calloc((size_t)o->runs, sizeof(run_result));
    double *medians = malloc(sizeof(double) * (size_t)o->runs);
    for (int r = 0; r < o->runs; ++r) {
        if (run_scene(scene, o, &runs[r]) != 0) {
            free(runs);
            free(medians);
            return 1;
        }
        medians[r] = runs[r].median_ms;
        if (o->json) {
            print_json(scene, o, &runs[r], r);
        }
    }
    if (!o->json) {
        const run_result *first = &runs[0];
        double best = runs[0].median_ms;
        for (int r = 1; r < o->runs; ++r) {
            best = runs[r].median_ms < best ? runs[r].median_ms : best;
        }
        double mid = median(medians, o->runs);
        printf("scene %s: %d bodies, %d threads, %d substeps, %d timed steps x %d runs\n", scene->name, first->bodies,
               first->threads, o->substeps, o->steps > 0 ? o->steps : scene->steps, o->runs);
        printf("  step ms      mean %.3f  median %.3f  max %.3f (first run); median across runs: min %.3f, median %.3f\n",
               first->mean_ms, first->median_ms, first->max_ms, best, mid);
        printf("  stages ms    update pairs %.3f  narrowphase %.3f  integrate velocities %.3f  "
               "integrate positions %.3f  finalize %.3f\n",
               first->stage_ms.update_pairs, first->stage_ms.narrowphase, first->stage_ms.integrate_velocities,
               first->stage_ms.integrate_positions, first->stage_ms.finalize);
        printf("  contacts     %d pairs, %d touching, %d points at the last step\n", first->contacts,
               first->touching, first->points);
        if (first->contacts > 0) {
            printf("  collision    first pair update %.3f ms (%.0f ns per new pair); narrowphase %.0f ns per pair\n",
                   first->first_update_pairs_ms, 1.0e6 * first->first_update_pairs_ms / first->contacts,
                   1.0e6 * first->stage_ms.narrowphase / first->contacts);
        }
        if (!o->collide_only) {
            printf("  integration  %.2f ns per body per step, %.2f ns per body per substep\n",
                   1.0e6 * (first->stage_ms.integrate_velocities + first->stage_ms.integrate_positions) / first->bodies,
                   1.0e6 * (first->stage_ms.integrate_velocities + first->stage_ms.integrate_positions) /
                       first->bodies / o->substeps);
        }
    }
    free(runs);
    free(medians);
    return 0;
}

static int parse_int(const char *text, const char *flag, int minimum)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < minimum || v > 100000000) {
        fprintf(stderr, "tessera-bench: %s needs an integer >= %d, got '%s'\n", flag, minimum, text);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    options o = {.scene = "free_fall", .runs = 1, .threads = 0, .substeps = 4};
    int set[6] = {0}; /* which scene parameters were given */
    ts_scene_params given = {0};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            return 0;
        } else if (strcmp(a, "--list") == 0) {
            list_scenes();
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            o.json = 1;
        } else if (strcmp(a, "--collide-only") == 0) {
            o.collide_only = 1;
        } else if (v == NULL) {
            fprintf(stderr, "tessera-bench: %s needs a value (see --help)\n", a);
            return 2;
        } else if (strcmp(a, "--scene") == 0) {
            o.scene = argv[++i];
        } else if (strcmp(a, "--steps") == 0) {
            o.steps = parse_int(argv[++i], a, 1);
        } else if (strcmp(a, "--runs") == 0) {
            o.runs = parse_int(argv[++i], a, 1);
        } else if (strcmp(a, "--threads") == 0) {
            o.threads = parse_int(argv[++i], a, 0);
        } else if (strcmp(a, "--substeps") == 0) {
            o.substeps = parse_int(argv[++i], a, 1);
        } else if (strcmp(a, "--base") == 0) {
            given.base = parse_int(argv[++i], a, 1), set[0] = 1;
        } else if (strcmp(a, "--grid") == 0) {
            given.grid = parse_int(argv[++i], a, 2), set[1] = 1;
        } else if (strcmp(a, "--height") == 0) {
            given.height = parse_int(argv[++i], a, 1), set[2] = 1;
        } else if (strcmp(a, "--count") == 0) {
            given.count = parse_int(argv[++i], a, 1), set[3] = 1;
        } else if (strcmp(a, "--side") == 0) {
            given.side = parse_int(argv[++i], a, 2), set[4] = 1;
        } else if (strcmp(a, "--stacks") == 0) {
            given.stacks = parse_int(argv[++i], a, 1), set[5] = 1;
        } else {
            fprintf(stderr, "tessera-bench: unknown option %s (see --help)\n", a);
            return 2;
        }
    }
    int failures = 0;
    for (const ts_scene *s = ts_scenes; s->name != NULL; ++s) {
        if (strcmp(o.scene, "all") != 0 && strcmp(o.scene, s->name) != 0) {
            continue;
        }
        if (strcmp(o.scene, "all") == 0 && s->missing != NULL && !(o.collide_only && s->build != NULL)) {
            printf("scene %s: unavailable (needs %s)\n", s->name, s->missing);
            continue;
        }
        o.params = ts_scene_default_params(s->name);
        o.params.base = set[0] ? given.base : o.params.base;
        o.params.grid = set[1] ? given.grid : o.params.grid;
        o.params.height = set[2] ? given.height : o.params.height;
        o.params.count = set[3] ? given.count : o.params.count;
        o.params.side = set[4] ? given.side : o.params.side;
        o.params.stacks = set[5] ? given.stacks : o.params.stacks;
        failures += bench_scene(s, &o);
        if (strcmp(o.scene, "all") != 0) {
            return failures ? 1 : 0;
        }
    }
    if (strcmp(o.scene, "all") != 0) {
        fprintf(stderr, "tessera-bench: no scene named %s (see --list)\n", o.scene);
        return 2;
    }
    return failures ? 1 : 0;
}

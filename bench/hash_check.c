/* tessera-hashes: the state hash (ts_world_state_hash) of every bench
 * scene's small variant after a fixed number of steps, for both solvers,
 * checked equal over every SIMD width and 1 and 2 threads; and snapshots
 * of the same worlds saved halfway, to resume on another CPU. It needs no
 * test framework, so that the aarch64 cross build (scripts/check_arm.sh,
 * run under qemu-user) runs it as it is.
 *
 *   tessera-hashes                     prints "scene solver hash" lines
 *   tessera-hashes --expect FILE       and fails unless they equal FILE's
 *   tessera-hashes --save-dir DIR      also saves each world at step STEPS/2
 *   tessera-hashes --resume-dir DIR    and checks that each snapshot in DIR,
 *                                      loaded and run to STEPS, ends with
 *                                      the same hash
 *   --widths 1,8 --threads 1           a subset of the matrix
 *
 * Why equality and no tolerance: the promise is bitwise (design.md,
 * "Threads and determinism"), across widths, threads and CPUs. */
#include "build_tessera.h"
#include "scene_registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 60

typedef struct options {
    const char *expect, *save_dir, *resume_dir;
    int widths[4], width_count;
    int threads[2], thread_count;
} options;

static ts_world_id scene_world(const scene_info *s, ts_solver_type solver, int width, int threads)
{
    scene_desc desc;
    scene_describe(s, &s->small, &desc);
    tessera_settings settings = {threads, 4, 0.0f, width, solver};
    char error[256];
    ts_world_id world = tessera_create_world(&desc, &settings, error, sizeof error);
    ts_body_id *bodies = malloc(sizeof(ts_body_id) * (size_t)(desc.body_count > 0 ? desc.body_count : 1));
    if (!ts_world_id_is_null(world) && !tessera_build_scene(world, &desc, bodies, error, sizeof error)) {
        ts_destroy_world(world);
        world = TS_NULL_WORLD_ID;
    }
    free(bodies);
    scene_desc_free(&desc);
    return world;
}

static bool run(ts_world_id world, int steps)
{
    for (int i = 0; i < steps; ++i) {
        if (ts_world_step(world, 1.0f / 60.0f) != TS_OK) {
            return false;
        }
    }
    return true;
}

static uint64_t hash_of(ts_world_id world)
{
    uint64_t h = 0;
    ts_world_state_hash(world, &h);
    return h;
}

/* The hash a scene and solver end with over the matrix; 0 when two cells
 * differ (printed) or the world failed. */
static uint64_t matrix_hash(const options *o, const scene_info *s, ts_solver_type solver)
{
    uint64_t first = 0;
    for (int w = 0; w < o->width_count; ++w) {
        for (int t = 0; t < o->thread_count; ++t) {
            ts_world_id world = scene_world(s, solver, o->widths[w], o->threads[t]);
            if (ts_world_id_is_null(world)) {
                fprintf(stderr, "%s %s, width %d, %d threads: %s\n", s->name, tessera_solver_name(solver),
                        o->widths[w], o->threads[t], ts_last_error());
                return 0;
            }
            bool ok = run(world, STEPS / 2);
            if (ok && o->save_dir != NULL && w == 0 && t == 0) {
                char path[512];
                snprintf(path, sizeof path, "%s/%s-%s.snap", o->save_dir, s->name, tessera_solver_name(solver));
                ts_result saved = ts_world_save_file(world, path);
                ok = saved == TS_OK || saved == TS_ERROR_UNSUPPORTED; /* a faulted body: no snapshot */
                if (!ok) {
                    fprintf(stderr, "%s\n", ts_last_error());
                }
            }
            ok = ok && run(world, STEPS - STEPS / 2);
            uint64_t h = hash_of(world);
            ts_destroy_world(world);
            if (!ok) {
                fprintf(stderr, "%s %s: a step failed: %s\n", s->name, tessera_solver_name(solver), ts_last_error());
                return 0;
            }
            if (first == 0) {
                first = h;
            } else if (h != first) {
                fprintf(stderr, "%s %s: width %d, %d threads: %016llx, width %d, %d threads: %016llx\n", s->name,
                        tessera_solver_name(solver), o->widths[0], o->threads[0], (unsigned long long)first,
                        o->widths[w], o->threads[t], (unsigned long long)h);
                return 0;
            }
        }
    }
    return first;
}

/* The snapshot of DIR loaded at each width and thread count and run to STEPS. */
static uint64_t resumed_hash(const options *o, const scene_info *s, ts_solver_type solver)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s-%s.snap", o->resume_dir, s->name, tessera_solver_name(solver));
    uint64_t first = 0;
    for (int w = 0; w < o->width_count; ++w) {
        for (int t = 0; t < o->thread_count; ++t) {
            ts_world_def def = ts_default_world_def();
            def.simd_width = o->widths[w];
            def.threads = o->threads[t];
            ts_world_id world;
            if (ts_world_load_file(path, &def, &world) != TS_OK) {
                fprintf(stderr, "%s\n", ts_last_error());
                return 0;
            }
            bool ok = run(world, STEPS - STEPS / 2);
            uint64_t h = hash_of(world);
            ts_destroy_world(world);
            if (!ok || (first != 0 && h != first)) {
                fprintf(stderr, "%s: resumed at width %d on %d threads: %016llx (first %016llx)\n", path,
                        o->widths[w], o->threads[t], (unsigned long long)h, (unsigned long long)first);
                return 0;
            }
            first = h;
        }
    }
    return first;
}

/* The expected hash of scene/solver in FILE's "scene solver hash" lines; 0 if none. */
static uint64_t expected_hash(const char *file, const char *scene, const char *solver)
{
    FILE *f = fopen(file, "r");
    if (f == NULL) {
        return 0;
    }
    char line[256], name[128], kind[32];
    unsigned long long h;
    uint64_t found = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (line[0] != '#' && sscanf(line, "%127s %31s %llx", name, kind, &h) == 3 && strcmp(name, scene) == 0 &&
            strcmp(kind, solver) == 0) {
            found = h;
        }
    }
    fclose(f);
    return found;
}

static int parse_list(const char *text, int *out, int max)
{
    int n = 0;
    for (const char *p = text; *p != '\0' && n < max;) {
        out[n++] = atoi(p);
        p = strchr(p, ',');
        if (p == NULL) {
            break;
        }
        ++p;
    }
    return n;
}

static bool parse(int argc, char **argv, options *o)
{
    *o = (options){.widths = {1, 4, 8, 16}, .width_count = 4, .threads = {1, 2}, .thread_count = 2};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--expect") == 0) {
            o->expect = argv[i + 1];
        } else if (strcmp(argv[i], "--save-dir") == 0) {
            o->save_dir = argv[i + 1];
        } else if (strcmp(argv[i], "--resume-dir") == 0) {
            o->resume_dir = argv[i + 1];
        } else if (strcmp(argv[i], "--widths") == 0) {
            o->width_count = parse_list(argv[i + 1], o->widths, 4);
        } else if (strcmp(argv[i], "--threads") == 0) {
            o->thread_count = parse_list(argv[i + 1], o->threads, 2);
        } else {
            return false;
        }
    }
    return argc % 2 == 1 && o->width_count > 0 && o->thread_count > 0;
}

int main(int argc, char **argv)
{
    options o;
    if (!parse(argc, argv, &o)) {
        fprintf(stderr, "usage: tessera-hashes [--expect FILE] [--save-dir DIR] [--resume-dir DIR] "
                        "[--widths 1,4,8,16] [--threads 1,2]\n");
        return 2;
    }
    int failed = 0;
    printf("# tessera-hashes: ts_world_state_hash after %d steps of each scene's small variant, equal over "
           "widths and threads\n",
           STEPS);
    for (const scene_info *s = scene_table; s->name != NULL; ++s) {
        for (int solver = 0; solver < 2; ++solver) {
            const char *kind = tessera_solver_name((ts_solver_type)solver);
            uint64_t h = matrix_hash(&o, s, (ts_solver_type)solver);
            printf("%s %s %016llx\n", s->name, kind, (unsigned long long)h);
            fflush(stdout);
            failed += h == 0;
            if (o.expect != NULL && h != expected_hash(o.expect, s->name, kind)) {
                fprintf(stderr, "%s %s: %016llx, %s expects %016llx\n", s->name, kind, (unsigned long long)h,
                        o.expect, (unsigned long long)expected_hash(o.expect, s->name, kind));
                failed += 1;
            }
            char path[512];
            snprintf(path, sizeof path, "%s/%s-%s.snap", o.resume_dir != NULL ? o.resume_dir : ".", s->name, kind);
            FILE *saved = o.resume_dir != NULL ? fopen(path, "rb") : NULL;
            if (saved != NULL) { /* (none when the save was refused) */
                fclose(saved);
                uint64_t r = resumed_hash(&o, s, (ts_solver_type)solver);
                if (r != h) {
                    fprintf(stderr, "%s %s: resumed from %s: %016llx, run here: %016llx\n", s->name, kind,
                            o.resume_dir, (unsigned long long)r, (unsigned long long)h);
                    failed += 1;
                }
            }
        }
    }
    if (failed > 0) {
        fprintf(stderr, "tessera-hashes: %d mismatches\n", failed);
    }
    return failed > 0 ? 1 : 0;
}

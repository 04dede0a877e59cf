/* Command-line parsing for tessera-bench and its peers (bench_cli.h). */
#include "bench_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_print_usage(const char *program)
{
    printf("usage: %s [--scene NAME|all] [--small|--huge] [--base B] [--grid G] [--height H] [--count N]\n"
           "       [--side S] [--stacks K] [--layers L] [--steps N] [--runs R] [--threads T] [--solver soft_step|xpbd]\n"
           "       [--substeps S] [--contact-hertz F] [--rolling-resistance R] [--width W] [--sweep KEY=V1,V2,...] [--compare bullet] [--json]\n"
           "       [--no-quality] [--collide-only] [--sleep] [--force] [--list] [--record FILE] [--record-contacts]\n"
           "\n"
           "Scenes are those of shared/scenes.md plus free_fall (N free spinning boxes);\n"
           "--list shows them and what each still waits for. Parameters default to scenes.md's\n"
           "(--small: each scene's small variant; --huge: the huge one, ~100k to 1M bodies, where a\n"
           "scene has one: many_pyramids G=44, free_fall N=1M; the JSON's extra has bytes_per_body). --runs R repeats each setting R times and\n"
           "reports the min and median across runs. --sweep threads=1,2,4 (or width=, substeps=,\n"
           "solver=; several --sweep combine) runs every value side by side, interleaved.\n"
           "--width W forces the solver's SIMD lanes (1, 4, 8, 16; default: TESSERA_SIMD, else the\n"
           "widest the CPU runs). --contact-hertz F sets the soft step's contact stiffness (default\n"
           "30; capped at a quarter of the substep rate, 60 Hz at 4 substeps). --json prints one JSON object per run on one line. Every run takes its scene's\n"
           "quality check (stepping on, untimed, to the step scenes.md names) unless\n"
           "--no-quality. --compare bullet also runs tessera-bench-bullet (built when\n"
           "libbullet-dev is installed) on the same scenes and prints the ratio per scene.\n"
           "--sleep turns sleeping on in every scene (tessera only; scenes.md has it off but in\n"
           "sleep_field), to see what sleeping saves once a scene comes to rest.\n"
           "--rolling-resistance R gives every dynamic shape rolling resistance R (tessera only;\n"
           "scenes.md's scenes have none: mesh_terrain's spheres and capsules roll on without it).\n"
           "--collide-only turns gravity off, so a scene keeps its initial state, and times the\n"
           "collision stages (also for scenes that wait for the solver). --force runs a scene\n"
           "that tessera does not support yet.\n"
           "--record FILE writes the first run of one scene, every step from the start, to a replay\n"
           "file for the browser viewer (viewer/, docs/recording.md); its timed steps then include\n"
           "the recording (record_ms in --json: its mean per step). --record-contacts adds the\n"
           "contact points and normals.\n",
           program);
}

void bench_print_scene_list(void)
{
    for (const scene_info *s = scene_table; s->name != NULL; ++s) {
        char params[96];
        bench_params_arguments(s, &s->defaults, params, sizeof(params));
        printf("%-14s %-26s %s%s\n", s->name, params, s->missing ? "unavailable: needs " : "available",
               s->missing ? s->missing : "");
    }
}

static int parse_int_in(const char *text, const char *flag, int minimum, int maximum, int *out)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < minimum || v > maximum) {
        fprintf(stderr, "%s needs an integer in %d..%d, got '%s'\n", flag, minimum, maximum, text);
        return 2;
    }
    *out = (int)v;
    return 0;
}

static int parse_int(const char *text, const char *flag, int minimum, int *out)
{
    return parse_int_in(text, flag, minimum, 100000000, out);
}

static int parse_sweep(char *text, bench_options *o)
{
    char *eq = strchr(text, '=');
    const char *keys[] = {"threads", "width", "substeps", "solver"};
    bool known = false;
    for (int k = 0; eq != NULL && k < 4; ++k) {
        known = known || ((size_t)(eq - text) == strlen(keys[k]) && strncmp(text, keys[k], strlen(keys[k])) == 0);
    }
    if (!known || o->sweep_count == BENCH_MAX_SWEEPS) {
        fprintf(stderr, "--sweep needs KEY=V1,V2,... with KEY threads, width, substeps or solver (at most %d sweeps),"
                        " got '%s'\n", BENCH_MAX_SWEEPS, text);
        return 2;
    }
    bench_sweep *s = &o->sweeps[o->sweep_count++];
    *eq = '\0';
    s->key = text;
    for (char *v = strtok(eq + 1, ","); v != NULL && s->count < BENCH_MAX_SWEEP_VALUES; v = strtok(NULL, ",")) {
        s->values[s->count++] = v;
    }
    return s->count > 0 ? 0 : 2;
}

static int parse_param(const char *flag, const char *value, bench_options *o, int *matched)
{
    static const struct {
        const char *flag;
        unsigned bit;
        int minimum;
    } params[] = {{"--base", SCENE_PARAM_BASE, 1},     {"--grid", SCENE_PARAM_GRID, 2},
                  {"--height", SCENE_PARAM_HEIGHT, 1}, {"--count", SCENE_PARAM_COUNT, 1},
                  {"--side", SCENE_PARAM_SIDE, 2},     {"--stacks", SCENE_PARAM_STACKS, 1},
                  {"--layers", SCENE_PARAM_LAYERS, 1}};
    int *fields[] = {&o->given.base, &o->given.grid, &o->given.height, &o->given.count, &o->given.side,
                     &o->given.stacks, &o->given.layers};
    for (int i = 0; i < 7; ++i) {
        if (strcmp(flag, params[i].flag) == 0) {
            *matched = 1;
            o->given_mask |= params[i].bit;
            return parse_int(value, flag, params[i].minimum, fields[i]);
        }
    }
    return 0;
}

static int parse_positive_float(const char *v, const char *name, float *out)
{
    char *end = NULL;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || !(x > 0.0 && x < 1.0e6)) {
        fprintf(stderr, "%s needs a positive number, got '%s'\n", name, v);
        return 2;
    }
    *out = (float)x;
    return 0;
}

/* 0 .. TS_MAX_ROLLING_RESISTANCE (the library refuses more). */
static int parse_rolling_resistance(const char *v, const char *name, float *out)
{
    char *end = NULL;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || !(x >= 0.0 && x <= 10.0)) {
        fprintf(stderr, "%s needs a number in [0, 10], got '%s'\n", name, v);
        return 2;
    }
    *out = (float)x;
    return 0;
}

static int parse_flag(const char *a, bench_options *o)
{
    bool *flags[] = {&o->json,       &o->list,  &o->help,  &o->help, &o->collide_only, &o->no_quality,
                     &o->force,      &o->small, &o->sleep, &o->huge, &o->record_contacts};
    const char *names[] = {"--json", "--list", "--help", "-h", "--collide-only", "--no-quality", "--force", "--small",
                           "--sleep", "--huge", "--record-contacts"};
    for (int i = 0; i < 11; ++i) {
        if (strcmp(a, names[i]) == 0) {
            *flags[i] = true;
            return 1;
        }
    }
    return 0;
}

static int parse_valued(const char *a, char *v, bench_options *o)
{
    int matched = 0;
    int status = parse_param(a, v, o, &matched);
    if (matched) {
        return status;
    }
    if (strcmp(a, "--scene") == 0) {
        o->scene = v;
    } else if (strcmp(a, "--steps") == 0) {
        return parse_int(v, a, 1, &o->steps);
    } else if (strcmp(a, "--runs") == 0) {
        return parse_int_in(v, a, 1, BENCH_MAX_RUNS, &o->runs);
    } else if (strcmp(a, "--threads") == 0) {
        return parse_int(v, a, 0, &o->threads);
    } else if (strcmp(a, "--substeps") == 0) {
        return parse_int(v, a, 1, &o->substeps);
    } else if (strcmp(a, "--contact-hertz") == 0) {
        return parse_positive_float(v, a, &o->contact_hertz);
    } else if (strcmp(a, "--rolling-resistance") == 0) {
        return parse_rolling_resistance(v, a, &o->rolling_resistance);
    } else if (strcmp(a, "--width") == 0) {
        return parse_int(v, a, 0, &o->width);
    } else if (strcmp(a, "--solver") == 0) {
        o->solver = v;
    } else if (strcmp(a, "--record") == 0) {
        o->record = v;
    } else if (strcmp(a, "--compare") == 0) {
        o->compare = v;
    } else if (strcmp(a, "--sweep") == 0) {
        return parse_sweep(v, o);
    } else {
        fprintf(stderr, "unknown option %s (see --help)\n", a);
        return 2;
    }
    return 0;
}

int bench_parse_options(int argc, char **argv, bench_options *o)
{
    *o = (bench_options){.scene = "free_fall", .runs = 1, .threads = -1, .substeps = -1, .width = -1};
    for (int i = 1; i < argc; ++i) {
        if (parse_flag(argv[i], o)) {
            continue;
        }
        if (strncmp(argv[i], "--", 2) != 0 || i + 1 >= argc) {
            fprintf(stderr, "%s %s (see --help)\n", argv[i],
                    strncmp(argv[i], "--", 2) == 0 ? "needs a value" : "is not an option");
            return 2;
        }
        int status = parse_valued(argv[i], argv[i + 1], o);
        ++i;
        if (status != 0) {
            return status;
        }
    }
    if (strcmp(o->scene, "all") != 0 && scene_find(o->scene) == NULL) {
        fprintf(stderr, "no scene named %s (see --list)\n", o->scene);
        return 2;
    }
    if (o->record != NULL && strcmp(o->scene, "all") == 0) {
        fprintf(stderr, "--record needs one scene (--scene NAME), not all\n");
        return 2;
    }
    if (o->record_contacts && o->record == NULL) {
        fprintf(stderr, "--record-contacts needs --record FILE\n");
        return 2;
    }
    if (o->compare != NULL && strcmp(o->compare, "bullet") != 0) {
        fprintf(stderr, "--compare knows only bullet, got '%s'\n", o->compare);
        return 2;
    }
    return 0;
}

scene_params bench_scene_params(const bench_options *o, const scene_info *scene)
{
    scene_params p = o->huge ? scene->huge : o->small ? scene->small : scene->defaults;
    p.base = o->given_mask & SCENE_PARAM_BASE ? o->given.base : p.base;
    p.grid = o->given_mask & SCENE_PARAM_GRID ? o->given.grid : p.grid;
    p.height = o->given_mask & SCENE_PARAM_HEIGHT ? o->given.height : p.height;
    p.count = o->given_mask & SCENE_PARAM_COUNT ? o->given.count : p.count;
    p.side = o->given_mask & SCENE_PARAM_SIDE ? o->given.side : p.side;
    p.stacks = o->given_mask & SCENE_PARAM_STACKS ? o->given.stacks : p.stacks;
    p.layers = o->given_mask & SCENE_PARAM_LAYERS ? o->given.layers : p.layers;
    return p;
}

void bench_params_arguments(const scene_info *scene, const scene_params *params, char *buffer, size_t size)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (unsigned bit = 1; bit <= SCENE_PARAM_LAYERS; bit <<= 1) {
        if ((scene->params_used & bit) && used < size) {
            used += (size_t)snprintf(buffer + used, size - used, "%s--%s %d", used ? " " : "", scene_param_name(bit),
                                     scene_param_value(params, bit));
        }
    }
}

/* The command line of tessera-bench (and, a subset of it, of the Bullet
 * peer): scene choice, scene parameters named as in scenes.md, run settings,
 * sweeps and output. */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include "scene_registry.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_MAX_SWEEPS 4
#define BENCH_MAX_RUNS 64
#define BENCH_MAX_SWEEP_VALUES 16

/* --sweep KEY=V1,V2,...: runs every value side by side (interleaved per run). */
typedef struct bench_sweep {
    const char *key; /* threads, width, substeps or solver */
    int count;
    const char *values[BENCH_MAX_SWEEP_VALUES];
} bench_sweep;

typedef struct bench_options {
    const char *scene;     /* a scene name or "all" */
    scene_params given;    /* scene parameters given on the command line */
    unsigned given_mask;   /* SCENE_PARAM_* bits of those given */
    bool small;            /* start from each scene's small variant */
    bool huge;             /* each scene's huge variant; scenes without one are skipped */
    int steps;             /* timed steps; 0 = each scene's own */
    int runs;              /* 1..BENCH_MAX_RUNS */
    int threads;           /* -1 = not given */
    int substeps;          /* -1 = not given */
    float contact_hertz;   /* 0 = not given (the world's default) */
    int width;             /* -1 = not given */
    const char *solver;    /* NULL = not given */
    bool json, list, help;
    bool collide_only;     /* gravity off, collision stages only */
    bool no_quality;       /* skip the quality check (and the untimed steps it needs) */
    bool force;            /* run a scene tessera does not support yet */
    bool sleep;            /* sleeping on in every scene (tessera) */
    float rolling_resistance; /* every dynamic shape's (tessera); 0 = scenes.md's (none) */
    const char *compare;   /* "bullet" or NULL */
    const char *record;    /* --record FILE: replay file of the first run (NULL = none) */
    bool record_contacts;  /* --record-contacts: the recording holds contact points too */
    int sweep_count;
    bench_sweep sweeps[BENCH_MAX_SWEEPS];
} bench_options;

/* Parses argv into o. Returns 0, or 2 after printing why to stderr. */
int bench_parse_options(int argc, char **argv, bench_options *o);

/* The parameters of a scene: its defaults (or small variant), overridden by those given. */
scene_params bench_scene_params(const bench_options *o, const scene_info *scene);

/* Writes "--base 20 --grid 2" style arguments for params into buffer. */
void bench_params_arguments(const scene_info *scene, const scene_params *params, char *buffer, size_t size);

void bench_print_usage(const char *program);
void bench_print_scene_list(void);

#ifdef __cplusplus
}
#endif

#endif

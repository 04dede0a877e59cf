/* One timed run of one scene by one engine, as tessera-bench reports it
 * (engine-neutral: the Bullet peer fills the same struct). */
#ifndef BENCH_RESULT_H
#define BENCH_RESULT_H

#include "scene_registry.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_MAX_STAGES 32
#define BENCH_MAX_COLORS 64
#define BENCH_MAX_EXTRAS 12

/* The compiler of the translation unit that expands it. */
#if defined(__clang__)
#define BENCH_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define BENCH_COMPILER "gcc " __VERSION__
#else
#define BENCH_COMPILER "unknown"
#endif

/* A named figure in milliseconds (a stage) or any unit (an extra). */
typedef struct bench_value {
    const char *name;
    double value;
} bench_value;

typedef struct bench_result {
    /* engine and its settings */
    const char *engine;
    const char *version;
    const char *compiler;
    const char *simd;   /* the SIMD path the step used */
    const char *solver;
    int width;          /* SIMD lanes of the solver kernels */
    int threads;
    int substeps;
    float contact_hertz;
    int iterations;     /* solver iterations per substep (tessera) or step (Bullet); 0 = none */
    /* the scene */
    const scene_info *scene;
    scene_params params;
    bool collide_only;  /* gravity off: times collision on the initial state */
    int run;            /* 0-based index among the runs of one setting */
    int warmup_steps, steps, total_steps; /* untimed first, timed, simulated in all */
    int bodies, dynamic_bodies, joints;
    /* at the last timed step */
    int contact_pairs, touching, contact_points;
    int color_count;
    int colors[BENCH_MAX_COLORS]; /* constraints per graph colour */
    int overflow;                 /* constraints in no colour */
    /* step times over the timed steps */
    double ms_mean, ms_median, ms_max;
    int stage_count;
    bench_value stages[BENCH_MAX_STAGES]; /* mean ms per timed step */
    int extra_count;
    bench_value extras[BENCH_MAX_EXTRAS]; /* engine-specific figures */
    quality_result quality;
    uint64_t state_hash; /* state_hash.h, after the last step simulated */
    int step_errors;     /* steps that returned an error */
    char error[160];     /* the first of them */
} bench_result;

void bench_add_stage(bench_result *r, const char *name, double ms);
void bench_add_extra(bench_result *r, const char *name, double value);

#ifdef __cplusplus
}
#endif

#endif

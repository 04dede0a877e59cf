/* The quality checks of shared/scenes.md, as functions over a scene's
 * description and the final state of its bodies, so that every engine is
 * judged by the same code. */
#ifndef BENCH_SCENE_QUALITY_H
#define BENCH_SCENE_QUALITY_H

#include "scene_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A body's state after the last step: origin (= centre of mass, the shapes
 * are centred), rotation, linear and angular velocity. */
typedef struct body_state {
    scene_vec3 p;
    scene_quat q;
    scene_vec3 v;
    scene_vec3 w;
} body_state;

/* What the checks that hold "at every step" need, gathered after each step
 * of a run (quality_track_step). */
typedef struct quality_track {
    int steps;               /* steps seen */
    float min_y;             /* lowest dynamic body centre of any step */
    float max_plane_offset;  /* largest |z - z at the start| of a dynamic body of any step */
    bool finite;             /* every position of every step was finite */
} quality_track;

void quality_track_reset(quality_track *t);
/* One step's body centres, desc->body_count of them in creation order. */
void quality_track_step(quality_track *t, const scene_desc *desc, const scene_vec3 *positions);

typedef struct quality_input {
    const scene_desc *desc;
    const quality_track *track; /* every step's figures; NULL: the final state stands for them */
    const body_state *states; /* desc->body_count of them, in creation order */
    int steps;                /* steps simulated in all */
    float dt;
    int awake_count;          /* dynamic bodies still awake at the end; -1 if unknown */
    double ms_step;           /* sleep_field: measured step time */
    double ms_empty_step;     /* sleep_field: step time of an empty world */
} quality_input;

#define QUALITY_MAX_FIGURES 4

typedef struct quality_result {
    bool evaluated;          /* false when the run stopped before the check's step */
    bool pass;
    double figure;           /* the measured figure (figure_name says what it is) */
    const char *figure_name;
    int figure_count;        /* every figure the check compared, by name (JSON "quality_figures") */
    const char *figure_names[QUALITY_MAX_FIGURES];
    double figures[QUALITY_MAX_FIGURES];
    char detail[256];        /* one English line with every measured number */
} quality_result;

typedef void quality_fn(const quality_input *input, quality_result *result);

quality_fn quality_free_fall;    /* error against the exact parabola */
quality_fn quality_planar_pyramids; /* large_pyramid, many_pyramids: "stands", checked at every step */
quality_fn quality_pyramid_3d;
quality_fn quality_wide_pyramid;
quality_fn quality_pile;
quality_fn quality_joint_grid;
quality_fn quality_sleep_field;
quality_fn quality_convex_pile;  /* scene_quality_shapes.c */
quality_fn quality_mesh_terrain;

#ifdef __cplusplus
}
#endif

#endif

/* The seeds of the snapshot loader's fuzzer (tests/fuzz/fuzz_snapshot_load.c):
 * small worlds saved without their 32-byte header (the driver writes the
 * header), into DIR: seed_joints (a ball, hinge with limit and motor,
 * distance spring, prismatic with limit and fixed joint on capsules and
 * spheres), seed_pile_xpbd (seven bodies touching, XPBD), seed_pile_asleep
 * (seven boxes resting on the ground, asleep after 400 steps) and
 * seed_empty, seed_mixed (format 3: hulls, a mesh, a heightfield, a
 * sensor, custom constraints). Not built by CMake: the committed seeds are in tests/fuzz/snapshot_corpus/; to make them anew
 * (after a format change), with a built libtessera.a:
 *   cc -Iinclude tests/fuzz/snapshot_seeds.c build/libtessera.a -lm -fopenmp \
 *       -o /tmp/snapshot_seeds && /tmp/snapshot_seeds tests/fuzz/snapshot_corpus */
#include "tessera/tessera.h"
#include "../snapshot_mixed.h"
#include <stdio.h>
#include <stdlib.h>
static void save(ts_world_id w, const char *path)
{
    size_t n = 0; ts_world_save(w, NULL, 0, &n);
    unsigned char *b = malloc(n);
    if (ts_world_save(w, b, n, &n) != TS_OK) { fprintf(stderr, "%s: %s\n", path, ts_last_error()); exit(1); }
    FILE *f = fopen(path, "wb"); fwrite(b + 32, 1, n - 32, f); fclose(f); free(b);
    printf("%s %zu\n", path, n - 32);
}
static ts_body_id body(ts_world_id w, ts_body_type t, float x, float y, float z)
{
    ts_body_def d = ts_default_body_def(); d.type = t; d.position = (ts_vec3){x, y, z};
    return ts_create_body(w, &d);
}
int main(int argc, char **argv)
{
    const char *dir = argv[1]; char path[512];
    ts_shape_def sd = ts_default_shape_def();
    /* 1: joints of every kind, a capsule, a box ground */
    {
        ts_world_def wd = ts_default_world_def(); wd.threads = 1;
        ts_world_id w = ts_create_world(&wd);
        ts_body_id g = body(w, TS_BODY_STATIC, 0, -0.5f, 0);
        ts_create_box_shape(g, &sd, &(ts_box){{5, 0.5f, 5}});
        ts_body_id b[6];
        for (int i = 0; i < 6; ++i) {
            b[i] = body(w, TS_BODY_DYNAMIC, (float)i * 0.6f, 2.0f, 0);
            if (i % 2) ts_create_sphere_shape(b[i], &sd, &(ts_sphere){0.2f});
            else ts_create_capsule_shape(b[i], &sd, &(ts_capsule){0.2f, 0.15f});
        }
        ts_ball_joint_def bj = ts_default_ball_joint_def(); bj.base.body_a = g; bj.base.body_b = b[0];
        bj.base.local_frame_a.p = (ts_vec3){0, 2.5f, 0}; ts_create_ball_joint(w, &bj);
        ts_hinge_joint_def hj = ts_default_hinge_joint_def(); hj.base.body_a = b[0]; hj.base.body_b = b[1];
        hj.enable_limit = true; hj.lower_angle = -0.5f; hj.upper_angle = 0.5f; hj.enable_motor = true; hj.motor_speed = 1; hj.max_motor_torque = 5;
        ts_create_hinge_joint(w, &hj);
        ts_distance_joint_def dj = ts_default_distance_joint_def(); dj.base.body_a = b[1]; dj.base.body_b = b[2];
        dj.length = 0.6f; dj.enable_spring = true; dj.spring_hertz = 4; dj.spring_damping_ratio = 0.5f; ts_create_distance_joint(w, &dj);
        ts_prismatic_joint_def pj = ts_default_prismatic_joint_def(); pj.base.body_a = b[2]; pj.base.body_b = b[3];
        pj.enable_limit = true; pj.lower_translation = -0.2f; pj.upper_translation = 0.3f; ts_create_prismatic_joint(w, &pj);
        ts_fixed_joint_def fj = ts_default_fixed_joint_def(); fj.base.body_a = b[3]; fj.base.body_b = b[4]; ts_create_fixed_joint(w, &fj);
        for (int i = 0; i < 30; ++i) ts_world_step(w, 1.0f / 60.0f);
        snprintf(path, sizeof path, "%s/seed_joints", dir); save(w, path);
        ts_destroy_world(w);
    }
    /* 2: a small pile touching, XPBD; 3: seven boxes at rest, asleep */
    for (int k = 0; k < 2; ++k) {
        ts_world_def wd = ts_default_world_def(); wd.threads = 1; if (k == 0) wd.solver = TS_SOLVER_XPBD;
        ts_world_id w = ts_create_world(&wd);
        ts_body_id g = body(w, TS_BODY_STATIC, 0, -0.5f, 0);
        ts_create_box_shape(g, &sd, &(ts_box){{5, 0.5f, 5}});
        for (int i = 0; i < 7; ++i) {
            ts_body_id d = k == 0 ? body(w, TS_BODY_DYNAMIC, 0.1f * (float)(i % 3), 0.3f + 0.45f * (float)i, 0.05f * (float)i)
                                  : body(w, TS_BODY_DYNAMIC, 0.5f * (float)i, 0.2f, 0); /* boxes at rest: asleep */
            if (i % 3 == 0 || k == 1) ts_create_box_shape(d, &sd, &(ts_box){{0.2f, 0.2f, 0.2f}});
            else if (i % 3 == 1) ts_create_sphere_shape(d, &sd, &(ts_sphere){0.2f});
            else ts_create_capsule_shape(d, &sd, &(ts_capsule){0.1f, 0.15f});
        }
        for (int i = 0; i < (k == 0 ? 45 : 400); ++i) ts_world_step(w, 1.0f / 60.0f);
        snprintf(path, sizeof path, "%s/%s", dir, k == 0 ? "seed_pile_xpbd" : "seed_pile_asleep"); save(w, path);
        ts_destroy_world(w);
    }
    /* 5: format 3's mixed world (tests/snapshot_mixed.h): a mesh, a
     * heightfield, hulls sharing their points, a cylinder, a sensor with a
     * sphere inside, custom constraints on one and two bodies */
    {
        ts_world_id w = mixed_world(TS_SOLVER_SOFT_STEP, 1, 1, true);
        for (int i = 0; i < 30; ++i) ts_world_step(w, 1.0f / 60.0f);
        snprintf(path, sizeof path, "%s/seed_mixed", dir); save(w, path); ts_destroy_world(w);
    }
    /* 4: an empty world */
    {
        ts_world_def wd = ts_default_world_def(); ts_world_id w = ts_create_world(&wd);
        snprintf(path, sizeof path, "%s/seed_empty", dir); save(w, path); ts_destroy_world(w);
    }
    return 0;
}

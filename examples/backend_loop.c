// SPDX-License-Identifier: MIT
/* A backend loop: the program owns its objects (here a "renderer" array),
 * tessera owns the physics. Each frame steps the world once and copies the
 * transforms out in bulk, two ways:
 *  - ts_world_get_body_transforms: the bodies the program names, in the
 *    program's order (one call for the whole array);
 *  - ts_world_get_awake_transforms: only the bodies that moved (the awake
 *    range, in tessera's storage order, with their ids), which is nothing
 *    once everything sleeps.
 * 100 boxes fall from 0.6-1.6 m in a 10 x 10 grid onto the ground, land,
 * and fall asleep; the program prints how many were awake each second and the
 * mean height. Two workers (threads) step the world. */
#include <stdio.h>

#include "tessera/tessera.h"

#define BOX_COUNT 100

/* What the program keeps per object: its body and the pose it draws. */
typedef struct render_object {
    ts_body_id body;
    ts_transform pose;
} render_object;

static ts_body_id make_box(ts_world_id world, ts_vec3 position, const ts_shape_def *shape_def)
{
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.position = position;
    ts_body_id body = ts_create_body(world, &def);
    ts_box box = {{0.4f, 0.4f, 0.4f}};
    ts_create_box_shape(body, shape_def, &box);
    return body;
}

int main(void)
{
    ts_world_def world_def = ts_default_world_def();
    world_def.threads = 2;
    world_def.body_capacity = BOX_COUNT + 1; /* room up front: building does not regrow arrays */
    world_def.shape_capacity = BOX_COUNT + 1;
    ts_world_id world = ts_create_world(&world_def);
    if (ts_world_id_is_null(world)) {
        fprintf(stderr, "%s\n", ts_last_error());
        return 1;
    }

    ts_shape_def shape_def = ts_default_shape_def();
    ts_body_def ground_def = ts_default_body_def();
    ground_def.position = (ts_vec3){0.0f, -0.5f, 0.0f};
    ts_box ground_box = {{50.0f, 0.5f, 50.0f}};
    ts_create_box_shape(ts_create_body(world, &ground_def), &shape_def, &ground_box);

    static render_object objects[BOX_COUNT];
    static ts_body_id ids[BOX_COUNT];
    for (int i = 0; i < BOX_COUNT; ++i) {
        ts_vec3 p = {(float)(i % 10) * 2.0f - 9.0f, 1.0f + (float)(i % 3) * 0.5f, (float)(i / 10) * 2.0f - 9.0f};
        objects[i].body = make_box(world, p, &shape_def);
        ids[i] = objects[i].body;
    }

    static ts_transform poses[BOX_COUNT];
    static ts_body_id awake_ids[BOX_COUNT];
    static ts_transform awake_poses[BOX_COUNT];
    const float dt = 1.0f / 60.0f;
    int awake = BOX_COUNT;
    for (int frame = 1; frame <= 300; ++frame) {
        if (ts_world_step(world, dt) != TS_OK) {
            fprintf(stderr, "%s\n", ts_last_error());
            return 1;
        }
        /* Everything the program draws, in its own order: one call. */
        if (ts_world_get_body_transforms(world, ids, BOX_COUNT, poses) != TS_OK) {
            fprintf(stderr, "%s\n", ts_last_error());
            return 1;
        }
        for (int i = 0; i < BOX_COUNT; ++i) {
            objects[i].pose = poses[i];
        }
        /* Or only what moved: the awake range with its ids. */
        ts_world_get_awake_transforms(world, awake_ids, awake_poses, BOX_COUNT, &awake);
        if (frame % 60 == 0) {
            float mean_y = 0.0f;
            for (int i = 0; i < BOX_COUNT; ++i) {
                mean_y += objects[i].pose.p.y / BOX_COUNT;
            }
            printf("t = %d s  awake bodies %3d  mean height %.3f m\n", frame / 60, awake, mean_y);
        }
    }
    ts_destroy_world(world);
    /* After 5 s every box has landed and its island sleeps. */
    return awake == 0 ? 0 : 1;
}

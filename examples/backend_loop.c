// SPDX-License-Identifier: MIT
/* A backend loop: the program owns its objects (here a "renderer" array of
 * structs), tessera owns the physics. Each frame steps the world once and
 * copies the state out in bulk; twice the program writes state in bulk:
 *  - ts_world_get_body_states: positions and rotations of the bodies the
 *    program names, straight into its own structs (a stride), in its own
 *    order: one call for the whole array;
 *  - ts_world_get_awake_body_states: only the bodies that moved (the awake
 *    range, in tessera's storage order, with their ids), into separate
 *    x / y / z arrays: nothing once everything sleeps;
 *  - ts_world_set_body_states: at 2 s the program "replays" a network
 *    message that throws every box up (velocities from its own arrays; the
 *    sleeping boxes wake), and at 4 s it moves the first row 5 m aside
 *    (positions), one call each.
 * 100 boxes fall from 0.6-1.6 m in a 10 x 10 grid onto the ground, land
 * and fall asleep, are thrown up, land and sleep again; the program prints
 * how many were awake each second and the mean height, and checks that
 * the world ends at rest with the moved row where it was put. */
#include <stdio.h>

#include "tessera/tessera.h"

#define BOX_COUNT 100

/* What the program keeps per object: its body, the pose it draws and
 * whatever else it likes (tessera reads and writes only the fields it is
 * pointed at). */
typedef struct render_object {
    ts_body_id body;
    ts_vec3 position;
    ts_quat rotation;
    int mesh;
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

static int fail(void)
{
    fprintf(stderr, "%s\n", ts_last_error());
    return 1;
}

int main(void)
{
    ts_world_def world_def = ts_default_world_def();
    world_def.threads = 2;
    world_def.body_capacity = BOX_COUNT + 1; /* room up front: building does not regrow arrays */
    world_def.shape_capacity = BOX_COUNT + 1;
    ts_world_id world = ts_create_world(&world_def);
    if (ts_world_id_is_null(world)) {
        return fail();
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
        objects[i].mesh = i % 4;
        ids[i] = objects[i].body;
    }

    /* Where the poses go: the position and rotation fields of the program's
     * structs, one struct apart. */
    ts_body_state_arrays draw = {0};
    draw.position = ts_vec3_structs(&objects[0].position, sizeof(render_object));
    draw.rotation = ts_quat_structs(&objects[0].rotation, sizeof(render_object));

    /* The moving bodies' positions, as three separate columns. */
    static ts_body_id awake_ids[BOX_COUNT];
    static float awake_x[BOX_COUNT], awake_y[BOX_COUNT], awake_z[BOX_COUNT];
    ts_body_state_arrays moving = {0};
    moving.position = ts_vec3_columns(awake_x, awake_y, awake_z);

    const float dt = 1.0f / 60.0f;
    int awake = BOX_COUNT;
    for (int frame = 1; frame <= 420; ++frame) {
        if (frame == 120) {
            /* A network message: every box gets a velocity (the sleeping
             * ones wake, as ts_body_set_linear_velocity would wake them). */
            static ts_vec3 thrown[BOX_COUNT];
            for (int i = 0; i < BOX_COUNT; ++i) {
                thrown[i] = (ts_vec3){0.0f, 3.0f + 0.02f * (float)i, 0.0f};
            }
            ts_body_state_arrays message = {0};
            message.linear_velocity = ts_vec3_structs(thrown, sizeof(ts_vec3));
            if (ts_world_set_body_states(world, ids, BOX_COUNT, &message) != TS_OK) {
                return fail();
            }
        }
        if (frame == 240) {
            /* The first row teleports 5 m along z (rotations kept). */
            static ts_vec3 moved[10];
            for (int i = 0; i < 10; ++i) {
                moved[i] = objects[i].position;
                moved[i].z += 5.0f;
            }
            ts_body_state_arrays teleport = {0};
            teleport.position = ts_vec3_structs(moved, sizeof(ts_vec3));
            if (ts_world_set_body_states(world, ids, 10, &teleport) != TS_OK) {
                return fail();
            }
        }
        if (ts_world_step(world, dt) != TS_OK) {
            return fail();
        }
        /* Everything the program draws, in its own order: one call. */
        if (ts_world_get_body_states(world, ids, BOX_COUNT, &draw) != TS_OK) {
            return fail();
        }
        /* Or only what moved: the awake range with its ids. */
        if (ts_world_get_awake_body_states(world, awake_ids, BOX_COUNT, &awake, &moving) != TS_OK) {
            return fail();
        }
        if (frame % 60 == 0) {
            float mean_y = 0.0f;
            for (int i = 0; i < BOX_COUNT; ++i) {
                mean_y += objects[i].position.y / BOX_COUNT;
            }
            printf("t = %d s  awake bodies %3d  mean height %.3f m\n", frame / 60, awake, mean_y);
        }
    }
    ts_destroy_world(world);
    /* After 7 s every box has landed twice and its island sleeps; the moved
     * row rests 5 m from where it was (its boxes were not thrown far). */
    int row_moved = objects[0].position.z > -4.5f && objects[9].position.z > -4.5f;
    return awake == 0 && row_moved ? 0 : 1;
}

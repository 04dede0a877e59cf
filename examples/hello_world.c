// SPDX-License-Identifier: MIT
/* Hello world: a box falls onto the ground and comes to rest. Steps one
 * second at 60 Hz and prints the box's height every tenth of a second.
 * The ground is a static box whose top face is at y = 0; the falling box is
 * 1 m on a side, so it rests with its centre at y = 0.5 (a little lower:
 * soft contacts carry a load with a small overlap). */
#include <stdio.h>

#include "tessera/tessera.h"

int main(void)
{
    ts_world_def world_def = ts_default_world_def(); /* gravity (0, -10, 0), 4 substeps */
    ts_world_id world = ts_create_world(&world_def);

    /* The ground: a static body (the default type) holding a wide, thin box. */
    ts_body_def ground_def = ts_default_body_def();
    ground_def.position = (ts_vec3){0.0f, -0.5f, 0.0f};
    ts_body_id ground = ts_create_body(world, &ground_def);
    ts_shape_def shape_def = ts_default_shape_def(); /* density 1, friction 0.6 */
    ts_box ground_box = {{20.0f, 0.5f, 20.0f}};
    ts_create_box_shape(ground, &shape_def, &ground_box);

    /* The falling box, 4 m up. */
    ts_body_def body_def = ts_default_body_def();
    body_def.type = TS_BODY_DYNAMIC;
    body_def.position = (ts_vec3){0.0f, 4.0f, 0.0f};
    ts_body_id body = ts_create_body(world, &body_def);
    ts_box box = {{0.5f, 0.5f, 0.5f}};
    if (ts_shape_id_is_null(ts_create_box_shape(body, &shape_def, &box))) {
        fprintf(stderr, "%s\n", ts_last_error()); /* says which argument was wrong */
        return 1;
    }

    for (int i = 1; i <= 60; ++i) {
        ts_world_step(world, 1.0f / 60.0f);
        if (i % 6 == 0) {
            ts_vec3 p;
            ts_body_get_position(body, &p);
            printf("t = %.1f s  y = %.3f m\n", i / 60.0, p.y);
        }
    }
    ts_vec3 p;
    ts_body_get_position(body, &p);
    ts_destroy_world(world);
    /* Resting on the ground: the centre within 2 cm of 0.5 m. */
    return p.y > 0.48f && p.y < 0.52f ? 0 : 1;
}

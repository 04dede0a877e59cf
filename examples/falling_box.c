/* The smallest tessera program: a box dropped from 10 m, stepped for one
 * second at 60 Hz. (README.md shows this file.) */
#include <stdio.h>

#include "tessera/tessera.h"

int main(void)
{
    ts_world_def world_def = ts_default_world_def(); /* gravity (0, -10, 0), 4 substeps */
    ts_world_id world = ts_create_world(&world_def);

    ts_body_def body_def = ts_default_body_def();
    body_def.type = TS_BODY_DYNAMIC;
    body_def.position = (ts_vec3){0.0f, 10.0f, 0.0f};
    ts_body_id body = ts_create_body(world, &body_def);

    ts_shape_def shape_def = ts_default_shape_def(); /* density 1, friction 0.6 */
    ts_box box = {{0.5f, 0.5f, 0.5f}};
    if (ts_shape_id_is_null(ts_create_box_shape(body, &shape_def, &box))) {
        fprintf(stderr, "%s\n", ts_last_error()); /* says which argument was wrong */
        return 1;
    }

    for (int i = 0; i < 60; ++i) {
        ts_world_step(world, 1.0f / 60.0f);
    }
    ts_vec3 p;
    ts_body_get_position(body, &p);
    printf("after 1 s the box is at y = %.3f m\n", p.y);

    ts_destroy_world(world);
    return 0;
}

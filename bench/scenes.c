/* The benchmark scenes (shared/scenes.md). Scenes whose features have not
 * landed are listed with what they wait for and do not run yet. */
#include "scenes.h"

#include <math.h>
#include <string.h>

ts_scene_params ts_scene_default_params(const char *scene_name)
{
    int count = strcmp(scene_name, "free_fall") == 0 ? 100000 : 4000;
    return (ts_scene_params){.base = 100, .grid = 14, .height = 15, .count = count, .side = 100, .stacks = 1000};
}

/* free_fall: N unit boxes (density 1) in a lattice 2 m apart, each spinning
 * about its own axis, under gravity with nothing to hit: it times body
 * integration alone. Columns of 50 x 50, then layers upward. */
static int build_free_fall(ts_world_id world, const ts_scene_params *p)
{
    ts_body_def body = ts_default_body_def();
    body.type = TS_BODY_DYNAMIC;
    ts_shape_def shape = ts_default_shape_def();
    ts_box box = {{0.5f, 0.5f, 0.5f}};
    for (int n = 0; n < p->count; ++n) {
        int i = n % 50;
        int k = (n / 50) % 50;
        int layer = n / 2500;
        body.position = (ts_vec3){2.0f * (float)i - 49.0f, 2.0f + 2.0f * (float)layer, 2.0f * (float)k - 49.0f};
        /* A different, fixed spin per body so the rotation path does real work. */
        body.angular_velocity = (ts_vec3){0.1f * (float)(n % 7), 0.2f * (float)(n % 5), 0.3f * (float)(n % 3)};
        ts_body_id id = ts_create_body(world, &body);
        if (ts_body_id_is_null(id) || ts_shape_id_is_null(ts_create_box_shape(id, &shape, &box))) {
            return -1;
        }
    }
    return p->count;
}

/* large_pyramid: built exactly as scenes.md says; it needs contacts to stand. */
static int build_large_pyramid(ts_world_id world, const ts_scene_params *p)
{
    const float h = 0.5f;
    ts_body_def ground_def = ts_default_body_def();
    ground_def.position = (ts_vec3){0.0f, -1.0f, 0.0f};
    ts_body_id ground = ts_create_body(world, &ground_def);
    ts_shape_def shape = ts_default_shape_def();
    ts_box ground_box = {{400.0f, 1.0f, 400.0f}};
    if (ts_body_id_is_null(ground) || ts_shape_id_is_null(ts_create_box_shape(ground, &shape, &ground_box))) {
        return -1;
    }
    ts_body_def body = ts_default_body_def();
    body.type = TS_BODY_DYNAMIC;
    shape.density = 100.0f;
    ts_box box = {{h, h, h}};
    int made = 0;
    int b = p->base;
    for (int r = 0; r < b; ++r) {
        for (int j = r; j < b; ++j) {
            body.position = (ts_vec3){(float)(r + 1) * h + 2.0f * (float)(j - r) * h - (float)b * h,
                                      (float)(2 * r + 1) * h, 0.0f};
            ts_body_id id = ts_create_body(world, &body);
            if (ts_body_id_is_null(id) || ts_shape_id_is_null(ts_create_box_shape(id, &shape, &box))) {
                return -1;
            }
            ++made;
        }
    }
    return made + 1;
}

static int static_box(ts_world_id world, ts_vec3 position, ts_vec3 half_extents)
{
    ts_body_def def = ts_default_body_def();
    def.position = position;
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    ts_box box = {half_extents};
    return ts_body_id_is_null(body) || ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)) ? -1 : 1;
}

/* pile: N boxes and spheres in a 10 x 10 lattice of columns inside a walled
 * bin; body n (x fastest, then z, then y) is a unit box turned by n * 0.37 rad
 * about normalize(1, 1, 1) when n is even, a sphere of radius 0.5 when odd. */
static int build_pile(ts_world_id world, const ts_scene_params *p)
{
    if (static_box(world, (ts_vec3){0, -1, 0}, (ts_vec3){200, 1, 200}) < 0 ||
        static_box(world, (ts_vec3){10.5f, 10, 0}, (ts_vec3){0.5f, 10, 10}) < 0 ||
        static_box(world, (ts_vec3){-10.5f, 10, 0}, (ts_vec3){0.5f, 10, 10}) < 0 ||
        static_box(world, (ts_vec3){0, 10, 10.5f}, (ts_vec3){10, 10, 0.5f}) < 0 ||
        static_box(world, (ts_vec3){0, 10, -10.5f}, (ts_vec3){10, 10, 0.5f}) < 0) {
        return -1;
    }
    ts_body_def body = ts_default_body_def();
    body.type = TS_BODY_DYNAMIC;
    ts_shape_def shape = ts_default_shape_def();
    ts_box box = {{0.5f, 0.5f, 0.5f}};
    ts_sphere sphere = {0.5f};
    const float axis = 0.57735027f; /* 1 / sqrt(3) */
    for (int n = 0; n < p->count; ++n) {
        int i = n % 10, k = (n / 10) % 10, layer = n / 100;
        body.position = (ts_vec3){((float)i - 4.5f) * 1.5f, 2.0f + 1.5f * (float)layer, ((float)k - 4.5f) * 1.5f};
        float half = 0.5f * 0.37f * (float)n;
        float s = sinf(half);
        body.rotation = n % 2 == 0 ? (ts_quat){s * axis, s * axis, s * axis, cosf(half)} : TS_QUAT_IDENTITY;
        ts_body_id id = ts_create_body(world, &body);
        if (ts_body_id_is_null(id)) {
            return -1;
        }
        ts_shape_id made = n % 2 == 0 ? ts_create_box_shape(id, &shape, &box) : ts_create_sphere_shape(id, &shape, &sphere);
        if (ts_shape_id_is_null(made)) {
            return -1;
        }
    }
    return p->count + 5;
}

const ts_scene ts_scenes[] = {
    {"free_fall", NULL, 1, 200, build_free_fall},
    {"large_pyramid", "contacts (collision and solver issues)", 1, 200, build_large_pyramid},
    {"pyramid_3d", "contacts (collision and solver issues)", 1, 200, NULL},
    {"many_pyramids", "contacts (collision and solver issues)", 1, 100, NULL},
    {"wide_pyramid", "contacts (collision and solver issues)", 0, 500, NULL},
    {"pile", "contacts (collision and solver issues)", 0, 600, build_pile},
    {"joint_grid", "joints (joints issue)", 1, 100, NULL},
    {"sleep_field", "contacts and sleeping (islands issue)", 300, 300, NULL},
    {NULL, NULL, 0, 0, NULL},
};

const ts_scene *ts_find_scene(const char *name)
{
    for (const ts_scene *s = ts_scenes; s->name != NULL; ++s) {
        if (strcmp(s->name, name) == 0) {
            return s;
        }
    }
    return NULL;
}

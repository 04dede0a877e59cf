/* Growing arrays and defaults for scene descriptions (scene_desc.h). */
#include "scene_desc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *grow(void *array, int *capacity, int needed, size_t item_size)
{
    if (needed <= *capacity) {
        return array;
    }
    int capacity2 = *capacity < 64 ? 64 : *capacity;
    while (capacity2 < needed) {
        capacity2 *= 2;
    }
    void *grown = realloc(array, (size_t)capacity2 * item_size);
    if (grown == NULL) {
        fprintf(stderr, "bench: out of memory describing a scene (%d items)\n", capacity2);
        abort();
    }
    *capacity = capacity2;
    return grown;
}

void scene_desc_init(scene_desc *desc)
{
    memset(desc, 0, sizeof(*desc));
    desc->gravity = (scene_vec3){0.0f, -10.0f, 0.0f};
}

void scene_desc_free(scene_desc *desc)
{
    for (int i = 0; i < desc->geometry_count; ++i) {
        free(desc->geometries[i].points);
        free(desc->geometries[i].indices);
    }
    free(desc->geometries);
    free(desc->bodies);
    free(desc->joints);
    memset(desc, 0, sizeof(*desc));
}

int scene_add_body(scene_desc *desc, const scene_body *body)
{
    desc->bodies = grow(desc->bodies, &desc->body_capacity, desc->body_count + 1, sizeof(scene_body));
    desc->bodies[desc->body_count] = *body;
    return desc->body_count++;
}

void scene_add_joint(scene_desc *desc, const scene_joint *joint)
{
    desc->joints = grow(desc->joints, &desc->joint_capacity, desc->joint_count + 1, sizeof(scene_joint));
    desc->joints[desc->joint_count++] = *joint;
}

int scene_add_geometry(scene_desc *desc, const scene_vec3 *points, int point_count, const int32_t *indices,
                       int triangle_count)
{
    desc->geometries =
        grow(desc->geometries, &desc->geometry_capacity, desc->geometry_count + 1, sizeof(scene_geometry));
    scene_geometry g = {NULL, point_count, NULL, triangle_count};
    int dummy = 0;
    g.points = grow(NULL, &dummy, point_count, sizeof(scene_vec3));
    memcpy(g.points, points, (size_t)point_count * sizeof(scene_vec3));
    if (triangle_count > 0) {
        dummy = 0;
        g.indices = grow(NULL, &dummy, 3 * triangle_count, sizeof(int32_t));
        memcpy(g.indices, indices, (size_t)(3 * triangle_count) * sizeof(int32_t));
    }
    desc->geometries[desc->geometry_count] = g;
    return desc->geometry_count++;
}

static scene_shape default_shape(scene_shape_type type, float density)
{
    return (scene_shape){.type = type,
                         .density = density,
                         .friction = 0.6f,
                         .restitution = 0.0f,
                         .category_bits = 1,
                         .mask_bits = UINT64_MAX};
}

scene_body scene_default_box(scene_vec3 position, scene_vec3 half_extents, float density)
{
    scene_body body = {.type = SCENE_DYNAMIC, .position = position, .rotation = {0.0f, 0.0f, 0.0f, 1.0f}};
    body.shape = default_shape(SCENE_BOX, density);
    body.shape.half_extents = half_extents;
    return body;
}

scene_body scene_default_sphere(scene_vec3 position, float radius, float density)
{
    scene_body body = {.type = SCENE_DYNAMIC, .position = position, .rotation = {0.0f, 0.0f, 0.0f, 1.0f}};
    body.shape = default_shape(SCENE_SPHERE, density);
    body.shape.radius = radius;
    return body;
}

int scene_add_static_box(scene_desc *desc, scene_vec3 position, scene_vec3 half_extents)
{
    scene_body body = scene_default_box(position, half_extents, 1.0f);
    body.type = SCENE_STATIC;
    return scene_add_body(desc, &body);
}

float scene_shape_volume(const scene_shape *s)
{
    const float pi = 3.14159265f;
    switch (s->type) {
    case SCENE_SPHERE:
        return 4.0f / 3.0f * pi * s->radius * s->radius * s->radius;
    case SCENE_BOX:
        return 8.0f * s->half_extents.x * s->half_extents.y * s->half_extents.z;
    case SCENE_CAPSULE:
        return pi * s->radius * s->radius * (2.0f * s->half_height + 4.0f / 3.0f * s->radius);
    case SCENE_HULL:
    case SCENE_MESH:
        break; /* engines compute a hull's volume themselves; meshes are static */
    }
    return 0.0f;
}

void scene_desc_static_part(const scene_desc *from, scene_desc *to)
{
    scene_desc_init(to);
    to->gravity = from->gravity;
    to->sleep = from->sleep;
    to->planar = from->planar;
    for (int i = 0; i < from->geometry_count; ++i) {
        const scene_geometry *g = &from->geometries[i];
        scene_add_geometry(to, g->points, g->point_count, g->indices, g->triangle_count);
    }
    for (int i = 0; i < from->body_count; ++i) {
        if (from->bodies[i].type == SCENE_STATIC) {
            scene_add_body(to, &from->bodies[i]);
        }
    }
}

int scene_dynamic_count(const scene_desc *desc)
{
    int n = 0;
    for (int i = 0; i < desc->body_count; ++i) {
        n += desc->bodies[i].type == SCENE_DYNAMIC;
    }
    return n;
}

/* Slab geometry of a split world (split_slab.h). */
#include "split_slab.h"

#include <math.h>

void split_slab_init(split_slab *s, int rank, int ranks, float x_min, float x_max, float margin)
{
    float width = (x_max - x_min) / (float)ranks;
    s->rank = rank;
    s->ranks = ranks;
    s->lo = rank == 0 ? -INFINITY : x_min + width * (float)rank;
    s->hi = rank == ranks - 1 ? INFINITY : x_min + width * (float)(rank + 1);
    s->margin = margin;
}

float split_slab_min_width(float x_min, float x_max, int ranks)
{
    return ranks <= 2 ? INFINITY : (x_max - x_min) / (float)ranks;
}

void split_scene_extent(const scene_desc *d, float *x_min, float *x_max)
{
    *x_min = INFINITY;
    *x_max = -INFINITY;
    for (int i = 0; i < d->body_count; ++i) {
        if (d->bodies[i].type == SCENE_DYNAMIC) {
            *x_min = fminf(*x_min, d->bodies[i].position.x);
            *x_max = fmaxf(*x_max, d->bodies[i].position.x);
        }
    }
}

static float bounding_radius(const scene_desc *d, const scene_shape *s)
{
    switch (s->type) {
    case SCENE_HULL:
    case SCENE_MESH: {
        /* the farthest point of the shape's geometry from its origin */
        const scene_geometry *g = &d->geometries[s->geometry];
        float r = 0.0f;
        for (int i = 0; i < g->point_count; ++i) {
            scene_vec3 p = g->points[i];
            r = fmaxf(r, sqrtf(p.x * p.x + p.y * p.y + p.z * p.z));
        }
        return r;
    }
    case SCENE_SPHERE:
        return s->radius;
    case SCENE_BOX:
        return sqrtf(s->half_extents.x * s->half_extents.x + s->half_extents.y * s->half_extents.y +
                     s->half_extents.z * s->half_extents.z);
    case SCENE_CAPSULE:
        return s->half_height + s->radius;
    }
    return 0.0f;
}

float split_default_margin(const scene_desc *d)
{
    float largest = 0.0f;
    for (int i = 0; i < d->body_count; ++i) {
        if (d->bodies[i].type == SCENE_DYNAMIC) {
            largest = fmaxf(largest, bounding_radius(d, &d->bodies[i].shape));
        }
    }
    return 2.0f * largest + 0.25f;
}

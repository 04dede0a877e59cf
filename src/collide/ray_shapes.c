/* Rays against hulls, meshes and heightfields in the shape's frame (see
 * ray_shapes.h). Only + - * / and sqrtf: the same bits on every build. */
#include "collide/ray_shapes.h"

#include <math.h>

/* Hull: the ray clipped by every face plane n . x <= d (Cyrus-Beck). With
 * s = n . o - d (> 0: outside that face) and a = n . u, the ray is outside
 * the face's half-space for t < -s / a when a < 0 (it enters there) and
 * for t > -s / a when a > 0 (it leaves there). It meets the hull on
 * [largest entry, smallest exit]; an origin inside every face gives only
 * negative entries, hence no hit. A face parallel to the ray (a = 0) with
 * the origin outside it is a miss. */
bool ts_ray_hull(const ts_hull_data *hull, const ts_local_ray *ray, float *t, ts_vec3 *normal)
{
    float enter = -INFINITY, leave = ray->max_t;
    int face = -1;
    for (int f = 0; f < hull->face_count; ++f) {
        ts_plane p = hull->planes[f];
        float s = ts_dot(p.normal, ray->origin) - p.offset;
        float a = ts_dot(p.normal, ray->direction);
        if (a == 0.0f) {
            if (s > 0.0f) {
                return false;
            }
            continue;
        }
        float at = -s / a;
        if (a < 0.0f) {
            if (at > enter) {
                enter = at;
                face = f;
            }
        } else if (at < leave) {
            leave = at;
        }
        if (enter > leave) {
            return false;
        }
    }
    if (face < 0 || !(enter >= 0.0f)) {
        return false; /* the origin is inside (or the hull has no face) */
    }
    *t = enter;
    *normal = hull->planes[face].normal;
    return true;
}

/* One triangle's front side (Moller and Trumbore 1997): with edges e1, e2
 * and p = u x e2, det = e1 . p is the triangle's area along -u, > 0 when
 * the ray comes at its front; the barycentric (b1, b2) and t follow from
 * Cramer's rule. A hit must be nearer than *best (the closest so far). */
static bool ray_triangle(const ts_local_ray *ray, ts_vec3 a, ts_vec3 b, ts_vec3 c, float *best, ts_vec3 *normal)
{
    ts_vec3 e1 = ts_sub(b, a), e2 = ts_sub(c, a);
    ts_vec3 p = ts_cross(ray->direction, e2);
    float det = ts_dot(e1, p);
    if (!(det > 0.0f)) {
        return false; /* the back side, or the ray along its plane */
    }
    ts_vec3 s = ts_sub(ray->origin, a);
    float b1 = ts_dot(s, p);
    if (b1 < 0.0f || b1 > det) {
        return false;
    }
    ts_vec3 q = ts_cross(s, e1);
    float b2 = ts_dot(ray->direction, q);
    if (b2 < 0.0f || b1 + b2 > det) {
        return false;
    }
    float hit = ts_dot(e2, q) / det;
    if (!(hit >= 0.0f && hit < *best)) {
        return false;
    }
    *best = hit;
    *normal = ts_normalize(ts_cross(e1, e2));
    return true;
}

/* The slab test of a box: whether the ray meets it within [0, max_t]. */
static bool ray_meets_box(const ts_local_ray *ray, ts_vec3 inverse, ts_aabb box, float max_t)
{
    const float *o = &ray->origin.x, *d = &ray->direction.x, *inv = &inverse.x;
    const float *lo = &box.lower.x, *hi = &box.upper.x;
    float near = 0.0f, far = max_t;
    for (int k = 0; k < 3; ++k) {
        if (d[k] == 0.0f) {
            if (o[k] < lo[k] || o[k] > hi[k]) {
                return false;
            }
            continue;
        }
        float t0 = (lo[k] - o[k]) * inv[k], t1 = (hi[k] - o[k]) * inv[k];
        near = fmaxf(near, fminf(t0, t1));
        far = fminf(far, fmaxf(t0, t1));
    }
    return near <= far;
}

static ts_vec3 inverse_of(ts_vec3 d)
{
    return (ts_vec3){d.x != 0.0f ? 1.0f / d.x : 0.0f, d.y != 0.0f ? 1.0f / d.y : 0.0f,
                     d.z != 0.0f ? 1.0f / d.z : 0.0f};
}

/* A walk down a mesh's tree holds at most one sibling per level: its
 * build halves past depth 40, so 40 + 26 levels for 2^26 triangles. */
#define RAY_MESH_STACK 128

/* Mesh: its tree nearest-first is not needed for the closest hit (every
 * node the shrinking ray still meets is visited, in tree order); ties in t
 * go to the first triangle in tree order. */
bool ts_ray_mesh(const ts_mesh_data *mesh, const ts_local_ray *ray, float *t, ts_vec3 *normal)
{
    ts_vec3 inverse = inverse_of(ray->direction);
    float best = INFINITY;
    int32_t stack[RAY_MESH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const ts_mesh_node *node = mesh->nodes + stack[--top];
        if (!ray_meets_box(ray, inverse, node->box, best < ray->max_t ? best : ray->max_t)) {
            continue;
        }
        if (node->count == 0) {
            if (top + 2 <= RAY_MESH_STACK) { /* the build keeps the tree shallower (mesh_build.c) */
                stack[top++] = node->index + 1;
                stack[top++] = node->index;
            }
            continue;
        }
        for (int32_t k = node->index; k < node->index + node->count; ++k) {
            const int32_t *v = mesh->triangles + 3 * k;
            ray_triangle(ray, mesh->vertices[v[0]], mesh->vertices[v[1]], mesh->vertices[v[2]], &best, normal);
        }
    }
    if (!(best <= ray->max_t)) {
        return false;
    }
    *t = best;
    return true;
}

/* Heightfield: the ray clipped to the grid's bounds, then its cells in the
 * order it crosses them (a 2D digital differential analyser over x and z):
 * a triangle's hit lies in its cell, so the first cell with a hit holds
 * the closest one; the next cell is tested too, for a hit on the shared
 * edge that rounding put in either. */
static bool cell_hit(const ts_heightfield_data *hf, const ts_local_ray *ray, int i, int k, float *best,
                     ts_vec3 *normal)
{
    bool hit = false;
    int cx = hf->count_x - 1;
    for (int half = 0; half < 2; ++half) {
        ts_triangle tri;
        ts_heightfield_triangle(hf, 2 * (k * cx + i) + half, &tri);
        hit |= ray_triangle(ray, tri.v[0], tri.v[1], tri.v[2], best, normal);
    }
    return hit;
}

bool ts_ray_heightfield(const ts_heightfield_data *hf, const ts_local_ray *ray, float *t, ts_vec3 *normal)
{
    const float *o = &ray->origin.x, *d = &ray->direction.x;
    const float *lo = &hf->bounds.lower.x, *hi = &hf->bounds.upper.x;
    float near = 0.0f, far = ray->max_t;
    for (int a = 0; a < 3; ++a) { /* the slab test, keeping the interval */
        if (d[a] == 0.0f) {
            if (o[a] < lo[a] || o[a] > hi[a]) {
                return false;
            }
            continue;
        }
        float t0 = (lo[a] - o[a]) / d[a], t1 = (hi[a] - o[a]) / d[a];
        near = fmaxf(near, fminf(t0, t1));
        far = fminf(far, fmaxf(t0, t1));
    }
    if (near > far) {
        return false;
    }
    int cx = hf->count_x - 1, cz = hf->count_z - 1;
    float sx = hf->scale.x, sz = hf->scale.z;
    ts_vec3 start = ts_mul_add(ray->origin, near, ray->direction);
    int i = (int)(start.x / sx), k = (int)(start.z / sz);
    i = i < 0 ? 0 : (i >= cx ? cx - 1 : i);
    k = k < 0 ? 0 : (k >= cz ? cz - 1 : k);
    int step_i = d[0] > 0.0f ? 1 : -1, step_k = d[2] > 0.0f ? 1 : -1;
    /* t at which the ray crosses the cell's next x and z lines */
    float next_x = d[0] != 0.0f ? ((float)(i + (step_i > 0)) * sx - o[0]) / d[0] : INFINITY;
    float next_z = d[2] != 0.0f ? ((float)(k + (step_k > 0)) * sz - o[2]) / d[2] : INFINITY;
    float delta_x = d[0] != 0.0f ? sx / fabsf(d[0]) : INFINITY;
    float delta_z = d[2] != 0.0f ? sz / fabsf(d[2]) : INFINITY;
    float best = INFINITY;
    bool found = false;
    for (int visits = 0; visits < cx + cz + 2; ++visits) {
        bool hit = cell_hit(hf, ray, i, k, &best, normal);
        if (found) {
            break; /* the cell after the first hit's, tested for a hit on their shared edge */
        }
        found = hit;
        float leave = next_x < next_z ? next_x : next_z;
        if (leave > far) {
            break;
        }
        if (next_x < next_z) {
            i += step_i;
            next_x += delta_x;
        } else {
            k += step_k;
            next_z += delta_z;
        }
        if (i < 0 || i >= cx || k < 0 || k >= cz) {
            break;
        }
    }
    if (!(best <= ray->max_t)) {
        return false;
    }
    *t = best;
    return true;
}

const void *ts_ray_shape_data(const ts_shape *shape)
{
    switch (shape->type) {
    case TS_SHAPE_HULL: return shape->geometry.hull.data;
    case TS_SHAPE_MESH: return shape->geometry.mesh.data;
    case TS_SHAPE_HEIGHTFIELD: return shape->geometry.heightfield.data;
    default: return NULL;
    }
}

bool ts_ray_test_local(const ts_ray *ray, ts_shape_type type, const void *data, ts_vec3 center, const ts_vec3 *axis,
                       float *t, ts_vec3 *normal)
{
    /* into the frame: the transpose of the rotation, row by row */
    ts_vec3 m = ts_sub(ray->origin, center);
    ts_local_ray local = {{ts_dot(axis[0], m), ts_dot(axis[1], m), ts_dot(axis[2], m)},
                          {ts_dot(axis[0], ray->direction), ts_dot(axis[1], ray->direction),
                           ts_dot(axis[2], ray->direction)},
                          ray->length};
    ts_vec3 n;
    bool hit = false;
    switch (type) {
    case TS_SHAPE_HULL: hit = ts_ray_hull(data, &local, t, &n); break;
    case TS_SHAPE_MESH: hit = ts_ray_mesh(data, &local, t, &n); break;
    case TS_SHAPE_HEIGHTFIELD: hit = ts_ray_heightfield(data, &local, t, &n); break;
    default: break;
    }
    if (hit) {
        *normal = ts_add(ts_add(ts_scale(n.x, axis[0]), ts_scale(n.y, axis[1])), ts_scale(n.z, axis[2]));
    }
    return hit;
}

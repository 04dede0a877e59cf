/* Hull shapes: the convex hull of a point cloud, a cylinder as a hull, and
 * reading a hull back (tessera/shapes.h). The hull is built once per set of
 * points and world: shapes made from the same points share it
 * (collide/geometry_store.h). */
#include "api/shape.h"

#include "api/lookup.h"
#include "base/validate.h"
#include "collide/geometry_store.h"
#include "collide/hull_build.h"
#include "tessera/tessera.h"

/* The hull block of these points: the world's copy if it has one, else
 * built. NULL with an error on bad points or no memory. */
static const ts_hull_data *hull_block(ts_world *world, const ts_vec3 *points, int count, const char *fn)
{
    uint64_t key = ts_geometry_key(points, count);
    const ts_hull_data *shared = ts_geometry_find(&world->collision.geometry, key, points, count);
    if (shared != NULL) {
        return shared;
    }
    ts_hull_topology topology;
    if (ts_hull_compute(points, count, &topology, fn) != TS_OK) {
        return NULL;
    }
    void *memory = ts_geometry_alloc(&world->collision.geometry, &world->records.allocator,
                                     ts_hull_block_size(&topology), key, points, count);
    if (memory == NULL) {
        ts_fail(TS_ERROR_OUT_OF_MEMORY, fn, "the allocator returned NULL");
        return NULL;
    }
    return ts_hull_write(&topology, key, memory);
}

static ts_shape_id create_hull(ts_body_id body_id, const ts_shape_def *def, const ts_vec3 *points, int count,
                               const char *fn)
{
    ts_world *world;
    ts_body *body;
    ts_quat rotation;
    if (ts_shape_begin(body_id, def, fn, &world, &body, &rotation) != TS_OK) {
        return TS_NULL_SHAPE_ID;
    }
    /* the points first: a clear message for bad points without touching the world */
    if (points == NULL) {
        ts_fail(TS_ERROR_NULL_POINTER, fn, "hull->points is NULL");
        return TS_NULL_SHAPE_ID;
    }
    if (count < 4 || count > TS_HULL_MAX_POINTS) {
        ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "hull->point_count is %d (must be in 4..%d)", count, TS_HULL_MAX_POINTS);
        return TS_NULL_SHAPE_ID;
    }
    const ts_hull_data *hull = hull_block(world, points, count, fn);
    if (hull == NULL) {
        return TS_NULL_SHAPE_ID;
    }
    ts_shape probe = {.type = TS_SHAPE_HULL};
    probe.geometry.hull.data = hull;
    probe.geometry.hull.radius = hull->radius;
    return ts_shape_finish(world, body, def, rotation, &probe, fn);
}

ts_shape_id ts_create_hull_shape(ts_body_id body, const ts_shape_def *def, const ts_hull_def *hull)
{
    if (hull == NULL) {
        ts_fail(TS_ERROR_NULL_POINTER, __func__, "hull is NULL");
        return TS_NULL_SHAPE_ID;
    }
    return create_hull(body, def, hull->points, hull->point_count, __func__);
}

/* Corner j of a regular polygon of n sides sits at angle 2 pi j / n. Its
 * cosine and sine come from their Taylor series in double (20 terms are
 * exact to double precision for |angle| <= pi), not from libm, so that a
 * cylinder's points, and so its hull, are the same bits on every platform. */
ts_shape_id ts_create_cylinder_shape(ts_body_id body, const ts_shape_def *def, const ts_cylinder *cylinder)
{
    const char *fn = __func__;
    if (cylinder == NULL) {
        ts_fail(TS_ERROR_NULL_POINTER, fn, "cylinder is NULL");
        return TS_NULL_SHAPE_ID;
    }
    if (ts_check_positive(cylinder->half_height, fn, "cylinder->half_height") != TS_OK ||
        ts_check_positive(cylinder->radius, fn, "cylinder->radius") != TS_OK) {
        return TS_NULL_SHAPE_ID;
    }
    int sides = cylinder->sides == 0 ? 16 : cylinder->sides;
    if (sides < 3 || sides > TS_HULL_MAX_POINTS / 2) {
        ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "cylinder->sides is %d (must be 0 or in 3..%d)", cylinder->sides,
                TS_HULL_MAX_POINTS / 2);
        return TS_NULL_SHAPE_ID;
    }
    ts_vec3 points[TS_HULL_MAX_POINTS];
    double step = 2.0 * 3.14159265358979323846 / sides;
    for (int j = 0; j < sides; ++j) {
        double a = step * j;
        if (a > 3.14159265358979323846) {
            a -= 2.0 * 3.14159265358979323846;
        }
        double term = a, sine = 0.0, cosine = 0.0, cterm = 1.0;
        for (int k = 1; k < 40; k += 2) {
            sine += term;
            term *= -a * a / ((k + 1) * (k + 2));
            cosine += cterm;
            cterm *= -a * a / ((k) * (k + 1));
        }
        float x = (float)(cylinder->radius * cosine), z = (float)(cylinder->radius * sine);
        points[2 * j] = ts_v3(x, -cylinder->half_height, z);
        points[2 * j + 1] = ts_v3(x, cylinder->half_height, z);
    }
    return create_hull(body, def, points, 2 * sides, fn);
}

ts_result ts_shape_get_hull(ts_shape_id id, ts_hull_info *info, ts_vec3 *vertices, int capacity)
{
    TS_CHECK_NOT_NULL(info, __func__);
    TS_TRY(ts_check_output_array(vertices, capacity, __func__, "vertices"));
    ts_world *world;
    ts_shape *shape = ts_shape_lookup(id, &world, __func__);
    if (shape == NULL) {
        return TS_ERROR_STALE_ID;
    }
    if (shape->type != TS_SHAPE_HULL) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, __func__, "the shape is not a hull (type %d)", (int)shape->type);
    }
    const ts_hull_data *h = shape->geometry.hull.data;
    *info = (ts_hull_info){h->vertex_count, h->face_count, h->edge_count / 2, h->volume, h->centroid};
    for (int i = 0; i < capacity && i < h->vertex_count; ++i) {
        vertices[i] = h->vertices[i];
    }
    return TS_OK;
}

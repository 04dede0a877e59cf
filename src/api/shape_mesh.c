/* Mesh and heightfield shapes (tessera/shapes.h): checked, built into a
 * block of the world's geometry store (the mesh's tree and edge flags, the
 * heightfield's cell flags), attached to a static or kinematic body; and
 * their triangles read back for drawing. */
#include "api/shape.h"
#include "api/lookup.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/validate.h"
#include "collide/geometry_store.h"
#include "collide/heightfield.h"
#include "collide/mesh.h"
#include "tessera/tessera.h"

/* Meshes have no mass: a dynamic body cannot carry one. */
static ts_result check_body_type(const ts_body *body, const char *fn)
{
    if (body->type == TS_BODY_DYNAMIC) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, fn,
                       "the body is dynamic: meshes and heightfields go on static or kinematic bodies");
    }
    return TS_OK;
}

ts_shape_id ts_create_mesh_shape(ts_body_id body_id, const ts_shape_def *def, const ts_mesh_def *mesh)
{
    const char *fn = __func__;
    ts_world *world;
    ts_body *body;
    ts_quat rotation;
    if (ts_shape_begin(body_id, def, fn, &world, &body, &rotation) != TS_OK || check_body_type(body, fn) != TS_OK ||
        ts_mesh_check(mesh, fn) != TS_OK) {
        return TS_NULL_SHAPE_ID;
    }
    const ts_allocator *allocator = &world->records.allocator;
    size_t scratch_size = ts_mesh_scratch_size(mesh->triangle_count);
    int32_t *scratch = ts_alloc(allocator, scratch_size);
    void *memory = scratch == NULL ? NULL
                                   : ts_geometry_alloc(&world->collision.geometry, allocator,
                                                       ts_mesh_block_size(mesh->vertex_count, mesh->triangle_count),
                                                       0u, NULL, 0);
    if (memory == NULL) {
        ts_free(allocator, scratch, scratch_size);
        ts_fail(TS_ERROR_OUT_OF_MEMORY, fn, "the allocator returned NULL");
        return TS_NULL_SHAPE_ID;
    }
    const ts_mesh_data *data = ts_mesh_write(mesh, memory, scratch);
    ts_free(allocator, scratch, scratch_size);
    ts_shape probe = {.type = TS_SHAPE_MESH};
    probe.geometry.mesh.data = data;
    probe.geometry.mesh.radius = data->radius;
    return ts_shape_finish(world, body, def, rotation, &probe, fn);
}

ts_shape_id ts_create_heightfield_shape(ts_body_id body_id, const ts_shape_def *def,
                                        const ts_heightfield_def *heightfield)
{
    const char *fn = __func__;
    ts_world *world;
    ts_body *body;
    ts_quat rotation;
    if (ts_shape_begin(body_id, def, fn, &world, &body, &rotation) != TS_OK || check_body_type(body, fn) != TS_OK ||
        ts_heightfield_check(heightfield, fn) != TS_OK) {
        return TS_NULL_SHAPE_ID;
    }
    void *memory = ts_geometry_alloc(&world->collision.geometry, &world->records.allocator,
                                     ts_heightfield_block_size(heightfield->count_x, heightfield->count_z), 0u, NULL, 0);
    if (memory == NULL) {
        ts_fail(TS_ERROR_OUT_OF_MEMORY, fn, "the allocator returned NULL");
        return TS_NULL_SHAPE_ID;
    }
    const ts_heightfield_data *data = ts_heightfield_write(heightfield, memory);
    ts_shape probe = {.type = TS_SHAPE_HEIGHTFIELD};
    probe.geometry.heightfield.data = data;
    probe.geometry.heightfield.radius = data->radius;
    return ts_shape_finish(world, body, def, rotation, &probe, fn);
}

/* A mesh's triangles are kept in its tree's order; triangle_ids maps them
 * back to the order of the ts_mesh_def. */
static void mesh_triangles(const ts_mesh_data *mesh, ts_vec3 *corners, int capacity)
{
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        int32_t id = mesh->triangle_ids[t];
        if (id >= capacity) {
            continue;
        }
        for (int k = 0; k < 3; ++k) {
            corners[3 * id + k] = mesh->vertices[mesh->triangles[3 * t + k]];
        }
    }
}

ts_result ts_shape_get_triangles(ts_shape_id id, int *count, ts_vec3 *corners, int capacity)
{
    TS_CHECK_NOT_NULL(count, __func__);
    TS_TRY(ts_check_output_array(corners, capacity, __func__, "corners"));
    ts_world *world;
    ts_shape *shape = ts_shape_lookup(id, &world, __func__);
    if (shape == NULL) {
        return TS_ERROR_STALE_ID;
    }
    if (shape->type == TS_SHAPE_MESH) {
        const ts_mesh_data *mesh = shape->geometry.mesh.data;
        *count = mesh->triangle_count;
        mesh_triangles(mesh, corners, capacity);
        return TS_OK;
    }
    if (shape->type == TS_SHAPE_HEIGHTFIELD) {
        const ts_heightfield_data *hf = shape->geometry.heightfield.data;
        int32_t total = 2 * (hf->count_x - 1) * (hf->count_z - 1);
        *count = total;
        for (int32_t t = 0; t < total && t < capacity; ++t) {
            ts_triangle triangle;
            ts_heightfield_triangle(hf, t, &triangle);
            for (int k = 0; k < 3; ++k) {
                corners[3 * t + k] = triangle.v[k];
            }
        }
        return TS_OK;
    }
    return ts_fail(TS_ERROR_INVALID_OPERATION, __func__, "the shape is neither a mesh nor a heightfield (type %d)",
                   (int)shape->type);
}

/* Snapshots of hulls, meshes and heightfields (see geometry_snapshot.h).
 *
 * Per live shape of those types, in index order:
 *   hull         varint ref: 0, then varint count and count points (3 f32);
 *                or 1 + the index of an earlier shape with the same hull
 *   mesh         varint vertices, their points (3 f32), varint triangles,
 *                then per triangle in tree order: varint its index in the
 *                program's ts_mesh_def and 3 varint vertex indices
 *   heightfield  varint count_x, count_z, 3 f32 scale, count_x count_z
 *                f32 heights as kept (scaled by scale.y)
 * The loader rebuilds each with the create calls' own checks and builds. */
#include "collide/geometry_snapshot.h"

#include "base/alloc.h"
#include "base/error.h"
#include "collide/heightfield.h"
#include "collide/hull_build.h"
#include "collide/mesh.h"

#include <stdlib.h>
#include <string.h>

/* ---- save ---- */

typedef struct hull_use {
    uintptr_t data;
    int32_t shape;
} hull_use;

static int compare_uses(const void *a, const void *b)
{
    const hull_use *x = a, *y = b;
    if (x->data != y->data) {
        return x->data < y->data ? -1 : 1;
    }
    return x->shape < y->shape ? -1 : (x->shape > y->shape ? 1 : 0);
}

/* For each hull shape, the first shape with the same hull (itself when it
 * is the first): a sort of (block, shape) pairs. NULL when the allocator
 * refuses the room: every hull is then written in full (a larger file that
 * loads the same). */
static int32_t *first_users(const ts_records *records, size_t *bytes)
{
    int32_t n = records->shape_ids.next_index, hulls = 0;
    for (int32_t i = 0; i < n; ++i) {
        hulls += records->shapes[i].alive && records->shapes[i].type == TS_SHAPE_HULL ? 1 : 0;
    }
    size_t firsts = ((size_t)n * sizeof(int32_t) + 7u) & ~(size_t)7u; /* the uses after it 8-byte aligned */
    *bytes = firsts + (size_t)hulls * sizeof(hull_use);
    if (hulls < 2) {
        return NULL;
    }
    int32_t *first = ts_alloc(&records->allocator, *bytes);
    if (first == NULL) {
        return NULL;
    }
    hull_use *uses = (hull_use *)((char *)first + firsts);
    int32_t k = 0;
    for (int32_t i = 0; i < n; ++i) {
        const ts_shape *s = records->shapes + i;
        first[i] = i;
        if (s->alive && s->type == TS_SHAPE_HULL) {
            uses[k++] = (hull_use){(uintptr_t)s->geometry.hull.data, i};
        }
    }
    qsort(uses, (size_t)hulls, sizeof(hull_use), compare_uses);
    for (int32_t j = 1; j < hulls; ++j) {
        if (uses[j].data == uses[j - 1].data) {
            first[uses[j].shape] = first[uses[j - 1].shape];
        }
    }
    return first;
}

static void put_points(ts_writer *w, const ts_vec3 *points, int32_t count)
{
    ts_put_f32_array(w, (const float *)points, 3 * (size_t)count);
}

static void save_mesh(ts_writer *w, const ts_mesh_data *mesh)
{
    ts_put_varint(w, (uint64_t)mesh->vertex_count);
    put_points(w, mesh->vertices, mesh->vertex_count);
    ts_put_varint(w, (uint64_t)mesh->triangle_count);
    for (int32_t t = 0; t < mesh->triangle_count; ++t) {
        ts_put_varint(w, (uint64_t)mesh->triangle_ids[t]);
        for (int k = 0; k < 3; ++k) {
            ts_put_varint(w, (uint64_t)mesh->triangles[3 * t + k]);
        }
    }
}

static void save_heightfield(ts_writer *w, const ts_heightfield_data *hf)
{
    ts_put_varint(w, (uint64_t)hf->count_x);
    ts_put_varint(w, (uint64_t)hf->count_z);
    ts_put_f32(w, hf->scale.x);
    ts_put_f32(w, hf->scale.y);
    ts_put_f32(w, hf->scale.z);
    ts_put_f32_array(w, hf->heights, (size_t)hf->count_x * (size_t)hf->count_z);
}

void ts_geometry_save(ts_writer *w, const ts_records *records)
{
    size_t bytes = 0;
    int32_t *first = first_users(records, &bytes);
    for (int32_t i = 0; i < records->shape_ids.next_index; ++i) {
        const ts_shape *s = records->shapes + i;
        if (!s->alive || s->type < TS_SHAPE_HULL) {
            continue;
        }
        if (s->type == TS_SHAPE_HULL) {
            if (first != NULL && first[i] != i) {
                ts_put_varint(w, (uint64_t)first[i] + 1u);
                continue;
            }
            int count = 0;
            const ts_vec3 *points = ts_geometry_points(s->geometry.hull.data, &count);
            ts_put_varint(w, 0);
            ts_put_varint(w, (uint64_t)count);
            put_points(w, points, count);
        } else if (s->type == TS_SHAPE_MESH) {
            save_mesh(w, s->geometry.mesh.data);
        } else {
            save_heightfield(w, s->geometry.heightfield.data);
        }
    }
    if (first != NULL) {
        ts_free(&records->allocator, first, bytes);
    }
}

/* ---- load ---- */

#define FN "ts_world_load"

/* The create call's check or build failed: its message (ts_last_error) into the reader's. */
static ts_load_status refused(ts_reader *r, int32_t shape, const char *what)
{
    ts_reader_fail(r, "shape %d's %s: %s", (int)shape, what, ts_last_error());
    return TS_LOAD_INVALID;
}

static ts_load_status load_hull(ts_reader *r, ts_records *records, ts_geometry_store *store, int32_t i)
{
    ts_shape *s = records->shapes + i;
    uint64_t ref = ts_get_varint(r);
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    if (ref != 0) {
        const ts_shape *e = ref - 1u < (uint64_t)i ? records->shapes + (ref - 1u) : NULL;
        if (e == NULL || !e->alive || e->type != TS_SHAPE_HULL || e->geometry.hull.data == NULL) {
            ts_reader_fail(r, "shape %d's hull is that of shape %llu, which is no earlier hull", (int)i,
                           (unsigned long long)(ref - 1u));
            return TS_LOAD_INVALID;
        }
        ts_geometry_retain(e->geometry.hull.data);
        s->geometry.hull = e->geometry.hull;
        return TS_LOAD_OK;
    }
    int32_t count = ts_get_count(r, TS_HULL_MAX_POINTS, 12, "a hull's point count");
    ts_vec3 points[TS_HULL_MAX_POINTS];
    if (count > 0) {
        ts_get_f32_array(r, (float *)points, 3 * (size_t)count);
    }
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    uint64_t key = ts_geometry_key(points, count);
    const ts_hull_data *hull = ts_geometry_find(store, key, points, count);
    if (hull == NULL) {
        ts_hull_topology topology;
        if (ts_hull_compute(points, count, &topology, FN) != TS_OK) {
            return refused(r, i, "hull points");
        }
        void *memory = ts_geometry_alloc(store, &records->allocator, ts_hull_block_size(&topology), key, points, count);
        if (memory == NULL) {
            return TS_LOAD_NO_MEMORY;
        }
        hull = ts_hull_write(&topology, key, memory);
    }
    s->geometry.hull.data = hull;
    s->geometry.hull.radius = hull->radius;
    return TS_LOAD_OK;
}

/* A mesh's definition back in the program's triangle order (each index
 * once), then checked and built as ts_create_mesh_shape does. */
static ts_load_status load_mesh(ts_reader *r, ts_records *records, ts_geometry_store *store, int32_t i)
{
    const ts_allocator *a = &records->allocator;
    int32_t vertices = ts_get_count(r, INT32_MAX / 16, 12, "a mesh's vertex count");
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    size_t vertex_bytes = (size_t)vertices * sizeof(ts_vec3);
    ts_vec3 *points = ts_alloc(a, vertex_bytes > 0 ? vertex_bytes : 1);
    if (points == NULL) {
        return TS_LOAD_NO_MEMORY;
    }
    ts_get_f32_array(r, (float *)points, 3 * (size_t)vertices);
    int32_t triangles = ts_get_count(r, INT32_MAX / 16, 4, "a mesh's triangle count"); /* 4 varints each */
    size_t index_bytes = (size_t)(triangles > 0 ? triangles : 0) * (3 * sizeof(int32_t) + 1);
    int32_t *indices = r->failed ? NULL : ts_alloc(a, index_bytes > 0 ? index_bytes : 1);
    ts_load_status status = r->failed ? TS_LOAD_INVALID : (indices == NULL ? TS_LOAD_NO_MEMORY : TS_LOAD_OK);
    if (status == TS_LOAD_OK) {
        uint8_t *seen = (uint8_t *)(indices + 3 * (size_t)triangles);
        memset(seen, 0, (size_t)triangles);
        for (int32_t t = 0; t < triangles && !r->failed; ++t) {
            int32_t id = ts_get_index(r, 0, triangles, "a mesh triangle's index");
            for (int k = 0; k < 3; ++k) {
                uint64_t v = ts_get_varint(r);
                if (!r->failed && v >= (uint64_t)vertices) {
                    ts_reader_fail(r, "shape %d's mesh triangle names vertex %llu of %d", (int)i,
                                   (unsigned long long)v, (int)vertices);
                }
                if (!r->failed) {
                    indices[3 * id + k] = (int32_t)v;
                }
            }
            if (!r->failed && seen[id]++ != 0) {
                ts_reader_fail(r, "shape %d's mesh lists triangle %d twice", (int)i, (int)id);
            }
        }
        status = r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
    }
    ts_mesh_def def = {points, vertices, indices, triangles};
    if (status == TS_LOAD_OK && ts_mesh_check(&def, FN) != TS_OK) {
        status = refused(r, i, "mesh");
    }
    size_t scratch_size = status == TS_LOAD_OK ? ts_mesh_scratch_size(triangles) : 0;
    int32_t *scratch = status == TS_LOAD_OK ? ts_alloc(a, scratch_size) : NULL;
    void *memory = scratch == NULL ? NULL
                                   : ts_geometry_alloc(store, a, ts_mesh_block_size(vertices, triangles), 0u, NULL, 0);
    if (status == TS_LOAD_OK && memory == NULL) {
        status = TS_LOAD_NO_MEMORY;
    }
    if (status == TS_LOAD_OK) {
        const ts_mesh_data *mesh = ts_mesh_write(&def, memory, scratch);
        records->shapes[i].geometry.mesh.data = mesh;
        records->shapes[i].geometry.mesh.radius = mesh->radius;
    }
    if (scratch != NULL) {
        ts_free(a, scratch, scratch_size);
    }
    if (indices != NULL) {
        ts_free(a, indices, index_bytes > 0 ? index_bytes : 1);
    }
    ts_free(a, points, vertex_bytes > 0 ? vertex_bytes : 1);
    return status;
}

/* The grid as kept (heights scaled): built with scale.y 1 (x * 1 is x, so
 * the same heights, bounds and cell flags), then scale.y put back. */
static ts_load_status load_heightfield(ts_reader *r, ts_records *records, ts_geometry_store *store, int32_t i)
{
    const ts_allocator *a = &records->allocator;
    int32_t nx = ts_get_count(r, INT32_MAX, 0, "a heightfield's count_x");
    int32_t nz = ts_get_count(r, INT32_MAX, 0, "a heightfield's count_z");
    ts_vec3 scale = {ts_get_f32(r), ts_get_f32(r), ts_get_f32(r)};
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    uint64_t n = (uint64_t)nx * (uint64_t)nz;
    if (n * 4u > ts_reader_left(r) || nx < 2 || nz < 2) {
        ts_reader_fail(r, "shape %d's heightfield of %d x %d heights: the file holds fewer, or too few", (int)i,
                       (int)nx, (int)nz);
        return TS_LOAD_INVALID;
    }
    if (!(scale.y > 0.0f) || !ts_is_finite(scale.y)) {
        ts_reader_fail(r, "shape %d's heightfield scale.y is %g", (int)i, (double)scale.y);
        return TS_LOAD_INVALID;
    }
    float *heights = ts_alloc(a, (size_t)n * sizeof(float));
    if (heights == NULL) {
        return TS_LOAD_NO_MEMORY;
    }
    ts_get_f32_array(r, heights, (size_t)n);
    ts_heightfield_def def = {heights, nx, nz, {scale.x, 1.0f, scale.z}};
    ts_load_status status = TS_LOAD_OK;
    if (ts_heightfield_check(&def, FN) != TS_OK) {
        status = refused(r, i, "heightfield");
    }
    void *memory = status == TS_LOAD_OK ? ts_geometry_alloc(store, a, ts_heightfield_block_size(nx, nz), 0u, NULL, 0)
                                        : NULL;
    if (status == TS_LOAD_OK && memory == NULL) {
        status = TS_LOAD_NO_MEMORY;
    }
    if (status == TS_LOAD_OK) {
        ts_heightfield_write(&def, memory);
        ts_heightfield_data *hf = memory; /* the block's start (heightfield.c's layout) */
        hf->scale.y = scale.y;
        records->shapes[i].geometry.heightfield.data = hf;
        records->shapes[i].geometry.heightfield.radius = hf->radius;
    }
    ts_free(a, heights, (size_t)n * sizeof(float));
    return status;
}

ts_load_status ts_geometry_load(ts_reader *r, ts_records *records, ts_geometry_store *store)
{
    for (int32_t i = 0; i < records->shape_ids.next_index; ++i) {
        const ts_shape *s = records->shapes + i;
        if (!s->alive || s->type < TS_SHAPE_HULL) {
            continue;
        }
        ts_load_status status = s->type == TS_SHAPE_HULL   ? load_hull(r, records, store, i)
                                : s->type == TS_SHAPE_MESH ? load_mesh(r, records, store, i)
                                                           : load_heightfield(r, records, store, i);
        if (status != TS_LOAD_OK) {
            return status;
        }
    }
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}

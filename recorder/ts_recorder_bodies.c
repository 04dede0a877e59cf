/* BODY chunks: what a body looks like (its type and shapes with their sizes,
 * local transforms and, for hulls, meshes and heightfields, the points that
 * draw them), its pose, island and sleep state when added. */
#include "ts_recorder_internal.h"

#include <string.h>

bool ts_rec_track_slot(ts_recorder *r, int slot)
{
    int old = r->body_capacity;
    if (!TS_REC_RESERVE(r->bodies, r->body_capacity, slot + 1)) {
        return false;
    }
    memset(r->bodies + old, 0, sizeof(ts_rec_body) * (size_t)(r->body_capacity - old));
    return true;
}

/* The points that draw a hull (its vertices), a mesh or a heightfield
 * (three corners a triangle), 0 for the other shapes. */
static int outline_count(ts_shape_id shape, ts_shape_type type)
{
    int count = 0;
    if (type == TS_SHAPE_HULL) {
        ts_hull_info info;
        count = ts_shape_get_hull(shape, &info, NULL, 0) == TS_OK ? info.vertex_count : 0;
    } else if (type == TS_SHAPE_MESH || type == TS_SHAPE_HEIGHTFIELD) {
        int triangles = 0;
        count = ts_shape_get_triangles(shape, &triangles, NULL, 0) == TS_OK ? 3 * triangles : 0;
    }
    return count;
}

static bool has_outline(ts_shape_type type)
{
    return type == TS_SHAPE_HULL || type == TS_SHAPE_MESH || type == TS_SHAPE_HEIGHTFIELD;
}

/* One shape: type, local transform, three size numbers (sphere: radius, 0,
 * 0; box: half-extents; capsule: radius, half_height, 0; others 0), then
 * for a hull, mesh or heightfield its outline: a point count and the
 * points (r->outline holds room for them). */
static void put_shape(ts_recorder *r, ts_shape_id shape)
{
    ts_rec_buffer *b = &r->buffer;
    ts_shape_type type = TS_SHAPE_SPHERE;
    ts_transform local = {{0.0f, 0.0f, 0.0f}, TS_QUAT_IDENTITY};
    float size[3] = {0.0f, 0.0f, 0.0f};
    ts_shape_get_type(shape, &type);
    ts_shape_get_local_transform(shape, &local);
    if (type == TS_SHAPE_SPHERE) {
        ts_sphere s = {0.0f};
        ts_shape_get_sphere(shape, &s);
        size[0] = s.radius;
    } else if (type == TS_SHAPE_BOX) {
        ts_box s = {{0.0f, 0.0f, 0.0f}};
        ts_shape_get_box(shape, &s);
        size[0] = s.half_extents.x, size[1] = s.half_extents.y, size[2] = s.half_extents.z;
    } else if (type == TS_SHAPE_CAPSULE) {
        ts_capsule s = {0.0f, 0.0f};
        ts_shape_get_capsule(shape, &s);
        size[0] = s.radius, size[1] = s.half_height;
    }
    ts_rec_put_u32(b, (uint32_t)type);
    ts_rec_put_bytes(b, &local, sizeof(local));
    ts_rec_put_bytes(b, size, sizeof(size));
    if (!has_outline(type)) {
        return;
    }
    int count = outline_count(shape, type);
    if (type == TS_SHAPE_HULL) {
        ts_hull_info info;
        ts_shape_get_hull(shape, &info, r->outline, count);
    } else {
        int triangles = 0;
        ts_shape_get_triangles(shape, &triangles, r->outline, count / 3);
    }
    ts_rec_put_u32(b, (uint32_t)count);
    if (count > 0) {
        ts_rec_put_bytes(b, r->outline, (size_t)count * sizeof(ts_vec3));
    }
}

/* The shapes of a body into r->shapes; returns their count, or -1 when memory ran out. */
static int read_shapes(ts_recorder *r, ts_body_id body)
{
    int count = 0;
    ts_body_get_shapes(body, r->shapes, r->shape_capacity, &count);
    if (count > r->shape_capacity) {
        if (!TS_REC_RESERVE(r->shapes, r->shape_capacity, count)) {
            return -1;
        }
        ts_body_get_shapes(body, r->shapes, r->shape_capacity, &count);
    }
    return count;
}

/* The body's record. Remembers it in the body table; an awake body joins the
 * previous frame's awake list, so the next frame sees it fall asleep if it does. */
static bool put_body(ts_recorder *r, ts_body_id body)
{
    int slot = ts_rec_slot(body);
    int shape_count = read_shapes(r, body);
    size_t bytes = 48 + (size_t)(shape_count > 0 ? shape_count : 0) * 44;
    int most = 0; /* the longest outline */
    for (int i = 0; i < shape_count; ++i) {
        ts_shape_type type = TS_SHAPE_SPHERE;
        ts_shape_get_type(r->shapes[i], &type);
        int count = outline_count(r->shapes[i], type);
        bytes += has_outline(type) ? 4 + (size_t)count * sizeof(ts_vec3) : 0;
        most = count > most ? count : most;
    }
    if (shape_count < 0 || !ts_rec_track_slot(r, slot) || !TS_REC_RESERVE(r->prev_ids, r->prev_capacity, r->prev_count + 1) ||
        !TS_REC_RESERVE(r->outline, r->outline_capacity, most) || !ts_rec_buffer_reserve(&r->buffer, bytes)) {
        return false;
    }
    ts_body_type type = TS_BODY_STATIC;
    bool awake = false;
    int island = -1;
    ts_transform pose;
    ts_body_get_type(body, &type);
    ts_body_is_awake(body, &awake);
    ts_body_get_island(body, &island);
    ts_body_get_transform(body, &pose);
    ts_rec_put_u32(&r->buffer, (uint32_t)slot);
    ts_rec_put_u32(&r->buffer, (uint32_t)type | (awake ? TS_REC_BODY_AWAKE : 0u) << 8);
    ts_rec_put_i32(&r->buffer, island);
    ts_rec_put_u32(&r->buffer, (uint32_t)shape_count);
    ts_rec_put_bytes(&r->buffer, &pose, sizeof(pose));
    for (int i = 0; i < shape_count; ++i) {
        put_shape(r, r->shapes[i]);
    }
    ts_rec_body *tracked = &r->bodies[slot];
    bool listed = tracked->known && tracked->generation == body.generation && tracked->awake_epoch == r->epoch;
    *tracked = (ts_rec_body){.generation = body.generation, .island = island, .known = 1,
                             .awake_epoch = listed ? r->epoch : r->epoch - 1};
    if (awake && type != TS_BODY_STATIC && !listed) {
        tracked->awake_epoch = r->epoch;
        r->prev_ids[r->prev_count++] = body;
    }
    r->islands_dirty = true;
    return true;
}

bool ts_rec_put_bodies(ts_recorder *r, const ts_body_id *bodies, int count)
{
    if (count == 0) {
        return true;
    }
    if (!ts_rec_buffer_reserve(&r->buffer, 12)) {
        return false;
    }
    size_t chunk = ts_rec_begin_chunk(&r->buffer, TS_REC_CHUNK_BODY);
    ts_rec_put_u32(&r->buffer, (uint32_t)count);
    for (int i = 0; i < count; ++i) {
        if (!put_body(r, bodies[i])) {
            return false;
        }
    }
    ts_rec_end_chunk(&r->buffer, chunk);
    return true;
}

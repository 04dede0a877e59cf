/* The public snapshot functions (tessera/snapshot.h): the header and the
 * checksum around the sections (step/world_snapshot.c), to and from memory
 * and files; the state hash; the list of a world's bodies.
 *
 * The file: a 32-byte header, then the sections.
 *   magic    8 bytes  0x89 'T' 'S' 'W' '\r' '\n' 0x1A '\n' (a text-mode
 *                     copy or a truncated transfer breaks it, as PNG's)
 *   version  u32      TS_SNAPSHOT_FORMAT_VERSION
 *   flags    u32      0
 *   size     u64      bytes after the header
 *   checksum u64      XXH3-64 of those bytes
 * All little-endian. */
#include "api/body_mass.h"
#include "api/lookup.h"
#include "base/error.h"
#include "base/snapshot_io.h"
#include "base/validate.h"
#include "step/world_snapshot.h"
#include "tessera/tessera.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 32

static const uint8_t magic[8] = {0x89, 'T', 'S', 'W', '\r', '\n', 0x1A, '\n'};

/* ---- save ---- */

ts_result ts_world_save(ts_world_id id, void *buffer, size_t capacity, size_t *size)
{
    TS_CHECK_NOT_NULL(size, __func__);
    if (buffer == NULL && capacity > 0) {
        return ts_fail(TS_ERROR_NULL_POINTER, __func__, "buffer is NULL with capacity %zu (pass 0 to ask the size)",
                       capacity);
    }
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    /* Format version 1 holds spheres, boxes and capsules; hulls, meshes and
     * heightfields (issue 26, merged after it) are not saved yet. */
    for (int32_t i = 0; i < world->records.shape_ids.next_index; ++i) {
        const ts_shape *shape = world->records.shapes + i;
        if (shape->alive && shape->type > TS_SHAPE_CAPSULE) {
            return ts_fail(TS_ERROR_UNSUPPORTED, __func__,
                           "shape %d is a hull, mesh or heightfield (type %d): snapshots do not hold these yet",
                           (int)i, (int)shape->type);
        }
        if (shape->alive && shape->rolling_resistance > 0.0f) { /* format 2 has no rolling resistance */
            return ts_fail(TS_ERROR_UNSUPPORTED, __func__,
                           "shape %d has rolling resistance: snapshots do not hold it yet", (int)i);
        }
        if (shape->alive && shape->is_sensor) { /* the format has no sensor flag: it would load as a solid shape */
            return ts_fail(TS_ERROR_UNSUPPORTED, __func__, "shape %d is a sensor: snapshots do not hold these yet",
                           (int)i);
        }
    }
    /* Nor custom constraints (issue 25, merged after format 1; motion locks,
     * planar worlds and speed limits came in format 2): such a world is
     * refused rather than resumed differently. */
    for (int32_t i = 0; i < world->records.body_ids.next_index; ++i) {
        const ts_body *body = world->records.bodies + i;
        if (body->alive && body->faulted) {
            return ts_fail(TS_ERROR_UNSUPPORTED, __func__,
                           "body %d was taken out after its state overflowed (ts_world_get_body_faults): snapshots do "
                           "not hold faulted bodies; destroy it first",
                           (int)i);
        }
    }
    for (int32_t i = 0; i < world->records.joint_ids.next_index; ++i) {
        const ts_joint *joint = world->records.joints + i;
        if (joint->alive && joint->type == TS_JOINT_CUSTOM) {
            return ts_fail(TS_ERROR_UNSUPPORTED, __func__,
                           "joint %d is a custom constraint: snapshots do not hold these yet", (int)i);
        }
    }
    ts_writer w = {buffer, capacity, 0};
    ts_put_bytes(&w, magic, sizeof magic);
    ts_put_u32(&w, TS_SNAPSHOT_FORMAT_VERSION);
    ts_put_u32(&w, 0);
    ts_put_u64(&w, 0); /* size and checksum: below */
    ts_put_u64(&w, 0);
    ts_world_save_sections(&w, world);
    *size = w.size;
    if (buffer == NULL) {
        return TS_OK;
    }
    if (w.size > capacity) {
        return ts_fail(TS_ERROR_CAPACITY, __func__, "the snapshot takes %zu bytes, the buffer holds %zu", w.size,
                       capacity);
    }
    ts_writer header = {(uint8_t *)buffer + 16, 16, 0};
    ts_put_u64(&header, w.size - HEADER_SIZE);
    ts_put_u64(&header, ts_snapshot_checksum((const uint8_t *)buffer + HEADER_SIZE, w.size - HEADER_SIZE));
    return TS_OK;
}

/* ---- load ---- */

static ts_result invalid(const char *format, ...) TS_PRINTF_LIKE(1, 2);

static ts_result invalid(const char *format, ...)
{
    char message[256];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return ts_fail(TS_ERROR_INVALID_DATA, "ts_world_load", "%s", message);
}

/* The header: magic, version (into *version), size and checksum. */
static ts_result check_header(const uint8_t *data, size_t size, uint32_t *version_out)
{
    if (size < HEADER_SIZE) {
        return invalid("%zu bytes, fewer than a snapshot's %d-byte header (truncated?)", size, HEADER_SIZE);
    }
    if (memcmp(data, magic, sizeof magic) != 0) {
        return invalid("no snapshot (its first 8 bytes are not tessera's snapshot mark)");
    }
    ts_reader r = ts_reader_of(data + 8, HEADER_SIZE - 8);
    uint32_t version = ts_get_u32(&r);
    uint32_t flags = ts_get_u32(&r);
    uint64_t payload = ts_get_u64(&r);
    uint64_t checksum = ts_get_u64(&r);
    if (version < TS_SNAPSHOT_OLDEST_VERSION || version > TS_SNAPSHOT_FORMAT_VERSION) {
        return invalid("format version %u, this tessera reads versions %d to %d (%s); load it with a tessera that "
                       "reads it and save it again there",
                       (unsigned)version, TS_SNAPSHOT_OLDEST_VERSION, TS_SNAPSHOT_FORMAT_VERSION,
                       version < TS_SNAPSHOT_OLDEST_VERSION ? "an older format" : "a newer format");
    }
    *version_out = version;
    if (flags != 0) {
        return invalid("header flags %u (none are defined)", (unsigned)flags);
    }
    if (payload != size - HEADER_SIZE) {
        return invalid("the header says %llu bytes follow it, there are %zu (%s)", (unsigned long long)payload,
                       size - HEADER_SIZE, payload > size - HEADER_SIZE ? "truncated" : "trailing bytes");
    }
    if (ts_snapshot_checksum(data + HEADER_SIZE, size - HEADER_SIZE) != checksum) {
        return invalid("checksum mismatch: the snapshot is corrupted");
    }
    return TS_OK;
}

/* The code ts_create_world recorded in its message. */
static ts_result create_error(void)
{
    for (int code = TS_ERROR_NULL_POINTER; code <= TS_ERROR_IO; ++code) {
        char name[64];
        snprintf(name, sizeof name, ": %s:", ts_result_name((ts_result)code));
        if (strstr(ts_last_error(), name) != NULL) {
            return (ts_result)code;
        }
    }
    return TS_ERROR_OUT_OF_RANGE;
}

ts_result ts_world_load(const void *data, size_t size, const ts_world_def *def, ts_world_id *world_id)
{
    TS_CHECK_NOT_NULL(world_id, __func__);
    *world_id = TS_NULL_WORLD_ID;
    TS_CHECK_NOT_NULL(data, __func__);
    uint32_t version = 0;
    TS_TRY(check_header(data, size, &version));
    ts_world_def made = def != NULL ? *def : ts_default_world_def();
    made.body_capacity = 0; /* the snapshot's arrays are sized exactly */
    made.shape_capacity = 0;
    ts_world_id id = ts_create_world(&made);
    if (ts_world_id_is_null(id)) {
        return create_error(); /* ts_create_world named the problem with def */
    }
    ts_world *world = ts_world_lookup(id, __func__);
    ts_reader r = ts_reader_of((const uint8_t *)data + HEADER_SIZE, size - HEADER_SIZE);
    r.version = version;
    ts_result result = ts_world_load_sections(&r, world);
    if (result != TS_OK) {
        char message[TS_READER_MESSAGE];
        memcpy(message, r.message, sizeof message);
        ts_destroy_world(id);
        if (result == TS_ERROR_OUT_OF_MEMORY) {
            return ts_fail(result, __func__, "the allocator returned NULL");
        }
        return ts_fail(result, __func__, "%s", message);
    }
    *world_id = id;
    return TS_OK;
}

/* ---- files ---- */

ts_result ts_world_save_file(ts_world_id id, const char *path)
{
    TS_CHECK_NOT_NULL(path, __func__);
    size_t size = 0;
    TS_TRY(ts_world_save(id, NULL, 0, &size));
    void *buffer = malloc(size);
    if (buffer == NULL) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, __func__, "no memory for a %zu-byte snapshot", size);
    }
    ts_result result = ts_world_save(id, buffer, size, &size);
    if (result == TS_OK) {
        FILE *file = fopen(path, "wb");
        if (file == NULL) {
            result = ts_fail(TS_ERROR_IO, __func__, "cannot open '%s' to write: %s", path, strerror(errno));
        } else {
            bool written = fwrite(buffer, 1, size, file) == size;
            int error = errno;
            if (fclose(file) != 0 || !written) {
                result = ts_fail(TS_ERROR_IO, __func__, "cannot write '%s': %s", path, strerror(written ? errno : error));
            }
        }
    }
    free(buffer);
    return result;
}

ts_result ts_world_load_file(const char *path, const ts_world_def *def, ts_world_id *world)
{
    TS_CHECK_NOT_NULL(world, __func__);
    *world = TS_NULL_WORLD_ID;
    TS_CHECK_NOT_NULL(path, __func__);
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        return ts_fail(TS_ERROR_IO, __func__, "cannot open '%s': %s", path, strerror(errno));
    }
    size_t capacity = 1 << 16, size = 0;
    uint8_t *data = malloc(capacity);
    bool ok = data != NULL;
    while (ok) {
        size += fread(data + size, 1, capacity - size, file);
        if (size < capacity) {
            ok = ferror(file) == 0;
            break;
        }
        uint8_t *grown = capacity <= SIZE_MAX / 2 ? realloc(data, capacity * 2) : NULL;
        ok = grown != NULL;
        if (ok) {
            data = grown;
            capacity *= 2;
        }
    }
    int error = errno;
    fclose(file);
    ts_result result;
    if (!ok) {
        result = data == NULL ? ts_fail(TS_ERROR_OUT_OF_MEMORY, __func__, "no memory to read '%s'", path)
                              : ts_fail(TS_ERROR_IO, __func__, "cannot read '%s': %s", path, strerror(error));
    } else {
        result = ts_world_load(data, size, def, world);
    }
    free(data);
    return result;
}

/* ---- the state hash and the body list ---- */

static uint64_t fnv_floats(uint64_t hash, const float *values, int count)
{
    for (int i = 0; i < count; ++i) {
        uint32_t bits;
        memcpy(&bits, values + i, 4);
        for (int b = 0; b < 4; ++b) { /* little-endian bytes, whatever the host */
            hash ^= (bits >> (8 * b)) & 0xFFu;
            hash *= 0x100000001b3ull; /* FNV-1a 64 prime */
        }
    }
    return hash;
}

ts_result ts_world_state_hash(ts_world_id id, uint64_t *hash)
{
    TS_CHECK_NOT_NULL(hash, __func__);
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    const ts_body_store *s = &world->records.store;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 offset basis */
    for (int32_t b = 0; b < world->records.body_ids.next_index; ++b) {
        if (!world->records.bodies[b].alive) {
            continue;
        }
        int32_t i = s->table.slot_of_id[b];
        ts_transform t = ts_body_origin_transform(world, b);
        float state[13] = {t.p.x, t.p.y, t.p.z, t.q.x, t.q.y, t.q.z, t.q.w,
                           s->vx[i], s->vy[i], s->vz[i], s->wx[i], s->wy[i], s->wz[i]};
        h = fnv_floats(h, state, 13);
    }
    *hash = h;
    return TS_OK;
}

ts_result ts_world_get_bodies(ts_world_id id, ts_body_id *ids, int capacity, int *count)
{
    return ts_list_bodies(id, ids, capacity, count, false, __func__);
}

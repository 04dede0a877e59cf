/* The recorder's life: defaults, create (file and header), adding bodies,
 * close (end mark), and its error message. The per-frame work is
 * ts_recorder_frame.c. */
#include "ts_recorder_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Marks a def made by ts_default_recorder_def ("REC1"). */
#define TS_REC_DEF_COOKIE 0x52454331

static _Thread_local char rec_error[256];

ts_result ts_rec_fail(ts_result result, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(rec_error, sizeof(rec_error), format, args);
    va_end(args);
    return result;
}

const char *ts_recorder_last_error(void)
{
    return rec_error;
}

ts_recorder_def ts_default_recorder_def(void)
{
    return (ts_recorder_def){.dt = 1.0f / 60.0f, .contacts = false, .internal_value = TS_REC_DEF_COOKIE};
}

static ts_result check_def(const ts_recorder_def *def)
{
    if (def->internal_value != TS_REC_DEF_COOKIE) {
        return ts_rec_fail(TS_ERROR_UNINITIALIZED_DEF,
                           "ts_recorder_create: def was not made by ts_default_recorder_def()");
    }
    if (!isfinite(def->dt)) {
        return ts_rec_fail(TS_ERROR_NOT_FINITE, "ts_recorder_create: def->dt is not finite");
    }
    if (!(def->dt > 0.0f)) {
        return ts_rec_fail(TS_ERROR_OUT_OF_RANGE, "ts_recorder_create: def->dt must be > 0, got %g", (double)def->dt);
    }
    return TS_OK;
}

static bool host_is_little_endian(void)
{
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

/* The 32-byte header: magic, version, header size, dt, flags, tessera's version. */
static void put_header(ts_recorder *r)
{
    ts_rec_put_bytes(&r->buffer, TS_REC_MAGIC, 8);
    ts_rec_put_u32(&r->buffer, TS_RECORDING_VERSION);
    ts_rec_put_u32(&r->buffer, TS_REC_HEADER_SIZE);
    ts_rec_put_f32(&r->buffer, r->def.dt);
    ts_rec_put_u32(&r->buffer, r->def.contacts ? 1u : 0u);
    ts_rec_put_u32(&r->buffer, TS_VERSION_MAJOR << 16 | TS_VERSION_MINOR << 8 | TS_VERSION_PATCH);
    ts_rec_put_u32(&r->buffer, 0u);
}

static void free_recorder(ts_recorder *r)
{
    void *arrays[] = {r->bodies,   r->ids,     r->transforms, r->prev_ids, r->new_bodies,
                      r->island_changes, r->asleep, r->removed, r->shapes, r->outline, r->contacts, r->points, r->buffer.data};
    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); ++i) {
        free(arrays[i]);
    }
    free(r);
}

static ts_result check_create(ts_world_id world, const char *path, const ts_recorder_def *def, ts_recorder **out)
{
    if (out == NULL || path == NULL) {
        return ts_rec_fail(TS_ERROR_NULL_POINTER, "ts_recorder_create: %s is NULL", out == NULL ? "recorder" : "path");
    }
    ts_result result = def != NULL ? check_def(def) : TS_OK;
    if (result != TS_OK) {
        return result;
    }
    if (!ts_world_is_valid(world)) {
        return ts_rec_fail(TS_ERROR_STALE_ID, "ts_recorder_create: the world id is null, stale or destroyed");
    }
    if (!host_is_little_endian()) {
        return ts_rec_fail(TS_ERROR_UNSUPPORTED, "ts_recorder_create: recordings are little-endian; this host is not");
    }
    return TS_OK;
}

ts_result ts_recorder_create(ts_world_id world, const char *path, const ts_recorder_def *def, ts_recorder **out)
{
    ts_result result = check_create(world, path, def, out);
    if (result != TS_OK) {
        return result;
    }
    ts_recorder *r = calloc(1, sizeof(*r));
    if (r == NULL || !ts_rec_buffer_reserve(&r->buffer, TS_REC_HEADER_SIZE)) {
        free(r);
        return ts_rec_fail(TS_ERROR_OUT_OF_MEMORY, "ts_recorder_create: out of memory");
    }
    r->world = world;
    r->def = def != NULL ? *def : ts_default_recorder_def();
    r->epoch = 1; /* body table entries start at 0: in no list */
    r->file = fopen(path, "wb");
    if (r->file == NULL) {
        result = ts_rec_fail(TS_ERROR_INVALID_OPERATION, "ts_recorder_create: cannot open '%s' for writing: %s", path,
                             strerror(errno));
        free_recorder(r);
        return result;
    }
    put_header(r);
    result = ts_rec_flush(r);
    if (result != TS_OK) {
        fclose(r->file);
        free_recorder(r);
        return result;
    }
    *out = r;
    return TS_OK;
}

/* A recorder call may go on: not NULL, not stopped by a failed write. */
ts_result ts_rec_check_usable(const ts_recorder *r, const char *function)
{
    if (r == NULL) {
        return ts_rec_fail(TS_ERROR_NULL_POINTER, "%s: recorder is NULL", function);
    }
    if (r->failed) {
        return ts_rec_fail(TS_ERROR_INVALID_OPERATION, "%s: the recorder stopped after a failed write or a "
                                                       "failed frame; the file keeps what came before",
                           function);
    }
    return TS_OK;
}

static ts_result check_bodies(const ts_recorder *r, const ts_body_id *bodies, int count)
{
    ts_result result = ts_rec_check_usable(r, "ts_recorder_add_bodies");
    if (result != TS_OK) {
        return result;
    }
    if (count < 0) {
        return ts_rec_fail(TS_ERROR_OUT_OF_RANGE, "ts_recorder_add_bodies: count must be >= 0, got %d", count);
    }
    if (bodies == NULL && count > 0) {
        return ts_rec_fail(TS_ERROR_NULL_POINTER, "ts_recorder_add_bodies: bodies is NULL");
    }
    for (int i = 0; i < count; ++i) {
        if (!ts_body_is_valid(bodies[i])) {
            return ts_rec_fail(TS_ERROR_STALE_ID, "ts_recorder_add_bodies: bodies[%d] is null, stale or destroyed", i);
        }
        ts_world_id world = ts_body_get_world(bodies[i]);
        if (world.index1 != r->world.index1 || world.generation != r->world.generation) {
            return ts_rec_fail(TS_ERROR_WRONG_WORLD, "ts_recorder_add_bodies: bodies[%d] belongs to another world", i);
        }
    }
    return TS_OK;
}

ts_result ts_recorder_add_bodies(ts_recorder *r, const ts_body_id *bodies, int count)
{
    ts_result result = check_bodies(r, bodies, count);
    if (result != TS_OK) {
        return result;
    }
    if (!ts_rec_put_bodies(r, bodies, count)) {
        r->buffer.size = 0;
        r->failed = true;
        return ts_rec_fail(TS_ERROR_OUT_OF_MEMORY, "ts_recorder_add_bodies: out of memory");
    }
    return ts_rec_flush(r);
}

int ts_recorder_frame_count(const ts_recorder *r)
{
    return r != NULL ? r->frame_count : 0;
}

ts_result ts_recorder_close(ts_recorder *r)
{
    if (r == NULL) {
        return TS_OK;
    }
    ts_result result = TS_OK;
    if (!r->failed && ts_rec_buffer_reserve(&r->buffer, 12)) {
        size_t chunk = ts_rec_begin_chunk(&r->buffer, TS_REC_CHUNK_END);
        ts_rec_put_u32(&r->buffer, (uint32_t)r->frame_count);
        ts_rec_end_chunk(&r->buffer, chunk);
        result = ts_rec_flush(r);
    }
    if (fclose(r->file) != 0 && result == TS_OK) {
        result = ts_rec_fail(TS_ERROR_INVALID_OPERATION, "ts_recorder_close: closing the file failed: %s",
                             strerror(errno));
    }
    free_recorder(r);
    return result;
}

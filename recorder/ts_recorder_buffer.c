/* Growable arrays and the chunk buffer of the recorder: a chunk is built in
 * memory (type, size, payload), then written and flushed in one go, so that
 * the file only ever ends inside a chunk when the program died mid-write. */
#include "ts_recorder_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool ts_rec_reserve(void **array, int *capacity, int count, size_t item_size)
{
    if (count <= *capacity) {
        return true;
    }
    int grown = *capacity > 0 ? *capacity : 64;
    while (grown < count) {
        grown = grown > (1 << 29) ? count : grown * 2;
    }
    void *bigger = realloc(*array, (size_t)grown * item_size);
    if (bigger == NULL) {
        return false;
    }
    *array = bigger;
    *capacity = grown;
    return true;
}

bool ts_rec_buffer_reserve(ts_rec_buffer *b, size_t extra)
{
    if (b->size + extra <= b->capacity) {
        return true;
    }
    size_t grown = b->capacity > 0 ? b->capacity : 4096;
    while (grown < b->size + extra) {
        grown *= 2;
    }
    unsigned char *bigger = realloc(b->data, grown);
    if (bigger == NULL) {
        return false;
    }
    b->data = bigger;
    b->capacity = grown;
    return true;
}

/* The put functions assume room was reserved; every value is written in the
 * host's byte order, which ts_recorder_create checked is little-endian. */
void ts_rec_put_bytes(ts_rec_buffer *b, const void *bytes, size_t size)
{
    if (size > 0) {
        memcpy(b->data + b->size, bytes, size);
        b->size += size;
    }
}

void ts_rec_put_u32(ts_rec_buffer *b, uint32_t v)
{
    ts_rec_put_bytes(b, &v, 4);
}

void ts_rec_put_i32(ts_rec_buffer *b, int32_t v)
{
    ts_rec_put_bytes(b, &v, 4);
}

void ts_rec_put_f32(ts_rec_buffer *b, float v)
{
    ts_rec_put_bytes(b, &v, 4);
}

size_t ts_rec_begin_chunk(ts_rec_buffer *b, uint32_t type)
{
    ts_rec_put_u32(b, type);
    size_t start = b->size;
    ts_rec_put_u32(b, 0); /* the payload's size, filled in by ts_rec_end_chunk */
    return start;
}

void ts_rec_end_chunk(ts_rec_buffer *b, size_t start)
{
    uint32_t size = (uint32_t)(b->size - start - 4);
    memcpy(b->data + start, &size, 4);
}

ts_result ts_rec_flush(ts_recorder *r)
{
    size_t size = r->buffer.size;
    r->buffer.size = 0;
    if (fwrite(r->buffer.data, 1, size, r->file) != size || fflush(r->file) != 0) {
        r->failed = true;
        return ts_rec_fail(TS_ERROR_INVALID_OPERATION, "ts_recorder: writing the recording failed (%s); the file "
                                                       "keeps the frames written before", strerror(errno));
    }
    return TS_OK;
}

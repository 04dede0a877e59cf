/* The byte layer of world snapshots (see snapshot_io.h). */
#include "base/snapshot_io.h"

#include <stdarg.h>
#include <stdio.h>

/* The checksum: Debian's xxHash, compiled in (no library to link). */
#define XXH_INLINE_ALL
#include <xxhash.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TS_HOST_LITTLE_ENDIAN 1
#else
#define TS_HOST_LITTLE_ENDIAN 0
#endif

void ts_put_f32_array(ts_writer *w, const float *values, size_t count)
{
#if TS_HOST_LITTLE_ENDIAN
    ts_put_bytes(w, values, count * sizeof(float));
#else
    for (size_t i = 0; i < count; ++i) {
        ts_put_f32(w, values[i]);
    }
#endif
}

size_t ts_put_section_begin(ts_writer *w, uint32_t tag)
{
    ts_put_u32(w, tag);
    size_t mark = w->size;
    ts_put_u64(w, 0); /* the length, patched by ts_put_section_end */
    return mark;
}

void ts_put_section_end(ts_writer *w, size_t mark)
{
    uint64_t length = w->size - (mark + 8);
    if (w->data != NULL && mark + 8 <= w->capacity) {
        for (int k = 0; k < 8; ++k) {
            w->data[mark + (size_t)k] = (uint8_t)(length >> (8 * k));
        }
    }
}

bool ts_reader_fail(ts_reader *r, const char *format, ...)
{
    if (!r->failed) {
        r->failed = true;
        int n = snprintf(r->message, sizeof r->message, "section %s: ", r->section);
        if (n < 0 || n >= (int)sizeof r->message) {
            n = 0;
        }
        va_list args;
        va_start(args, format);
        vsnprintf(r->message + n, sizeof r->message - (size_t)n, format, args);
        va_end(args);
    }
    return false;
}

const uint8_t *ts_get_bytes_missing(ts_reader *r, size_t n)
{
    if (!r->failed) {
        ts_reader_fail(r, "truncated (%zu bytes wanted at offset %zu of %zu)", n, r->at, r->size);
    }
    return NULL;
}

uint64_t ts_get_varint_long(ts_reader *r)
{
    uint64_t v = 0;
    if (!r->failed && r->size - r->at >= 10) { /* all ten bytes there: no check per byte */
        const uint8_t *b = r->data + r->at;
        for (int k = 0; k < 10; ++k) {
            v |= (uint64_t)(b[k] & 0x7Fu) << (7 * k);
            if ((b[k] & 0x80u) == 0) {
                r->at += (size_t)k + 1;
                return v;
            }
        }
        r->at += 10;
        ts_reader_fail(r, "a varint longer than 10 bytes at offset %zu", r->at);
        return 0;
    }
    for (int shift = 0; shift < 64; shift += 7) {
        const uint8_t *b = ts_get_bytes(r, 1);
        if (b == NULL) {
            return 0;
        }
        v |= (uint64_t)(*b & 0x7Fu) << shift;
        if ((*b & 0x80u) == 0) {
            return v;
        }
    }
    ts_reader_fail(r, "a varint longer than 10 bytes at offset %zu", r->at);
    return 0;
}

void ts_get_f32_array(ts_reader *r, float *values, size_t count)
{
    const uint8_t *b = ts_get_bytes(r, count * sizeof(float));
    if (b == NULL) {
        memset(values, 0, count * sizeof(float));
        return;
    }
#if TS_HOST_LITTLE_ENDIAN
    memcpy(values, b, count * sizeof(float));
#else
    for (size_t i = 0; i < count; ++i) {
        uint32_t bits = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
                        (uint32_t)b[4 * i + 3] << 24;
        memcpy(values + i, &bits, 4);
    }
#endif
}

int32_t ts_get_count(ts_reader *r, int32_t limit, size_t min_bytes, const char *what)
{
    uint64_t v = ts_get_varint(r);
    if (r->failed) {
        return -1;
    }
    if (v > (uint64_t)limit) {
        ts_reader_fail(r, "%s is %llu (at most %d)", what, (unsigned long long)v, (int)limit);
        return -1;
    }
    if (min_bytes > 0 && v > (r->size - r->at) / min_bytes) {
        ts_reader_fail(r, "%s is %llu, more than the %zu bytes left can hold", what, (unsigned long long)v,
                       r->size - r->at);
        return -1;
    }
    return (int32_t)v;
}

/* ts_get_index once its varint is read. */
int32_t ts_get_index_of(ts_reader *r, uint64_t raw, int32_t low, int32_t high, const char *what)
{
    if (r->failed || (low >= 0 && raw > INT32_MAX)) {
        if (!r->failed) {
            ts_reader_fail(r, "%s is %llu (must be in %d..%d)", what, (unsigned long long)raw, (int)low, (int)high - 1);
        }
        return low - 1;
    }
    int64_t v = low >= 0 ? (int64_t)raw : (int64_t)(raw >> 1) ^ -(int64_t)(raw & 1u);
    if (v < low || v >= high) {
        ts_reader_fail(r, "%s is %lld (must be in %d..%d)", what, (long long)v, (int)low, (int)high - 1);
        return low - 1;
    }
    return (int32_t)v;
}

bool ts_get_bool(ts_reader *r, const char *what)
{
    uint8_t v = ts_get_u8(r);
    if (v > 1) {
        ts_reader_fail(r, "%s is %u (must be 0 or 1)", what, (unsigned)v);
        return false;
    }
    return v == 1;
}

bool ts_get_section(ts_reader *r, uint32_t *tag, ts_reader *payload)
{
    if (r->failed || r->at == r->size) {
        return false;
    }
    *tag = ts_get_u32(r);
    uint64_t length = ts_get_u64(r);
    if (r->failed) {
        return false;
    }
    if (length > r->size - r->at) {
        ts_reader_fail(r, "a section's length (%llu) runs past the end (%zu bytes left)", (unsigned long long)length,
                       r->size - r->at);
        return false;
    }
    *payload = ts_reader_of(r->data + r->at, (size_t)length);
    payload->version = r->version;
    r->at += (size_t)length;
    return true;
}

bool ts_reader_finish(ts_reader *payload, ts_reader *parent)
{
    if (!payload->failed && payload->at != payload->size) {
        ts_reader_fail(payload, "%zu bytes left over after its last field", payload->size - payload->at);
    }
    if (payload->failed && !parent->failed) {
        parent->failed = true;
        memcpy(parent->message, payload->message, sizeof parent->message);
    }
    return !payload->failed;
}

uint64_t ts_snapshot_checksum(const void *data, size_t size) { return XXH3_64bits(data, size); }

/* The byte layer of world snapshots (docs/snapshots.md): a writer and a
 * reader of little-endian values, LEB128 varints and tagged sections, and
 * the checksum. Every layer writes its part of a world through these; the
 * step orders the sections (step/world_snapshot.c), the API adds the header
 * (api/snapshot.c).
 *
 * Endianness: every value is written byte by byte, least significant first,
 * whatever the host; floats and doubles as their IEEE-754 bits. So a file
 * is the same bytes on x86-64 and aarch64.
 *
 * The writer never fails on its own: with no buffer it only counts (the
 * size query), and past its capacity it keeps counting and flags overflow.
 * The reader fails softly: the first problem (a read past the end, an
 * overlong varint, a value a caller refuses) records one message, and every
 * later read returns 0, so a parser reads on and checks `failed` where it
 * must (before it allocates or indexes with what it read). */
#ifndef TS_SNAPSHOT_IO_H
#define TS_SNAPSHOT_IO_H

#include "base/core.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct ts_writer {
    uint8_t *data; /* NULL: count only */
    size_t capacity;
    size_t size; /* bytes written (or that would have been) */
} ts_writer;

/* The reader's message: what was wrong, where. */
#define TS_READER_MESSAGE 200

typedef struct ts_reader {
    const uint8_t *data;
    size_t size;
    size_t at;
    bool failed;
    const char *section; /* the section being read, for messages */
    char message[TS_READER_MESSAGE];
    uint32_t version; /* the file's format version: what an older one lacks is not read */
} ts_reader;

/* ---- writing ---- */

static inline void ts_put_bytes(ts_writer *w, const void *bytes, size_t n)
{
    if (w->data != NULL && w->size + n <= w->capacity) {
        memcpy(w->data + w->size, bytes, n);
    }
    w->size += n;
}

static inline void ts_put_u8(ts_writer *w, uint8_t v) { ts_put_bytes(w, &v, 1); }

static inline void ts_put_u32(ts_writer *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    ts_put_bytes(w, b, 4);
}

static inline void ts_put_u64(ts_writer *w, uint64_t v)
{
    ts_put_u32(w, (uint32_t)v);
    ts_put_u32(w, (uint32_t)(v >> 32));
}

static inline void ts_put_f32(ts_writer *w, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    ts_put_u32(w, bits);
}

static inline void ts_put_f64(ts_writer *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    ts_put_u64(w, bits);
}

/* Unsigned LEB128: 7 bits a byte, low first (1 byte below 128). */
static inline void ts_put_varint(ts_writer *w, uint64_t v)
{
    uint8_t b[10];
    int n = 0;
    while (v >= 0x80u) {
        b[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    b[n++] = (uint8_t)v;
    ts_put_bytes(w, b, (size_t)n);
}

/* A signed value, zigzag-coded (-1 -> 1, 1 -> 2): indices that may be -1. */
static inline void ts_put_svarint(ts_writer *w, int64_t v)
{
    ts_put_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* Floats in bulk (little-endian bits). */
void ts_put_f32_array(ts_writer *w, const float *values, size_t count);

/* A section: tag (four characters) and payload length (u64), then the
 * payload; begin returns the mark that end patches the length at. */
size_t ts_put_section_begin(ts_writer *w, uint32_t tag);
void ts_put_section_end(ts_writer *w, size_t mark);

/* Four characters as a tag: TS_TAG('B','O','D','Y'). */
#define TS_TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* ---- reading ---- */

static inline ts_reader ts_reader_of(const void *data, size_t size)
{
    ts_reader r = {(const uint8_t *)data, size, 0, false, "header", {0}, 0};
    return r;
}

/* Records the first problem ("section NAME: message"); always false. */
bool ts_reader_fail(ts_reader *r, const char *format, ...) TS_PRINTF_LIKE(2, 3);

static inline size_t ts_reader_left(const ts_reader *r) { return r->failed ? 0 : r->size - r->at; }

/* The failing path of ts_get_bytes: NULL, after failing unless failed. */
const uint8_t *ts_get_bytes_missing(ts_reader *r, size_t n);

/* n bytes, or NULL (after failing) when fewer are left. Inline: a 10,000-
 * body snapshot reads about a million values, and a call per value was a
 * third of the load's time. */
static inline const uint8_t *ts_get_bytes(ts_reader *r, size_t n)
{
    if (r->failed || n > r->size - r->at) {
        return ts_get_bytes_missing(r, n);
    }
    const uint8_t *b = r->data + r->at;
    r->at += n;
    return b;
}

static inline uint8_t ts_get_u8(ts_reader *r)
{
    const uint8_t *b = ts_get_bytes(r, 1);
    return b != NULL ? b[0] : 0;
}

static inline uint32_t ts_get_u32(ts_reader *r)
{
    const uint8_t *b = ts_get_bytes(r, 4);
    return b != NULL ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24 : 0;
}

static inline uint64_t ts_get_u64(ts_reader *r)
{
    uint64_t lo = ts_get_u32(r);
    return lo | (uint64_t)ts_get_u32(r) << 32;
}

static inline float ts_get_f32(ts_reader *r)
{
    uint32_t bits = ts_get_u32(r);
    float v;
    memcpy(&v, &bits, 4);
    return v;
}

static inline double ts_get_f64(ts_reader *r)
{
    uint64_t bits = ts_get_u64(r);
    double v;
    memcpy(&v, &bits, 8);
    return v;
}

/* The general path of ts_get_varint: several bytes, or failing. */
uint64_t ts_get_varint_long(ts_reader *r);

/* An unsigned LEB128 varint (at most 10 bytes). Most are one byte (small
 * counts, keys, masks): that case inline. */
static inline uint64_t ts_get_varint(ts_reader *r)
{
    if (!r->failed && r->at < r->size && r->data[r->at] < 0x80u) {
        return r->data[r->at++];
    }
    return ts_get_varint_long(r);
}

static inline int64_t ts_get_svarint(ts_reader *r)
{
    uint64_t v = ts_get_varint(r);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1u);
}

void ts_get_f32_array(ts_reader *r, float *values, size_t count);

/* A count in [0, limit], refusing one that the bytes left could not hold
 * at min_bytes each (so that an absurd count is refused before anything is
 * allocated for it); -1 after failing. */
int32_t ts_get_count(ts_reader *r, int32_t limit, size_t min_bytes, const char *what);

/* ts_get_index once the varint `raw` is read: the general case. */
int32_t ts_get_index_of(ts_reader *r, uint64_t raw, int32_t low, int32_t high, const char *what);

/* An index in [low, high): a varint, or with low -1 ("none" allowed) a
 * zigzag svarint; low - 1 after failing, which the caller never uses (it
 * checks r->failed). */
static inline int32_t ts_get_index(ts_reader *r, int32_t low, int32_t high, const char *what)
{
    uint64_t raw = ts_get_varint(r);
    if (low == 0 && !r->failed && raw < (uint64_t)(high > 0 ? high : 0)) {
        return (int32_t)raw; /* the common case inline; the rest (and every failure) below */
    }
    return ts_get_index_of(r, raw, low, high, what);
}

/* A flag byte that must be 0 or 1. */
bool ts_get_bool(ts_reader *r, const char *what);

/* The next section: its tag and a reader over its payload; false at the
 * end of the data or after failing. */
bool ts_get_section(ts_reader *r, uint32_t *tag, ts_reader *payload);

/* Fails unless the payload was read to its end exactly. */
bool ts_reader_finish(ts_reader *payload, ts_reader *parent);

/* ---- checksum ---- */

/* XXH3 64-bit (Debian's libxxhash-dev, header only): the file's checksum. */
uint64_t ts_snapshot_checksum(const void *data, size_t size);

#endif

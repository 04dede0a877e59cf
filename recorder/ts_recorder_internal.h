/* The recorder's own state and its byte-buffer helpers, shared by the files
 * of recorder/ (not installed). The layout written is docs/recording.md. */
#ifndef TS_RECORDER_INTERNAL_H
#define TS_RECORDER_INTERNAL_H

#include "tessera/recorder.h"

#include <stdio.h>

/* Chunk types: four ASCII characters, read as a little-endian u32. */
#define TS_REC_TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define TS_REC_CHUNK_BODY TS_REC_TAG('B', 'O', 'D', 'Y')
#define TS_REC_CHUNK_FRAME TS_REC_TAG('F', 'R', 'A', 'M')
#define TS_REC_CHUNK_END TS_REC_TAG('E', 'N', 'D', ' ')

#define TS_REC_MAGIC "TSRECORD"
#define TS_REC_HEADER_SIZE 32u

/* FRAM flags. */
#define TS_REC_FRAME_SAME_BODIES 1u /* the awake bodies are those of the previous frame, in its order */

/* BODY flags. */
#define TS_REC_BODY_AWAKE 1u

/* Words of per-frame statistics this version writes (docs/recording.md). */
#define TS_REC_STAT_COUNT (11 + TS_COLOR_COUNT)

/* A growable byte buffer: chunks are built here, then written at once. */
typedef struct ts_rec_buffer {
    unsigned char *data;
    size_t size;
    size_t capacity;
} ts_rec_buffer;

/* A body that left the awake range: its slot and last pose (32 bytes, as written). */
typedef struct ts_rec_asleep {
    uint32_t slot;
    ts_transform pose;
} ts_rec_asleep;
_Static_assert(sizeof(ts_rec_asleep) == 32, "an asleep entry is written as it is");

/* What the recorder remembers of a body, indexed by its id's slot (index1 - 1). */
typedef struct ts_rec_body {
    uint32_t generation;
    /* == ts_recorder.epoch: in prev_ids (the last frame's awake bodies, or
     * added awake since) and, while a frame is recorded, awake in it. */
    uint32_t awake_epoch;
    int32_t island;       /* the island id last written */
    uint8_t known;        /* recorded by a BODY chunk and not removed since */
} ts_rec_body;

struct ts_recorder {
    ts_world_id world;
    FILE *file;
    ts_recorder_def def;
    int frame_count;
    uint32_t epoch;      /* counts the changes of the awake list (see ts_rec_body.awake_epoch) */
    bool islands_dirty;  /* bodies were added since the last frame: ask every island again */
    int last_step;       /* the world's step count, island count and awake island count */
    int last_islands;    /* at the last frame */
    int last_awake_islands;
    bool failed; /* a write failed: the file holds a readable prefix, nothing more is written */

    ts_rec_body *bodies; /* by slot */
    int body_capacity;

    /* This frame's awake bodies, and the last frame's (its first
     * prev_frame_count entries) followed by bodies added since. */
    ts_body_id *ids;
    ts_transform *transforms;
    int id_capacity, transform_capacity;
    ts_body_id *prev_ids;
    int prev_count, prev_frame_count, prev_capacity;

    /* Scratch lists of one frame. */
    ts_body_id *new_bodies;
    int new_count, new_capacity;
    uint32_t *island_changes; /* pairs: slot, island */
    int change_count, change_capacity;
    ts_rec_asleep *asleep;
    int asleep_count, asleep_capacity;
    uint32_t *removed;
    int removed_count, removed_capacity;
    ts_shape_id *shapes;
    int shape_capacity;
    ts_vec3 *outline; /* a hull's vertices or a mesh's triangle corners */
    int outline_capacity;
    ts_contact_data *contacts;
    int contact_capacity;
    float *points; /* 6 floats a contact point: position, normal */
    int point_count, point_capacity;

    ts_rec_buffer buffer;
};

/* ---- errors (ts_recorder.c) ---- */
ts_result ts_rec_fail(ts_result result, const char *format, ...);
/* TS_OK when a call may go on: r is not NULL and no earlier write failed. */
ts_result ts_rec_check_usable(const ts_recorder *r, const char *function);

/* ---- growth (ts_recorder_buffer.c) ---- */

/* Makes *array hold at least count items of item_size bytes (doubling). */
bool ts_rec_reserve(void **array, int *capacity, int count, size_t item_size);
#define TS_REC_RESERVE(array, capacity, count) ts_rec_reserve((void **)&(array), &(capacity), (count), sizeof(*(array)))

bool ts_rec_buffer_reserve(ts_rec_buffer *b, size_t extra);
void ts_rec_put_u32(ts_rec_buffer *b, uint32_t v);
void ts_rec_put_i32(ts_rec_buffer *b, int32_t v);
void ts_rec_put_f32(ts_rec_buffer *b, float v);
void ts_rec_put_bytes(ts_rec_buffer *b, const void *bytes, size_t size);
/* Starts a chunk; returns where its size goes, for ts_rec_end_chunk. */
size_t ts_rec_begin_chunk(ts_rec_buffer *b, uint32_t type);
void ts_rec_end_chunk(ts_rec_buffer *b, size_t start);

/* Writes the buffer to the file, flushes it, and empties the buffer. */
ts_result ts_rec_flush(ts_recorder *r);

/* ---- bodies (ts_recorder_bodies.c) ---- */

/* Grows the body table to hold slot. */
bool ts_rec_track_slot(ts_recorder *r, int slot);
/* Appends a BODY chunk for bodies (valid ids) to the buffer; false when memory ran out. */
bool ts_rec_put_bodies(ts_recorder *r, const ts_body_id *bodies, int count);

static inline int ts_rec_slot(ts_body_id id)
{
    return id.index1 - 1;
}

#endif

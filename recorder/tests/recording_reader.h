/* A small reader of .tsr recordings for the recorder's tests: it walks the
 * chunks of docs/recording.md and replays them onto a per-body state (pose,
 * awake, island), as the viewer does, so a test can compare that state with
 * the world's at every frame. Written from the format document, not from the
 * recorder's code. Test-only: fixed limits, no error recovery. */
#ifndef RECORDING_READER_H
#define RECORDING_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define READER_MAX_BODIES 64
#define READER_MAX_POINTS 256

typedef struct reader_body {
    bool known;
    uint32_t type;
    uint32_t shape_count;
    uint32_t first_shape_type;
    float first_shape_size[3];
    uint32_t outline_points;    /* of every hull, mesh and heightfield shape */
    float first_outline_point[3]; /* the first shape's first one */
    float pose[7];
    bool awake;
    int32_t island;
} reader_body;

typedef enum reader_status {
    READER_CHUNK = 1,     /* a chunk was read (type in last_type) */
    READER_END = 0,       /* the file ended after a whole chunk */
    READER_TRUNCATED = -1 /* the last chunk runs past the end of the file */
} reader_status;

typedef struct recording_reader {
    unsigned char *data;
    size_t size, at;
    /* header */
    uint32_t version;
    float dt;
    uint32_t flags;
    /* the last chunk */
    uint32_t last_type;
    /* counts over the chunks read */
    int frames, body_chunks, end_frames; /* end_frames: the END chunk's count, -1 before it */
    /* the last frame */
    uint32_t frame_index, step, frame_flags;
    float step_ms;
    int32_t stats[64];
    uint32_t stat_count;
    uint32_t awake_count, island_changes, asleep_count, removed_count, point_count;
    float points[READER_MAX_POINTS][6];
    /* the state after every chunk read */
    reader_body bodies[READER_MAX_BODIES];
    uint32_t awake_list[READER_MAX_BODIES];
} recording_reader;

/* Reads the whole file and its header. Returns false when the file cannot
 * be read or does not start with a version-2 header. */
bool reader_open(recording_reader *r, const char *path);
reader_status reader_next(recording_reader *r);
void reader_close(recording_reader *r);

#endif

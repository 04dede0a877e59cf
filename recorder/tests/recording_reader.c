/* The test reader of .tsr recordings (recording_reader.h). */
#include "recording_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t u32_at(const recording_reader *r, size_t at)
{
    uint32_t v;
    memcpy(&v, r->data + at, 4);
    return v;
}

static float f32_at(const recording_reader *r, size_t at)
{
    float v;
    memcpy(&v, r->data + at, 4);
    return v;
}

bool reader_open(recording_reader *r, const char *path)
{
    memset(r, 0, sizeof(*r));
    r->end_frames = -1;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return false;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    r->data = malloc(size > 0 ? (size_t)size : 1);
    r->size = fread(r->data, 1, (size_t)size, f);
    fclose(f);
    if (r->size < 32 || memcmp(r->data, "TSRECORD", 8) != 0) {
        return false;
    }
    r->version = u32_at(r, 8);
    r->at = u32_at(r, 12);
    r->dt = f32_at(r, 16);
    r->flags = u32_at(r, 20);
    return r->version == 2;
}

void reader_close(recording_reader *r)
{
    free(r->data);
    r->data = NULL;
}

static void read_bodies(recording_reader *r, size_t at)
{
    uint32_t count = u32_at(r, at);
    at += 4;
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t slot = u32_at(r, at);
        uint32_t kind = u32_at(r, at + 4);
        reader_body *b = &r->bodies[slot];
        b->known = true;
        b->type = kind & 0xff;
        b->awake = (kind >> 8 & 1) != 0;
        b->island = (int32_t)u32_at(r, at + 8);
        b->shape_count = u32_at(r, at + 12);
        for (int k = 0; k < 7; ++k) {
            b->pose[k] = f32_at(r, at + 16 + 4 * (size_t)k);
        }
        at += 44;
        b->outline_points = 0;
        for (uint32_t s = 0; s < b->shape_count; ++s) {
            uint32_t type = u32_at(r, at);
            if (s == 0) {
                b->first_shape_type = type;
                for (int k = 0; k < 3; ++k) {
                    b->first_shape_size[k] = f32_at(r, at + 32 + 4 * (size_t)k);
                }
            }
            at += 44;
            if (type >= 3 && type <= 5) { /* hull, mesh, heightfield: the points that draw it */
                uint32_t points = u32_at(r, at);
                if (s == 0 && points > 0) {
                    for (int k = 0; k < 3; ++k) {
                        b->first_outline_point[k] = f32_at(r, at + 4 + 4 * (size_t)k);
                    }
                }
                b->outline_points += points;
                at += 4 + 12 * (size_t)points;
            }
        }
    }
}

static size_t read_awake(recording_reader *r, size_t at)
{
    uint32_t count = u32_at(r, at);
    at += 4;
    if ((r->frame_flags & 1) == 0) {
        for (uint32_t i = 0; i < count; ++i, at += 4) {
            r->awake_list[i] = u32_at(r, at);
        }
    }
    r->awake_count = count;
    for (uint32_t i = 0; i < count; ++i, at += 28) {
        reader_body *b = &r->bodies[r->awake_list[i]];
        for (int k = 0; k < 7; ++k) {
            b->pose[k] = f32_at(r, at + 4 * (size_t)k);
        }
        b->awake = true;
    }
    return at;
}

static size_t read_changes(recording_reader *r, size_t at)
{
    r->island_changes = u32_at(r, at);
    at += 4;
    for (uint32_t i = 0; i < r->island_changes; ++i, at += 8) {
        r->bodies[u32_at(r, at)].island = (int32_t)u32_at(r, at + 4);
    }
    r->asleep_count = u32_at(r, at);
    at += 4;
    for (uint32_t i = 0; i < r->asleep_count; ++i, at += 32) {
        reader_body *b = &r->bodies[u32_at(r, at)];
        b->awake = false;
        for (int k = 0; k < 7; ++k) {
            b->pose[k] = f32_at(r, at + 4 + 4 * (size_t)k);
        }
    }
    r->removed_count = u32_at(r, at);
    at += 4;
    for (uint32_t i = 0; i < r->removed_count; ++i, at += 4) {
        r->bodies[u32_at(r, at)].known = false;
    }
    return at;
}

static void read_frame(recording_reader *r, size_t at)
{
    r->frame_index = u32_at(r, at);
    r->step = u32_at(r, at + 4);
    r->frame_flags = u32_at(r, at + 8);
    r->stat_count = u32_at(r, at + 12);
    r->step_ms = f32_at(r, at + 16);
    for (uint32_t i = 1; i < r->stat_count && i < 64; ++i) {
        r->stats[i] = (int32_t)u32_at(r, at + 16 + 4 * (size_t)i);
    }
    at = read_awake(r, at + 16 + 4 * (size_t)r->stat_count);
    at = read_changes(r, at);
    r->point_count = u32_at(r, at);
    at += 4;
    for (uint32_t i = 0; i < r->point_count && i < READER_MAX_POINTS; ++i) {
        for (int k = 0; k < 6; ++k) {
            r->points[i][k] = f32_at(r, at + 24 * (size_t)i + 4 * (size_t)k);
        }
    }
    r->frames += 1;
}

reader_status reader_next(recording_reader *r)
{
    if (r->at == r->size) {
        return READER_END;
    }
    if (r->size - r->at < 8 || r->size - r->at - 8 < u32_at(r, r->at + 4)) {
        return READER_TRUNCATED;
    }
    r->last_type = u32_at(r, r->at);
    size_t payload = r->at + 8;
    r->at = payload + u32_at(r, r->at + 4);
    if (memcmp(&r->last_type, "BODY", 4) == 0) {
        read_bodies(r, payload);
        r->body_chunks += 1;
    } else if (memcmp(&r->last_type, "FRAM", 4) == 0) {
        read_frame(r, payload);
    } else if (memcmp(&r->last_type, "END ", 4) == 0) {
        r->end_frames = (int)u32_at(r, payload);
    }
    return READER_CHUNK;
}

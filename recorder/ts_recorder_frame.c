/* ts_recorder_frame: one FRAM chunk (docs/recording.md). Reads the awake
 * range in one bulk call, then compares with what the last frame wrote:
 * islands that changed, bodies that left the awake range (asleep, or
 * destroyed when their id went stale), bodies never seen (a BODY chunk
 * first). Sleeping bodies cost nothing per frame; only the awake ones are
 * written.
 *
 * The common frame, the same awake bodies as the last one, skips the
 * per-body work: nobody left or arrived, and when one step passed with no
 * contact beginning and the island counts unchanged, no island id changed
 * either (ids change when islands merge, which takes a contact or a joint
 * that lowers the count unless an island is made or split at once, which
 * adds a body or puts one to sleep, so the awake list would differ). */
#include "ts_recorder_internal.h"

#include <string.h>

_Static_assert(sizeof(ts_transform) == 7 * sizeof(float), "a transform is written as 7 packed floats");

/* The awake range into r->ids and r->transforms; returns its length, or -1. */
static int read_awake(ts_recorder *r, int expected)
{
    int count = expected > 0 ? expected : 1;
    do {
        if (!TS_REC_RESERVE(r->ids, r->id_capacity, count) ||
            !TS_REC_RESERVE(r->transforms, r->transform_capacity, r->id_capacity) ||
            ts_world_get_awake_transforms(r->world, r->ids, r->transforms, r->id_capacity, &count) != TS_OK) {
            return -1;
        }
    } while (count > r->id_capacity);
    return count;
}

static bool push_pair(ts_recorder *r, uint32_t slot, int32_t island)
{
    if (!TS_REC_RESERVE(r->island_changes, r->change_capacity, 2 * r->change_count + 2)) {
        return false;
    }
    r->island_changes[2 * r->change_count] = slot;
    r->island_changes[2 * r->change_count + 1] = (uint32_t)island;
    r->change_count += 1;
    return true;
}

static bool push_slot(uint32_t **list, int *count, int *capacity, uint32_t slot)
{
    if (!ts_rec_reserve((void **)list, capacity, *count + 1, sizeof(uint32_t))) {
        return false;
    }
    (*list)[(*count)++] = slot;
    return true;
}

/* Bodies never seen, or whose slot now holds another body: a BODY chunk. */
static bool add_new_bodies(ts_recorder *r, int count)
{
    r->new_count = 0;
    for (int i = 0; i < count; ++i) {
        int slot = ts_rec_slot(r->ids[i]);
        if (slot >= r->body_capacity && !ts_rec_track_slot(r, slot)) {
            return false;
        }
        const ts_rec_body *b = &r->bodies[slot];
        if (!b->known || b->generation != r->ids[i].generation) {
            if (!TS_REC_RESERVE(r->new_bodies, r->new_capacity, r->new_count + 1)) {
                return false;
            }
            r->new_bodies[r->new_count++] = r->ids[i];
        }
    }
    return ts_rec_put_bodies(r, r->new_bodies, r->new_count);
}

/* Marks the bodies of this frame's (changed) awake list as awake in it. */
static void stamp_awake(ts_recorder *r, int count)
{
    r->epoch += 1;
    for (int i = 0; i < count; ++i) {
        r->bodies[ts_rec_slot(r->ids[i])].awake_epoch = r->epoch;
    }
}

/* Lists the island changes of the awake bodies. */
static bool read_islands(ts_recorder *r, int count)
{
    for (int i = 0; i < count; ++i) {
        ts_rec_body *b = &r->bodies[ts_rec_slot(r->ids[i])];
        int island = -1;
        ts_body_get_island(r->ids[i], &island);
        if (island != b->island && !push_pair(r, (uint32_t)ts_rec_slot(r->ids[i]), island)) {
            return false;
        }
        b->island = island;
    }
    return true;
}

/* The last frame's awake bodies that are not awake now: asleep (with their
 * island, which may have been split as they fell asleep), or destroyed. */
static bool find_left(ts_recorder *r)
{
    for (int i = 0; i < r->prev_count; ++i) {
        ts_body_id id = r->prev_ids[i];
        uint32_t slot = (uint32_t)ts_rec_slot(id);
        ts_rec_body *b = &r->bodies[slot];
        if (!b->known || b->generation != id.generation || b->awake_epoch == r->epoch) {
            continue; /* replaced by a newer body, or still awake */
        }
        int island = -1;
        if (ts_body_get_island(id, &island) != TS_OK) {
            b->known = 0;
            if (!push_slot(&r->removed, &r->removed_count, &r->removed_capacity, slot)) {
                return false;
            }
            continue;
        }
        /* It moved in the step that put it to sleep: its last pose goes with it. */
        if (!TS_REC_RESERVE(r->asleep, r->asleep_capacity, r->asleep_count + 1) ||
            (island != b->island && !push_pair(r, slot, island))) {
            return false;
        }
        ts_rec_asleep *out = &r->asleep[r->asleep_count++];
        out->slot = slot;
        ts_body_get_transform(id, &out->pose);
        b->island = island;
    }
    return true;
}

/* Is the body of this id awake in this frame? */
static bool awake_now(const ts_recorder *r, ts_body_id id)
{
    int slot = ts_rec_slot(id);
    return slot >= 0 && slot < r->body_capacity && r->bodies[slot].known &&
           r->bodies[slot].generation == id.generation && r->bodies[slot].awake_epoch == r->epoch;
}

static bool push_points(ts_recorder *r, const ts_contact_data *c)
{
    if (!ts_rec_reserve((void **)&r->points, &r->point_capacity, 6 * (r->point_count + c->point_count), sizeof(float))) {
        return false;
    }
    for (int p = 0; p < c->point_count; ++p) {
        float *out = r->points + 6 * r->point_count++;
        out[0] = c->points[p].point.x, out[1] = c->points[p].point.y, out[2] = c->points[p].point.z;
        out[3] = c->normal.x, out[4] = c->normal.y, out[5] = c->normal.z;
    }
    return true;
}

/* Each touching contact of an awake body once: from the body of shape_a,
 * or from that of shape_b when shape_a's body is not awake (static, asleep). */
static bool gather_contacts(ts_recorder *r, int count)
{
    r->point_count = 0;
    for (int i = 0; i < count && r->def.contacts; ++i) {
        int n = 0;
        ts_body_get_contacts(r->ids[i], r->contacts, r->contact_capacity, &n);
        if (n > r->contact_capacity) {
            if (!TS_REC_RESERVE(r->contacts, r->contact_capacity, n)) {
                return false;
            }
            ts_body_get_contacts(r->ids[i], r->contacts, r->contact_capacity, &n);
        }
        for (int k = 0; k < n; ++k) {
            ts_body_id a = TS_NULL_BODY_ID;
            ts_shape_get_body(r->contacts[k].shape_a, &a);
            bool mine = ts_body_id_equals(a, r->ids[i]) || !awake_now(r, a);
            if (mine && !push_points(r, &r->contacts[k])) {
                return false;
            }
        }
    }
    return true;
}

static void put_stats(ts_rec_buffer *b, const ts_world_counters *c, const ts_step_profile *p)
{
    int32_t words[] = {c->body_count,     c->awake_body_count, c->island_count,   c->awake_island_count,
                       c->contact_count,  c->touching_count,   c->point_count,    c->overflow_count,
                       c->thread_count,   c->simd_width};
    ts_rec_put_u32(b, TS_REC_STAT_COUNT);
    ts_rec_put_f32(b, (float)p->step);
    ts_rec_put_bytes(b, words, sizeof(words));
    ts_rec_put_bytes(b, c->color_counts, sizeof(c->color_counts));
}

static bool put_frame(ts_recorder *r, int count, bool same, const ts_world_counters *counters,
                      const ts_step_profile *profile)
{
    size_t size = 8 + 4 * (4 + TS_REC_STAT_COUNT + 5) + (size_t)count * (same ? 28 : 32) +
                  (size_t)r->change_count * 8 + (size_t)r->asleep_count * 32 + (size_t)r->removed_count * 4 +
                  (size_t)r->point_count * 24;
    if (!ts_rec_buffer_reserve(&r->buffer, size)) {
        return false;
    }
    ts_rec_buffer *b = &r->buffer;
    size_t chunk = ts_rec_begin_chunk(b, TS_REC_CHUNK_FRAME);
    ts_rec_put_u32(b, (uint32_t)r->frame_count);
    ts_rec_put_u32(b, (uint32_t)counters->step_count);
    ts_rec_put_u32(b, same ? TS_REC_FRAME_SAME_BODIES : 0u);
    put_stats(b, counters, profile);
    ts_rec_put_u32(b, (uint32_t)count);
    for (int i = 0; i < count && !same; ++i) {
        ts_rec_put_u32(b, (uint32_t)ts_rec_slot(r->ids[i]));
    }
    ts_rec_put_bytes(b, r->transforms, sizeof(ts_transform) * (size_t)count);
    ts_rec_put_u32(b, (uint32_t)r->change_count);
    ts_rec_put_bytes(b, r->island_changes, 8 * (size_t)r->change_count);
    ts_rec_put_u32(b, (uint32_t)r->asleep_count);
    ts_rec_put_bytes(b, r->asleep, sizeof(ts_rec_asleep) * (size_t)r->asleep_count);
    ts_rec_put_u32(b, (uint32_t)r->removed_count);
    ts_rec_put_bytes(b, r->removed, 4 * (size_t)r->removed_count);
    ts_rec_put_u32(b, (uint32_t)r->point_count);
    ts_rec_put_bytes(b, r->points, 24 * (size_t)r->point_count);
    ts_rec_end_chunk(b, chunk);
    return true;
}

/* This frame's awake bodies become the list the next frame compares with. */
static bool keep_awake_list(ts_recorder *r, int count)
{
    if (!TS_REC_RESERVE(r->prev_ids, r->prev_capacity, count)) {
        return false;
    }
    memcpy(r->prev_ids, r->ids, sizeof(ts_body_id) * (size_t)count);
    r->prev_count = r->prev_frame_count = count;
    return true;
}

/* The same awake bodies, in the same order, as the last frame, and none added since. */
static bool same_awake_list(const ts_recorder *r, int count)
{
    return r->frame_count > 0 && count == r->prev_frame_count && r->prev_count == r->prev_frame_count &&
           memcmp(r->ids, r->prev_ids, sizeof(ts_body_id) * (size_t)count) == 0;
}

/* No island id can have changed since the last frame (see the top of the file). */
static bool islands_unchanged(const ts_recorder *r, bool same, const ts_world_counters *c)
{
    ts_contact_events events = {0};
    return same && !r->islands_dirty && c->step_count == r->last_step + 1 && c->island_count == r->last_islands &&
           c->awake_island_count == r->last_awake_islands &&
           ts_world_get_contact_events(r->world, &events) == TS_OK && events.begin_count == 0;
}

/* Everything the frame writes besides the transforms, into the recorder's lists. */
static bool compare_with_last(ts_recorder *r, int count, bool same, const ts_world_counters *counters)
{
    r->change_count = r->asleep_count = r->removed_count = 0;
    if (!same) {
        if (!add_new_bodies(r, count)) {
            return false;
        }
        stamp_awake(r, count);
    }
    if (!islands_unchanged(r, same, counters) && !read_islands(r, count)) {
        return false;
    }
    return same || find_left(r);
}

ts_result ts_recorder_frame(ts_recorder *r)
{
    ts_result result = ts_rec_check_usable(r, "ts_recorder_frame");
    if (result != TS_OK) {
        return result;
    }
    ts_world_counters counters;
    ts_step_profile profile;
    if (ts_world_get_counters(r->world, &counters) != TS_OK || ts_world_get_profile(r->world, &profile) != TS_OK) {
        return ts_rec_fail(TS_ERROR_STALE_ID, "ts_recorder_frame: the recorder's world was destroyed");
    }
    int count = read_awake(r, counters.awake_body_count);
    bool same = count >= 0 && same_awake_list(r, count);
    bool ok = count >= 0 && compare_with_last(r, count, same, &counters) && gather_contacts(r, count) &&
              put_frame(r, count, same, &counters, &profile) && (same || keep_awake_list(r, count));
    if (!ok) {
        /* Out of memory half-way: the body table may be ahead of the file,
         * so the recorder stops; the file holds every earlier frame. */
        r->buffer.size = 0;
        r->failed = true;
        return ts_rec_fail(TS_ERROR_OUT_OF_MEMORY, "ts_recorder_frame: out of memory; the recorder stopped");
    }
    r->frame_count += 1;
    r->islands_dirty = false;
    r->last_step = counters.step_count;
    r->last_islands = counters.island_count;
    r->last_awake_islands = counters.awake_island_count;
    return ts_rec_flush(r);
}

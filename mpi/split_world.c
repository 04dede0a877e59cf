/* One rank's part of a split world (split_world.h). */
#include "split_world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool split_buffer_push(split_buffer *b, const split_record *r)
{
    if (b->count == b->capacity) {
        int capacity = b->capacity > 0 ? 2 * b->capacity : 256;
        split_record *grown = realloc(b->records, sizeof(split_record) * (size_t)capacity);
        if (grown == NULL) {
            return false;
        }
        b->records = grown;
        b->capacity = capacity;
    }
    b->records[b->count++] = *r;
    return true;
}

void split_buffer_free(split_buffer *b)
{
    free(b->records);
    memset(b, 0, sizeof(*b));
}

split_record split_world_read(const split_world *w, int gid)
{
    ts_transform t = {{0, 0, 0}, {0, 0, 0, 1}};
    ts_vec3 v = {0, 0, 0}, a = {0, 0, 0};
    ts_body_get_transform(w->local[gid], &t);
    ts_body_get_linear_velocity(w->local[gid], &v);
    ts_body_get_angular_velocity(w->local[gid], &a);
    return (split_record){gid, {t.p.x, t.p.y, t.p.z}, {t.q.x, t.q.y, t.q.z, t.q.w}, {v.x, v.y, v.z}, {a.x, a.y, a.z}};
}

/* Creates description body gid with the bench's builder (one body at a
 * time, so that with one rank the calls are exactly tessera-bench's). */
static bool create_body(split_world *w, int gid, const scene_body *body, char *error, size_t size)
{
    scene_desc one = *w->desc;
    one.bodies = (scene_body *)body;
    one.body_count = one.body_capacity = 1;
    one.joints = NULL;
    one.joint_count = one.joint_capacity = 0;
    char why[160];
    if (!tessera_build_scene(w->world, &one, &w->local[gid], why, sizeof(why))) {
        snprintf(error, size, "rank %d, body %d: %s", w->slab.rank, gid, why);
        return false;
    }
    return true;
}

static bool write_state(ts_body_id body, const split_record *r, char *error, size_t size)
{
    ts_result result = ts_body_set_transform(body, (ts_vec3){r->p[0], r->p[1], r->p[2]},
                                             (ts_quat){r->q[0], r->q[1], r->q[2], r->q[3]});
    if (result == TS_OK) {
        result = ts_body_set_linear_velocity(body, (ts_vec3){r->v[0], r->v[1], r->v[2]});
    }
    if (result == TS_OK) {
        result = ts_body_set_angular_velocity(body, (ts_vec3){r->w[0], r->w[1], r->w[2]});
    }
    if (result != TS_OK) {
        snprintf(error, size, "body %d: %s", r->gid, ts_last_error());
    }
    return result == TS_OK;
}

/* Kinematic proxies change type as they change role; dynamic ghosts do not. */
static bool set_role(split_world *w, int gid, split_role role, char *error, size_t size)
{
    w->role[gid] = (unsigned char)role;
    if (!w->kinematic_ghosts) {
        return true;
    }
    ts_body_type type = role == SPLIT_GHOST ? TS_BODY_KINEMATIC : TS_BODY_DYNAMIC;
    if (ts_body_set_type(w->local[gid], type) != TS_OK) {
        snprintf(error, size, "body %d: %s", gid, ts_last_error());
        return false;
    }
    return true;
}

static void drop(split_world *w, int gid)
{
    ts_destroy_body(w->local[gid]);
    w->local[gid] = TS_NULL_BODY_ID;
    w->role[gid] = SPLIT_ABSENT;
    w->counters.destroyed += 1;
}

bool split_world_create(split_world *w, const scene_desc *desc, const split_slab *slab,
                        const tessera_settings *settings, bool kinematic_ghosts, char *error, size_t size)
{
    memset(w, 0, sizeof(*w));
    w->desc = desc;
    w->slab = *slab;
    w->kinematic_ghosts = kinematic_ghosts;
    size_t n = (size_t)(desc->body_count > 0 ? desc->body_count : 1);
    w->local = calloc(n, sizeof(ts_body_id));
    w->role = calloc(n, 1);
    w->seen = calloc(n, sizeof(unsigned));
    if (w->local == NULL || w->role == NULL || w->seen == NULL) {
        snprintf(error, size, "out of memory");
        return false;
    }
    w->world = tessera_create_world(desc, settings, error, size);
    if (ts_world_id_is_null(w->world)) {
        return false;
    }
    for (int gid = 0; gid < desc->body_count; ++gid) {
        const scene_body *b = &desc->bodies[gid];
        bool dynamic = b->type == SCENE_DYNAMIC;
        if (dynamic && !split_owns(slab, b->position.x)) {
            continue;
        }
        if (!create_body(w, gid, b, error, size)) {
            return false;
        }
        w->role[gid] = dynamic ? SPLIT_OWNED : SPLIT_STATIC;
        w->counters.owned += dynamic;
    }
    return true;
}

void split_world_destroy(split_world *w)
{
    if (!ts_world_id_is_null(w->world)) {
        ts_destroy_world(w->world);
    }
    free(w->local);
    free(w->role);
    free(w->seen);
    memset(w, 0, sizeof(*w));
}

bool split_world_pack(const split_world *w, split_buffer *to_left, split_buffer *to_right)
{
    to_left->count = to_right->count = 0;
    for (int gid = 0; gid < w->desc->body_count; ++gid) {
        if (w->role[gid] != SPLIT_OWNED) {
            continue;
        }
        split_record r = split_world_read(w, gid);
        if ((split_send_left(&w->slab, r.p[0]) && !split_buffer_push(to_left, &r)) ||
            (split_send_right(&w->slab, r.p[0]) && !split_buffer_push(to_right, &r))) {
            return false;
        }
    }
    return true;
}

/* Owned bodies whose centre left the slab: the neighbour owns them from now
 * on (it decides so from the same record); here they stay as ghosts while
 * within the margin, with the state just sent. */
static bool hand_over(split_world *w, char *error, size_t size)
{
    for (int gid = 0; gid < w->desc->body_count; ++gid) {
        if (w->role[gid] != SPLIT_OWNED) {
            continue;
        }
        ts_vec3 p;
        ts_body_get_position(w->local[gid], &p);
        if (split_owns(&w->slab, p.x)) {
            continue;
        }
        w->counters.migrated_out += 1;
        if (!split_keeps(&w->slab, p.x)) {
            drop(w, gid);
            continue;
        }
        w->seen[gid] = w->stamp;
        if (!set_role(w, gid, SPLIT_GHOST, error, size)) {
            return false;
        }
    }
    return true;
}

static bool apply_record(split_world *w, const split_record *r, char *error, size_t size)
{
    int gid = r->gid;
    if (gid < 0 || gid >= w->desc->body_count || w->role[gid] == SPLIT_OWNED || w->role[gid] == SPLIT_STATIC) {
        w->counters.conflicts += 1;
        return true;
    }
    split_role role = split_owns(&w->slab, r->p[0]) ? SPLIT_OWNED : SPLIT_GHOST;
    if (w->role[gid] == SPLIT_ABSENT) {
        if (!create_body(w, gid, &w->desc->bodies[gid], error, size)) {
            return false;
        }
        w->role[gid] = SPLIT_OWNED; /* as created: dynamic */
        w->counters.created += 1;
        w->counters.migrated_in += role == SPLIT_OWNED;
        if (!set_role(w, gid, role, error, size)) {
            return false;
        }
    } else if (role == SPLIT_OWNED) {
        w->counters.migrated_in += 1;
        if (!set_role(w, gid, role, error, size)) {
            return false;
        }
    }
    w->seen[gid] = w->stamp;
    return write_state(w->local[gid], r, error, size);
}

bool split_world_reconcile(split_world *w, const split_buffer *from_left, const split_buffer *from_right, char *error,
                           size_t size)
{
    w->stamp += 1;
    if (!hand_over(w, error, size)) {
        return false;
    }
    const split_buffer *lists[2] = {from_left, from_right};
    for (int side = 0; side < 2; ++side) {
        for (int i = 0; i < lists[side]->count; ++i) {
            if (!apply_record(w, &lists[side]->records[i], error, size)) {
                return false;
            }
        }
    }
    w->counters.owned = w->counters.ghosts = 0;
    for (int gid = 0; gid < w->desc->body_count; ++gid) {
        if (w->role[gid] == SPLIT_GHOST && w->seen[gid] != w->stamp) {
            drop(w, gid);
        }
        w->counters.owned += w->role[gid] == SPLIT_OWNED;
        w->counters.ghosts += w->role[gid] == SPLIT_GHOST;
    }
    return true;
}

bool split_world_owned(const split_world *w, split_buffer *out)
{
    out->count = 0;
    for (int gid = 0; gid < w->desc->body_count; ++gid) {
        if (w->role[gid] == SPLIT_OWNED) {
            split_record r = split_world_read(w, gid);
            if (!split_buffer_push(out, &r)) {
                return false;
            }
        }
    }
    return true;
}

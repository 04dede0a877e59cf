/* The narrowphase stage of a step: every awake contact's manifold refreshed
 * in parallel blocks (points matched to last step's, so they keep their
 * impulses), each block listing its contacts that began, ended or parted;
 * then, on worker 0 in slot order, their events and the lists the step acts
 * on (see contact.h, collision.h).
 *
 * Most contacts of a resting pile or stack are recycled (contact_recycle.h)
 * or far apart: a block sends those (add_lane: overlapping fat bounds,
 * shapes at their bodies' centres, cached or without points) to the recycle
 * kernel in batches of 8 (contact_recycle_wide.c), which decides and
 * finishes them lane-parallel with the same bits (recycled, far, or two
 * boxes apart along a face axis), reading each body's pose and velocity
 * from records written once a step (body_block). The others, and what the
 * kernel leaves (full tests, parted and far cached contacts), take the
 * one-contact path, update_contact. */
#include "collide/contact.h"

#include "base/array.h"
#include "base/error.h"
#include "base/parallel.h"
#include "collide/collide_hull.h"
#include "collide/contact_recycle.h"
#include "collide/manifold_locks.h"
#include "collide/manifold_match.h"
#include "collide/narrowphase.h"

#include <string.h>

TS_FORCE_INLINE ts_transform shape_transform(const ts_records *records, const ts_shape *shape)
{
    const ts_body_store *s = &records->store;
    int32_t i = s->table.slot_of_id[shape->body];
    ts_transform body = {{s->px[i], s->py[i], s->pz[i]}, {s->qx[i], s->qy[i], s->qz[i], s->qw[i]}};
    /* most shapes sit at their body's centre of mass on its principal axes */
    const ts_transform *l = &shape->sim_local;
    bool identity = l->p.x == 0.0f && l->p.y == 0.0f && l->p.z == 0.0f && l->q.x == 0.0f && l->q.y == 0.0f &&
                    l->q.z == 0.0f && l->q.w == 1.0f;
    return identity ? body : ts_transform_mul(body, shape->sim_local);
}

static ts_vec3 body_center(const ts_records *records, int32_t body)
{
    const ts_body_store *s = &records->store;
    int32_t i = s->table.slot_of_id[body];
    return ts_v3(s->px[i], s->py[i], s->pz[i]);
}

/* Points this far apart are kept: 2 cm, plus the distance the two bodies can
 * close in one step at their current relative speed, so that a body falling
 * at 5 m/s (8 cm a step at 60 Hz) gets its contact before it hits, not a step
 * late and 6 cm deep. (The fat bounds are swept by the velocity too, so the
 * pair exists by then; see ts_broadphase_compute_bounds.) */
static float speculative_margin(const ts_records *records, float dt, int32_t body_a, int32_t body_b)
{
    const ts_body_store *s = &records->store;
    int32_t ia = s->table.slot_of_id[body_a];
    int32_t ib = s->table.slot_of_id[body_b];
    ts_vec3 dv = ts_sub(ts_v3(s->vx[ib], s->vy[ib], s->vz[ib]), ts_v3(s->vx[ia], s->vy[ia], s->vz[ia]));
    float closing = dt * ts_length(dv);
    return TS_SPECULATIVE_DISTANCE + closing;
}

TS_FORCE_INLINE float bounding_radius(const ts_shape *shape)
{
    switch (shape->type) {
    case TS_SHAPE_SPHERE: return shape->geometry.sphere.radius;
    case TS_SHAPE_CAPSULE: return shape->geometry.capsule.half_height + shape->geometry.capsule.radius;
    case TS_SHAPE_HULL: return shape->geometry.hull.radius;
    case TS_SHAPE_MESH: return shape->geometry.mesh.radius;
    case TS_SHAPE_HEIGHTFIELD: return shape->geometry.heightfield.radius;
    default: return ts_length(shape->geometry.box.half_extents);
    }
}

/* What the narrowphase functions take: the geometry itself, or for hulls,
 * meshes and heightfields the block it points to. */
static const void *shape_geometry(const ts_shape *shape)
{
    switch (shape->type) {
    case TS_SHAPE_HULL: return shape->geometry.hull.data;
    case TS_SHAPE_MESH: return shape->geometry.mesh.data;
    case TS_SHAPE_HEIGHTFIELD: return shape->geometry.heightfield.data;
    default: return &shape->geometry;
    }
}

/* The one-contact path: the contact's manifold refreshed (try_recycle:
 * false when the recycle kernel already found that it is not recycled). */
static void update_contact(ts_records *records, float dt, int32_t i, bool try_recycle)
{
    ts_contact_store *s = &records->contact_store;
    const ts_shape *a = records->shapes + s->shape_a[i];
    const ts_shape *b = records->shapes + s->shape_b[i];
    uint32_t flags = s->flags[i] & TS_CONTACT_TOUCHING;
    if (!ts_aabb_overlaps(a->fat_aabb, b->fat_aabb)) {
        s->flags[i] = flags | TS_CONTACT_DISJOINT;
        return;
    }

    ts_transform xa = shape_transform(records, a);
    ts_transform xb = shape_transform(records, b);
    float margin = speculative_margin(records, dt, a->body, b->body);
    ts_manifold m;
    /* Fat bounds overlap for many pairs that are far apart (bodies moving
     * side by side have swept bounds; half the pairs of a falling pile):
     * bounding spheres farther apart than the margin cannot touch, and cost a
     * fraction of the full test. Such a pair that had no points has nothing
     * to forget either. */
    float reach = bounding_radius(a) + bounding_radius(b) + margin;
    ts_vec3 center_a = body_center(records, a->body);
    ts_vec3 center_b = body_center(records, b->body);
    if (ts_length_sq(ts_sub(xb.p, xa.p)) > reach * reach) {
        if (s->point_count[i] == 0) {
            s->flags[i] = 0u;
            return;
        }
        m.point_count = 0;
    } else if (try_recycle && (s->flags[i] & TS_CONTACT_CACHED) != 0 &&
               ts_contact_recycle(records, dt, i, xa, xb, center_a, center_b)) {
        /* a recycled manifold keeps its points, their order and impulses */
        s->flags[i] = TS_CONTACT_TOUCHING | TS_CONTACT_CACHED;
        return;
    } else {
        ts_sat_cache cache = {s->sat_feature[i], s->sat_depth[i]};
        ts_collide_shapes_cached(a->type, shape_geometry(a), xa, b->type, shape_geometry(b), xb, margin, &m, &cache);
        s->sat_feature[i] = cache.feature;
        s->sat_depth[i] = cache.depth;
        if (records->store.locked_count != 0) { /* points the locks make one row */
            ts_manifold_merge_locked(records, a->body, b->body, &m);
        }
    }

    /* Last step's points, to carry their impulses over (see ts_match_points). */
    ts_old_points old;
    old.count = s->point_count[i];
    for (int k = 0; k < old.count; ++k) {
        int p = 4 * i + k;
        old.feature[k] = s->feature[p];
        old.anchor[k] = ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]);
        old.normal[k] = s->normal_impulse[p];
        old.taken[k] = false;
    }

    if (m.point_count == 0) {
        m.normal = ts_v3(0, 0, 0); /* unspecified without points: keep the columns deterministic */
        ts_contact_forget_friction(s, i);
    }
    s->nx[i] = m.normal.x;
    s->ny[i] = m.normal.y;
    s->nz[i] = m.normal.z;
    s->point_count[i] = m.point_count;
    for (int k = 0; k < m.point_count; ++k) {
        int p = 4 * i + k;
        const ts_manifold_point *mp = m.points + k;
        ts_vec3 ra = ts_sub(mp->point, center_a);
        s->anchor_ax[p] = ra.x;
        s->anchor_ay[p] = ra.y;
        s->anchor_az[p] = ra.z;
        s->separation[p] = mp->separation;
        s->feature[p] = mp->feature_id;
    }
    ts_match_points(s, i, m.point_count, &old);
    if (m.point_count > 0) {
        ts_contact_remember(records, i, xa, xb, center_a, center_b);
    }
    uint32_t touching = m.point_count > 0 ? TS_CONTACT_TOUCHING : 0u;
    if (touching && !flags) {
        touching |= TS_CONTACT_STARTED;
    } else if (!touching && flags) {
        touching |= TS_CONTACT_STOPPED;
    }
    s->flags[i] = touching | (m.point_count > 0 ? TS_CONTACT_CACHED : 0u);
}

/* Whether a shape sits at its body's centre of mass on its principal axes,
 * bit for bit (a -0 in sim_local does not count: such a shape takes the
 * one-contact path, which gives the same bits). */
static bool at_body_center(const ts_shape *shape)
{
    static const ts_transform identity = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};
    return memcmp(&shape->sim_local, &identity, sizeof identity) == 0;
}

/* Adds contact i to the batch of the recycle kernel when it can take it:
 * its fat bounds overlap (else it parted: the one-contact path lists it),
 * both shapes sit at their bodies' centres, and it is cached (the kernel
 * tries to recycle it) or has no points (the kernel drops it if far). */
static bool add_lane(const ts_records *records, int32_t i, ts_recycle_lanes *lanes)
{
    const ts_contact_store *s = &records->contact_store;
    bool cached = (s->flags[i] & TS_CONTACT_CACHED) != 0;
    if (!cached && s->point_count[i] != 0) {
        return false;
    }
    const ts_shape *a = records->shapes + s->shape_a[i];
    const ts_shape *b = records->shapes + s->shape_b[i];
    if (!ts_aabb_overlaps(a->fat_aabb, b->fat_aabb) || !at_body_center(a) || !at_body_center(b)) {
        return false;
    }
    const int32_t *slot_of_id = records->store.table.slot_of_id;
    int l = lanes->count++;
    lanes->contact[l] = i;
    lanes->slot_a[l] = slot_of_id[a->body];
    lanes->slot_b[l] = slot_of_id[b->body];
    lanes->radius_a[l] = bounding_radius(a);
    lanes->radius_b[l] = bounding_radius(b);
    lanes->cached |= (cached ? 1u : 0u) << l;
    if (!cached && a->type == TS_SHAPE_BOX && b->type == TS_SHAPE_BOX && records->store.locked_count == 0) {
        lanes->boxes |= 1u << l;
        for (int k = 0; k < 3; ++k) {
            lanes->half_a[k][l] = ts_component(a->geometry.box.half_extents, k);
            lanes->half_b[k][l] = ts_component(b->geometry.box.half_extents, k);
        }
    }
    return true;
}

/* Runs the batch through the recycle kernel, then the one-contact path on
 * the lanes it did not recycle; the batch is empty afterwards. */
static void flush_lanes(ts_records *records, const ts_recycle_body *bodies, float dt, int width,
                        ts_recycle_lanes *lanes)
{
    if (lanes->count == 0) {
        return;
    }
    for (int l = lanes->count; l < TS_RECYCLE_LANES; ++l) { /* padding: copies of lane 0, never written */
        lanes->contact[l] = lanes->contact[0];
        lanes->slot_a[l] = lanes->slot_a[0];
        lanes->slot_b[l] = lanes->slot_b[0];
        lanes->radius_a[l] = lanes->radius_a[0];
        lanes->radius_b[l] = lanes->radius_b[0];
        for (int k = 0; k < 3; ++k) {
            lanes->half_a[k][l] = lanes->half_a[k][0];
            lanes->half_b[k][l] = lanes->half_b[k][0];
        }
    }
    uint32_t done = ts_contact_recycle_batch(records, bodies, dt, lanes, width);
    for (int l = 0; l < lanes->count; ++l) {
        if ((done >> l & 1u) == 0u) {
            update_contact(records, dt, lanes->contact[l], false);
        }
    }
    lanes->count = 0;
    lanes->cached = 0u;
    lanes->boxes = 0u;
}

/* The flags that need worker 0 after the narrowphase. */
#define TS_CONTACT_NEWS (TS_CONTACT_STARTED | TS_CONTACT_STOPPED | TS_CONTACT_DISJOINT)

/* Contacts per narrowphase block (at least). */
#define TS_CONTACT_BLOCK 16

/* The narrowphase of slots [first, first + count), in blocks. */
typedef struct narrowphase_stage {
    ts_records *records;
    ts_collision *collision;
    float dt;
    int32_t first;
    int32_t count;
    int32_t block_size;
    int32_t first_block; /* the stage's blocks' entries in block_news */
    bool fill;           /* new contacts: fill each slot first */
    int width;           /* the recycle kernel's SIMD width */
} narrowphase_stage;

static void stage_range(const narrowphase_stage *stage, int32_t block, int32_t *begin, int32_t *end)
{
    ts_block_range(block, stage->block_size, stage->count, begin, end);
    *begin += stage->first;
    *end += stage->first;
}

/* Updates the block's contacts and lists those with news in the block's
 * part of contact_news (the slots [begin, end) it owns), in slot order. */
static void narrowphase_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const narrowphase_stage *stage = context;
    ts_records *records = stage->records;
    const uint32_t *flags = records->contact_store.flags;
    int32_t begin, end;
    stage_range(stage, block, &begin, &end);
    if (stage->fill) {
        for (int32_t i = begin; i < end; ++i) {
            ts_contacts_fill_slots(records, i, i + 1);
            update_contact(records, stage->dt, i, true);
        }
    } else {
        /* contacts go to the recycle kernel in batches (add_lane); the
         * rest, and those it leaves, take the one-contact path (each slot
         * is written once, so the order does not matter) */
        const ts_recycle_body *bodies = stage->collision->recycle_bodies;
        ts_recycle_lanes lanes;
        lanes.count = 0;
        lanes.cached = 0u;
        lanes.boxes = 0u;
        for (int32_t i = begin; i < end; ++i) {
            if (!add_lane(records, i, &lanes)) {
                update_contact(records, stage->dt, i, true);
            } else if (lanes.count == TS_RECYCLE_LANES) {
                flush_lanes(records, bodies, stage->dt, stage->width, &lanes);
            }
        }
        flush_lanes(records, bodies, stage->dt, stage->width, &lanes);
    }
    int32_t *news = stage->collision->contact_news + begin;
    int32_t n = 0;
    for (int32_t i = begin; i < end; ++i) {
        if ((flags[i] & TS_CONTACT_NEWS) != 0) {
            news[n++] = i;
        }
    }
    stage->collision->block_news[stage->first_block + block] = n;
}

/* The bodies' records for the recycle kernel, in blocks. */
static void body_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const ts_body_records_pass *pass = context;
    int32_t begin, end;
    ts_block_range(block, pass->block_size, pass->count, &begin, &end);
    ts_recycle_bodies_write(pass->store, pass->bodies, begin, end);
}

/* Every body's pose and velocity, for the recycle kernel's loads: the
 * static bodies' too (a contact's other body may be one). */
static ts_stage_def body_records_pass(ts_records *records, ts_collision *collision)
{
    ts_body_records_pass *pass = &collision->body_records;
    int32_t bodies = records->store.table.end[TS_RANGE_STATIC];
    *pass = (ts_body_records_pass){&records->store, collision->recycle_bodies, bodies, ts_block_size(bodies, 256),
                                   true};
    return (ts_stage_def){body_block, pass, ts_block_count(bodies, pass->block_size)};
}

bool ts_contacts_body_records(ts_records *records, ts_collision *collision, ts_stage_def *pass)
{
    if (!ts_contact_recycle_reserve(&records->allocator, collision, records->store.table.count)) {
        return false;
    }
    /* none when no contact is awake: the narrowphase reads them only then */
    bool needed = records->contact_store.table.end[TS_CONTACT_RANGE_AWAKE] > 0;
    *pass = needed ? body_records_pass(records, collision) : (ts_stage_def){NULL, NULL, 0};
    return true;
}

/* Worker 0, in slot order, a stage's blocks: the events of the listed
 * contacts, and added to the lists: those that began or stopped touching
 * (compacted to the front of contact_news: no block's list starts before
 * the slots listed ahead of it) and the ids of those that parted. */
static ts_result list_news(ts_records *records, ts_collision *collision, const narrowphase_stage *stage,
                           int32_t blocks)
{
    const ts_contact_store *s = &records->contact_store;
    int32_t *touched = collision->contact_news;
    int32_t touched_count = collision->news_count;
    int32_t doomed = collision->doomed_count;
    for (int32_t b = 0; b < blocks; ++b) {
        int32_t block = stage->first_block + b;
        int32_t begin, end;
        stage_range(stage, b, &begin, &end);
        const int32_t *news = collision->contact_news + begin;
        for (int32_t k = 0; k < collision->block_news[block]; ++k) {
            int32_t i = news[k];
            uint32_t flags = s->flags[i];
            if (flags & TS_CONTACT_STARTED) {
                TS_TRY(ts_contact_push_begin(records, &collision->events, s->shape_a[i], s->shape_b[i]));
                touched[touched_count++] = i;
            } else if (flags & TS_CONTACT_STOPPED) {
                TS_TRY(ts_contact_push_end(records, &collision->events, s->shape_a[i], s->shape_b[i]));
                touched[touched_count++] = i;
            }
            if (flags & TS_CONTACT_DISJOINT) {
                if ((flags & TS_CONTACT_TOUCHING) != 0) { /* parted while touching (STOPPED is not set then) */
                    TS_TRY(ts_contact_push_end(records, &collision->events, s->shape_a[i], s->shape_b[i]));
                }
                if (!ts_array_reserve(&records->allocator, (void **)&collision->doomed_contacts,
                                      &collision->doomed_capacity, doomed + 1, sizeof(int32_t))) {
                    return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contacts)");
                }
                collision->doomed_contacts[doomed++] = s->table.id_of_slot[i];
            }
        }
    }
    collision->news_count = touched_count;
    collision->doomed_count = doomed;
    return TS_OK;
}

/* Worker 0's task beside the new contacts' stage: the news of the contacts
 * there were, then the caller's answer to them. */
typedef struct news_task {
    ts_records *records;
    ts_collision *collision;
    const narrowphase_stage *stage;
    int32_t blocks;
    ts_news_fn *answer;
    void *answer_context;
    ts_result result;
} news_task;

static void early_news(void *context)
{
    news_task *task = context;
    task->result = list_news(task->records, task->collision, task->stage, task->blocks);
    if (task->result == TS_OK && task->answer != NULL) {
        task->result = task->answer(task->answer_context);
    }
}

ts_result ts_contacts_narrowphase(ts_records *records, ts_collision *collision, ts_parallel *parallel, float dt,
                                  int width, void (*register_new)(void *), void *register_context, ts_news_fn *news,
                                  void *news_context)
{
    ts_contact_store *s = &records->contact_store;
    collision->news_count = 0;
    collision->doomed_count = 0;
    /* Room in the news lists for every slot the table can hold, so that the
     * contacts made next to the first stage find it too (the step took all
     * this room before it changed anything, the bodies' copy too: none of
     * these allocates here). */
    if (!ts_contact_news_reserve(&records->allocator, collision, s->table.capacity) ||
        !ts_soa_removal_reserve(&collision->contact_removal, &records->allocator, s->table.capacity) ||
        !ts_contact_recycle_reserve(&records->allocator, collision, records->store.table.count)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contacts)");
    }
    const ts_body_records_pass *written = &collision->body_records;
    bool fresh = written->written && written->bodies == collision->recycle_bodies &&
                 written->count == records->store.table.end[TS_RANGE_STATIC];
    if (!fresh && s->table.end[TS_CONTACT_RANGE_AWAKE] > 0) {
        ts_stage_def pass = body_records_pass(records, collision);
        ts_parallel_for(parallel, pass.run, pass.context, pass.block_count);
    }
    collision->body_records.written = false; /* the next step's poses differ */
    /* The contacts there were, while worker 0 makes the new ones: those
     * take the slots past the old awake range and touch nothing below it. */
    int32_t old = s->table.end[TS_CONTACT_RANGE_AWAKE];
    narrowphase_stage first = {records, collision, dt, 0, old, ts_block_size(old, TS_CONTACT_BLOCK), 0, false,
                                width};
    int32_t first_blocks = ts_block_count(old, first.block_size);
    ts_parallel_for_with(parallel, narrowphase_block, &first, first_blocks, register_new, register_context);
    /* Then the new awake ones, filled and updated, while worker 0 lists the
     * news of the others and calls `news`. */
    int32_t count = s->table.end[TS_CONTACT_RANGE_AWAKE];
    collision->narrowphase_pairs = count;
    narrowphase_stage second = {records, collision, dt, old, count - old, ts_block_size(count - old, TS_CONTACT_BLOCK),
                                first_blocks, true, width};
    int32_t second_blocks = ts_block_count(count - old, second.block_size);
    news_task task = {records, collision, &first, first_blocks, news, news_context, TS_OK};
    ts_parallel_for_with(parallel, narrowphase_block, &second, second_blocks, early_news, &task);
    TS_TRY(task.result);
    return list_news(records, collision, &second, second_blocks);
}

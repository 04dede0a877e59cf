/* The narrowphase stage of a step: every awake contact's manifold refreshed
 * in parallel blocks (points matched to last step's, so they keep their
 * impulses), each block listing its contacts that began, ended or parted;
 * then, on worker 0 in slot order, their events, colours, islands, and the
 * parted ones destroyed (see contact.h). */
#include "collide/contact.h"

#include "api/world.h"
#include "base/error.h"
#include "base/parallel.h"
#include "collide/manifold_cache.h"
#include "collide/narrowphase.h"
#include "islands/contact_graph.h"
#include "islands/sleep.h"
#include "soa/array.h"

TS_FORCE_INLINE ts_transform shape_transform(const ts_world *world, const ts_shape *shape)
{
    const ts_body_store *s = &world->store;
    int32_t i = s->table.slot_of_id[shape->body];
    ts_transform body = {{s->px[i], s->py[i], s->pz[i]}, {s->qx[i], s->qy[i], s->qz[i], s->qw[i]}};
    /* most shapes sit at their body's centre of mass on its principal axes */
    const ts_transform *l = &shape->sim_local;
    bool identity = l->p.x == 0.0f && l->p.y == 0.0f && l->p.z == 0.0f && l->q.x == 0.0f && l->q.y == 0.0f &&
                    l->q.z == 0.0f && l->q.w == 1.0f;
    return identity ? body : ts_transform_mul(body, shape->sim_local);
}

static ts_vec3 body_center(const ts_world *world, int32_t body)
{
    const ts_body_store *s = &world->store;
    int32_t i = s->table.slot_of_id[body];
    return ts_v3(s->px[i], s->py[i], s->pz[i]);
}

/* Points this far apart are kept: 2 cm, plus the distance the two bodies can
 * close in one step at their current relative speed, so that a body falling
 * at 5 m/s (8 cm a step at 60 Hz) gets its contact before it hits, not a step
 * late and 6 cm deep. (The fat bounds are swept by the velocity too, so the
 * pair exists by then; see ts_broadphase_compute_bounds.) */
static float speculative_margin(const ts_world *world, int32_t body_a, int32_t body_b)
{
    const ts_body_store *s = &world->store;
    int32_t ia = s->table.slot_of_id[body_a];
    int32_t ib = s->table.slot_of_id[body_b];
    ts_vec3 dv = ts_sub(ts_v3(s->vx[ib], s->vy[ib], s->vz[ib]), ts_v3(s->vx[ia], s->vy[ia], s->vz[ia]));
    float closing = world->step_dt * ts_length(dv);
    return TS_SPECULATIVE_DISTANCE + closing;
}

static float bounding_radius(const ts_shape *shape)
{
    switch (shape->type) {
    case TS_SHAPE_SPHERE: return shape->geometry.sphere.radius;
    case TS_SHAPE_CAPSULE: return shape->geometry.capsule.half_height + shape->geometry.capsule.radius;
    default: return ts_length(shape->geometry.box.half_extents);
    }
}

static void update_contact(ts_world *world, int32_t i)
{
    ts_contact_store *s = &world->contact_store;
    const ts_shape *a = world->shapes + s->shape_a[i];
    const ts_shape *b = world->shapes + s->shape_b[i];
    uint32_t flags = s->flags[i] & TS_CONTACT_TOUCHING;
    if (!ts_aabb_overlaps(a->fat_aabb, b->fat_aabb)) {
        s->flags[i] = flags | TS_CONTACT_DISJOINT;
        return;
    }

    ts_transform xa = shape_transform(world, a);
    ts_transform xb = shape_transform(world, b);
    float margin = speculative_margin(world, a->body, b->body);
    ts_transform relative = {0};
    ts_manifold m;
    /* Fat bounds overlap for many pairs that are far apart (bodies moving
     * side by side have swept bounds; half the pairs of a falling pile):
     * bounding spheres farther apart than the margin cannot touch, and cost a
     * fraction of the full test. Such a pair that had no points has nothing
     * to forget either. */
    float reach = bounding_radius(a) + bounding_radius(b) + margin;
    bool cached = false;
    if (ts_length_sq(ts_sub(xb.p, xa.p)) > reach * reach) {
        if (s->point_count[i] == 0) {
            s->flags[i] = 0u;
            return;
        }
        m.point_count = 0;
    } else {
        relative = ts_transform_inv_mul(xa, xb);
        if ((s->flags[i] & TS_CONTACT_CACHED) != 0 && ts_cache_holds(s, i, relative)) {
            ts_reuse_manifold(s, i, xa, xb, &m);
            cached = true;
        } else {
            ts_collide_shapes(a->type, &a->geometry, xa, b->type, &b->geometry, xb, margin, &m);
        }
    }

    /* Last step's points, to carry their impulses over (see ts_match_points).
     * A reused manifold has last step's points in last step's order, so each
     * keeps its impulse where it is. */
    ts_old_points old;
    old.count = cached ? 0 : s->point_count[i];
    for (int k = 0; k < old.count; ++k) {
        int p = 4 * i + k;
        old.feature[k] = s->feature[p];
        old.anchor[k] = ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]);
        old.normal[k] = s->normal_impulse[p];
        old.taken[k] = false;
    }

    if (m.point_count == 0) {
        m.normal = ts_v3(0, 0, 0); /* unspecified without points: keep the columns deterministic */
        s->friction_impulse1[i] = 0.0f; /* the manifold's friction starts over when it touches again */
        s->friction_impulse2[i] = 0.0f;
        s->twist_impulse[i] = 0.0f;
        s->slip1[i] = 0.0f;
        s->slip2[i] = 0.0f;
    }
    ts_vec3 center_a = body_center(world, a->body);
    ts_vec3 center_b = body_center(world, b->body);
    s->nx[i] = m.normal.x;
    s->ny[i] = m.normal.y;
    s->nz[i] = m.normal.z;
    s->point_count[i] = m.point_count;
    for (int k = 0; k < m.point_count; ++k) {
        int p = 4 * i + k;
        const ts_manifold_point *mp = m.points + k;
        ts_vec3 ra = ts_sub(mp->point, center_a);
        ts_vec3 rb = ts_sub(mp->point, center_b);
        s->anchor_ax[p] = ra.x;
        s->anchor_ay[p] = ra.y;
        s->anchor_az[p] = ra.z;
        s->anchor_bx[p] = rb.x;
        s->anchor_by[p] = rb.y;
        s->anchor_bz[p] = rb.z;
        s->separation[p] = mp->separation;
        s->feature[p] = mp->feature_id;
    }
    if (!cached) {
        ts_match_points(s, i, m.point_count, &old);
        if (m.point_count > 0) {
            ts_store_cache(s, i, xa, xb, relative, &m);
        }
    }
    uint32_t touching = m.point_count > 0 ? TS_CONTACT_TOUCHING : 0u;
    if (touching && !flags) {
        touching |= TS_CONTACT_STARTED;
    } else if (!touching && flags) {
        touching |= TS_CONTACT_STOPPED;
    }
    s->flags[i] = touching | (m.point_count > 0 ? TS_CONTACT_CACHED : 0u);
}

/* The flags that need worker 0 after the narrowphase. */
#define TS_CONTACT_NEWS (TS_CONTACT_STARTED | TS_CONTACT_STOPPED | TS_CONTACT_DISJOINT)

/* Contacts per narrowphase block (at least). */
#define TS_CONTACT_BLOCK 16

/* The narrowphase of slots [first, first + count), in blocks. */
typedef struct narrowphase_stage {
    ts_world *world;
    int32_t first;
    int32_t count;
    int32_t block_size;
    int32_t first_block; /* the stage's blocks' entries in contact_news_count */
    bool fill;           /* new contacts: fill each slot first */
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
    ts_world *world = stage->world;
    const uint32_t *flags = world->contact_store.flags;
    int32_t begin, end;
    stage_range(stage, block, &begin, &end);
    int32_t *news = world->contact_news + begin;
    int32_t n = 0;
    for (int32_t i = begin; i < end; ++i) {
        if (stage->fill) {
            ts_contacts_fill_slots(world, i, i + 1);
        }
        update_contact(world, i);
        if ((flags[i] & TS_CONTACT_NEWS) != 0) {
            news[n++] = i;
        }
    }
    world->contact_news_count[stage->first_block + block] = n;
}

/* Worker 0's serial task next to the first stage. */
typedef struct serial_task {
    ts_world *world;
    void (*run)(ts_world *);
} serial_task;

static void run_serial_task(void *context)
{
    const serial_task *task = context;
    task->run(task->world);
}

ts_result ts_contacts_narrowphase(ts_world *world, void (*register_new)(ts_world *))
{
    ts_contact_store *s = &world->contact_store;
    /* Room in the news lists for every slot the table can hold, so that the
     * contacts made next to the first stage find it too. */
    if (!ts_contact_news_reserve(world, s->table.capacity) ||
        !ts_soa_removal_reserve(&world->contact_removal, &world->allocator, s->table.capacity)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contacts)");
    }
    /* The contacts there were, while worker 0 makes the new ones: those
     * take the slots past the old awake range and touch nothing below it. */
    int32_t old = s->table.end[TS_CONTACT_RANGE_AWAKE];
    narrowphase_stage first = {world, 0, old, ts_block_size(old, TS_CONTACT_BLOCK), 0, false};
    int32_t first_blocks = ts_block_count(old, first.block_size);
    serial_task task = {world, register_new};
    ts_parallel_for_with(&world->parallel, narrowphase_block, &first, first_blocks,
                         register_new != NULL ? run_serial_task : NULL, &task);
    /* Then the new awake ones, filled and updated. */
    int32_t count = s->table.end[TS_CONTACT_RANGE_AWAKE];
    world->narrowphase_pairs = count;
    narrowphase_stage second = {world, old, count - old, ts_block_size(count - old, TS_CONTACT_BLOCK), first_blocks,
                                true};
    int32_t second_blocks = ts_block_count(count - old, second.block_size);
    ts_parallel_for(&world->parallel, narrowphase_block, &second, second_blocks);

    /* Worker 0, in slot order: only the listed slots. Slots below count stay
     * put: waking an island below only appends its contacts to the awake
     * range (and they have no begin or end to report). */
    int32_t doomed = 0;
    for (int32_t block = 0; block < first_blocks + second_blocks; ++block) {
        const narrowphase_stage *stage = block < first_blocks ? &first : &second;
        int32_t begin, end;
        stage_range(stage, block - stage->first_block, &begin, &end);
        const int32_t *news = world->contact_news + begin;
        for (int32_t k = 0; k < world->contact_news_count[block]; ++k) {
            int32_t i = news[k];
            uint32_t flags = s->flags[i];
            int32_t id = s->table.id_of_slot[i];
            if (flags & TS_CONTACT_STARTED) {
                TS_TRY(ts_wake_pair(world, s->body_a[i], s->body_b[i], "ts_world_step")); /* a touch wakes */
                TS_TRY(ts_contact_push_begin(world, s->shape_a[i], s->shape_b[i]));
                TS_TRY(ts_contact_color(world, id, "ts_world_step"));
                ts_contact_link_islands(world, id);
            } else if (flags & TS_CONTACT_STOPPED) {
                TS_TRY(ts_contact_push_end(world, s->shape_a[i], s->shape_b[i]));
                ts_contact_uncolor(world, id);
                ts_contact_unlink_islands(world, id);
            }
            if (flags & TS_CONTACT_DISJOINT) {
                if ((flags & TS_CONTACT_TOUCHING) != 0) { /* parted while touching (STOPPED is not set then) */
                    TS_TRY(ts_contact_push_end(world, s->shape_a[i], s->shape_b[i]));
                }
                if (!ts_array_reserve(&world->allocator, (void **)&world->doomed_contacts, &world->doomed_capacity,
                                      doomed + 1, sizeof(int32_t))) {
                    return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contacts)");
                }
                world->doomed_contacts[doomed++] = id;
            }
        }
    }
    ts_contacts_destroy_parted(world, world->doomed_contacts, doomed);
    return TS_OK;
}

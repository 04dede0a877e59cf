/* Contacts: creation, destruction, the narrowphase stage and touch events
 * (see contact.h). */
#include "collide/contact.h"

#include "api/body.h"
#include "api/world.h"
#include "base/error.h"
#include "base/math3.h"
#include "base/parallel.h"
#include "base/validate.h"
#include "collide/narrowphase.h"
#include "islands/sleep.h"
#include "soa/array.h"
#include "tessera/tessera.h"

#include <stdlib.h>
#include <string.h>

static ts_shape_id shape_id(const ts_world *world, int32_t shape)
{
    return (ts_shape_id){shape + 1, (uint16_t)world->index, world->generation, world->shapes[shape].generation};
}

/* ---- events ---- */

static ts_result push_begin(ts_world *world, int32_t shape_a, int32_t shape_b)
{
    ts_contact_events_buffer *e = &world->events;
    if (!ts_array_reserve(&world->allocator, (void **)&e->begin_pending, &e->begin_pending_capacity,
                          e->begin_pending_count + 1, sizeof(ts_contact_begin_event))) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contact events)");
    }
    e->begin_pending[e->begin_pending_count++] = (ts_contact_begin_event){shape_id(world, shape_a), shape_id(world, shape_b)};
    return TS_OK;
}

/* End events are also made by destroy calls, where there is no way to report
 * a failure; then the event is dropped. */
static ts_result push_end(ts_world *world, int32_t shape_a, int32_t shape_b)
{
    ts_contact_events_buffer *e = &world->events;
    if (!ts_array_reserve(&world->allocator, (void **)&e->end_pending, &e->end_pending_capacity,
                          e->end_pending_count + 1, sizeof(ts_contact_end_event))) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contact events)");
    }
    e->end_pending[e->end_pending_count++] = (ts_contact_end_event){shape_id(world, shape_a), shape_id(world, shape_b)};
    return TS_OK;
}

static uint64_t event_key(ts_shape_id a, ts_shape_id b) { return ((uint64_t)(uint32_t)a.index1 << 32) | (uint32_t)b.index1; }

static int compare_begin(const void *x, const void *y)
{
    const ts_contact_begin_event *a = x, *b = y;
    uint64_t ka = event_key(a->shape_a, a->shape_b), kb = event_key(b->shape_a, b->shape_b);
    return (ka > kb) - (ka < kb);
}

/* Ties (a pair that ended twice: destroyed, re-made and ended again between
 * two steps) are ordered by the generations, so the order is still total. */
static int compare_end(const void *x, const void *y)
{
    const ts_contact_end_event *a = x, *b = y;
    uint64_t ka = event_key(a->shape_a, a->shape_b), kb = event_key(b->shape_a, b->shape_b);
    if (ka != kb) {
        return (ka > kb) - (ka < kb);
    }
    uint64_t ga = ((uint64_t)a->shape_a.generation << 32) | a->shape_b.generation;
    uint64_t gb = ((uint64_t)b->shape_a.generation << 32) | b->shape_b.generation;
    return (ga > gb) - (ga < gb);
}

ts_result ts_contact_events_publish(ts_world *world)
{
    ts_contact_events_buffer *e = &world->events;
    /* Swap pending and published: the published arrays of the last step
     * become the (emptied) pending ones. */
    ts_contact_begin_event *begin = e->begin_published;
    int32_t begin_capacity = e->begin_published_capacity;
    e->begin_published = e->begin_pending;
    e->begin_published_capacity = e->begin_pending_capacity;
    e->begin_published_count = e->begin_pending_count;
    e->begin_pending = begin;
    e->begin_pending_capacity = begin_capacity;
    e->begin_pending_count = 0;

    ts_contact_end_event *end = e->end_published;
    int32_t end_capacity = e->end_published_capacity;
    e->end_published = e->end_pending;
    e->end_published_capacity = e->end_pending_capacity;
    e->end_published_count = e->end_pending_count;
    e->end_pending = end;
    e->end_pending_capacity = end_capacity;
    e->end_pending_count = 0;

    qsort(e->begin_published, (size_t)e->begin_published_count, sizeof(ts_contact_begin_event), compare_begin);
    qsort(e->end_published, (size_t)e->end_published_count, sizeof(ts_contact_end_event), compare_end);
    return TS_OK;
}

/* ---- body contact lists ---- */

static void link_edge(ts_world *world, int32_t contact, int side)
{
    ts_contact *c = world->contacts + contact;
    ts_body *body = world->bodies + c->edges[side].body;
    int32_t key = contact << 1 | side;
    c->edges[side].prev_key = -1;
    c->edges[side].next_key = body->contact_head;
    if (body->contact_head != -1) {
        world->contacts[body->contact_head >> 1].edges[body->contact_head & 1].prev_key = key;
    }
    body->contact_head = key;
    body->contact_count += 1;
    ts_body_count_edge(&world->store, c->edges[side].body, 1);
}

static void unlink_edge(ts_world *world, int32_t contact, int side)
{
    ts_contact_edge *edge = world->contacts[contact].edges + side;
    ts_body *body = world->bodies + edge->body;
    if (edge->prev_key != -1) {
        world->contacts[edge->prev_key >> 1].edges[edge->prev_key & 1].next_key = edge->next_key;
    } else {
        body->contact_head = edge->next_key;
    }
    if (edge->next_key != -1) {
        world->contacts[edge->next_key >> 1].edges[edge->next_key & 1].prev_key = edge->prev_key;
    }
    body->contact_count -= 1;
    ts_body_count_edge(&world->store, edge->body, -1);
}

/* ---- create / destroy ---- */

/* The narrowphase's lists of slots with news: room for `slots` contacts
 * (and as many blocks). */
static bool reserve_news(ts_world *world, int32_t slots)
{
    const ts_allocator *a = &world->allocator;
    return ts_array_reserve(a, (void **)&world->contact_news, &world->contact_news_capacity, slots, sizeof(int32_t)) &&
           ts_array_reserve(a, (void **)&world->contact_news_count, &world->contact_news_count_capacity, slots,
                            sizeof(int32_t));
}

/* Room for `extra` more contacts, and for one begin or end event per contact
 * in both event buffers, so that a step's events never allocate. */
bool ts_contacts_reserve(ts_world *world, int32_t extra)
{
    /* The ids the next `extra` takes hand out: the top of the free stack,
     * then fresh ones. */
    const ts_id_pool *pool = &world->contact_ids;
    int32_t ids = 0;
    int32_t reused = extra < pool->free_count ? extra : pool->free_count;
    for (int32_t k = 0; k < reused; ++k) {
        int32_t id = pool->free_ids[pool->free_count - 1 - k];
        ids = id + 1 > ids ? id + 1 : ids;
    }
    if (extra > reused) {
        int32_t fresh = pool->next_index + (extra - reused);
        ids = fresh > ids ? fresh : ids;
    }
    int32_t events = world->contact_store.table.count + extra;
    ts_contact_events_buffer *e = &world->events;
    const ts_allocator *a = &world->allocator;
    return ts_array_reserve(a, (void **)&world->contacts, &world->contact_capacity, ids, sizeof(ts_contact)) &&
           ts_array_reserve(a, (void **)&e->begin_pending, &e->begin_pending_capacity, events,
                            sizeof(ts_contact_begin_event)) &&
           ts_array_reserve(a, (void **)&e->begin_published, &e->begin_published_capacity, events,
                            sizeof(ts_contact_begin_event)) &&
           ts_array_reserve(a, (void **)&e->end_pending, &e->end_pending_capacity, events,
                            sizeof(ts_contact_end_event)) &&
           ts_array_reserve(a, (void **)&e->end_published, &e->end_published_capacity, events,
                            sizeof(ts_contact_end_event)) &&
           ts_array_reserve(a, (void **)&world->doomed_contacts, &world->doomed_capacity, events, sizeof(int32_t)) &&
           reserve_news(world, events) &&
           ts_id_pool_reserve(&world->contact_ids, &world->allocator, ids) && /* frees of all of them */
           ts_contact_store_reserve(&world->contact_store, &world->allocator, events, ids) &&
           ts_soa_removal_reserve(&world->contact_removal, a, world->contact_store.table.capacity) &&
           ts_pair_set_reserve(&world->pairs, &world->allocator, world->pairs.count + extra);
}

int32_t ts_contact_register(ts_world *world, int32_t shape_a, int32_t shape_b)
{
    int32_t id = ts_id_pool_take(&world->contact_ids);
    const ts_shape *a = world->shapes + shape_a;
    const ts_shape *b = world->shapes + shape_b;
    ts_contact *c = world->contacts + id;
    *c = (ts_contact){
        .shape_a = shape_a,
        .shape_b = shape_b,
        .edges = {{a->body, -1, -1}, {b->body, -1, -1}},
        .color = -1,
        .color_index = -1,
        .graph_body = {-1, -1},
        .alive = true,
    };
    link_edge(world, id, 0);
    link_edge(world, id, 1);
    ts_pair_set_add(&world->pairs, ts_pair_key(shape_a, shape_b), id);

    /* A pair of resting bodies (a shape moved while its island fell asleep)
     * sleeps with them. */
    bool rests = ts_body_rests(world, a->body) && ts_body_rests(world, b->body);
    ts_soa_add_unfilled(&world->contact_store.table, world->contact_store.columns, id,
                        rests ? TS_CONTACT_RANGE_SLEEPING : TS_CONTACT_RANGE_AWAKE);
    return id;
}

static void fill_slot(ts_world *world, int32_t i)
{
    ts_contact_store *s = &world->contact_store;
    const ts_contact *c = world->contacts + s->table.id_of_slot[i];
    const ts_shape *a = world->shapes + c->shape_a;
    const ts_shape *b = world->shapes + c->shape_b;
    ts_soa_zero_slot(&s->table, s->columns, i);
    s->shape_a[i] = c->shape_a;
    s->shape_b[i] = c->shape_b;
    s->body_a[i] = a->body;
    s->body_b[i] = b->body;
    /* Box2D's mixing rules: friction sqrt(fa fb), restitution max(ra, rb). */
    s->friction[i] = sqrtf(a->friction * b->friction);
    s->restitution[i] = a->restitution > b->restitution ? a->restitution : b->restitution;
}

void ts_contacts_fill(ts_world *world, const int32_t *ids, int32_t begin, int32_t end)
{
    for (int32_t k = begin; k < end; ++k) {
        fill_slot(world, world->contact_store.table.slot_of_id[ids[k]]);
    }
}

void ts_contacts_fill_slots(ts_world *world, int32_t begin, int32_t end)
{
    for (int32_t i = begin; i < end; ++i) {
        fill_slot(world, i);
    }
}

ts_result ts_contact_create(ts_world *world, int32_t shape_a, int32_t shape_b)
{
    if (!ts_contacts_reserve(world, 1)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contacts)");
    }
    int32_t id = ts_contact_register(world, shape_a, shape_b);
    ts_contacts_fill(world, &id, 0, 1);
    return TS_OK;
}

/* ---- graph colours ---- */

ts_result ts_contact_color(ts_world *world, int32_t contact, const char *function)
{
    ts_contact *c = world->contacts + contact;
    if (c->color >= 0) {
        return TS_OK; /* coloured when its island woke in this step */
    }
    for (int side = 0; side < 2; ++side) {
        int32_t body = c->edges[side].body;
        c->graph_body[side] = world->bodies[body].type == TS_BODY_DYNAMIC ? body : -1;
    }
    if (!ts_graph_add(&world->graph, &world->allocator, contact, c->graph_body[0], c->graph_body[1], &c->color,
                      &c->color_index)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, function, "the allocator returned NULL (graph colours)");
    }
    return TS_OK;
}

void ts_contact_uncolor(ts_world *world, int32_t contact)
{
    ts_contact *c = world->contacts + contact;
    if (c->color < 0) {
        return;
    }
    int32_t moved = ts_graph_remove(&world->graph, c->color, c->color_index, c->graph_body[0], c->graph_body[1]);
    if (moved >= 0) {
        world->contacts[moved].color_index = c->color_index;
    }
    c->color = -1;
    c->color_index = -1;
}

/* ---- islands ---- */

/* A contact between two dynamic bodies that starts touching joins their islands. */
static void link_islands(ts_world *world, int32_t contact)
{
    ts_contact *c = world->contacts + contact;
    int32_t a = c->edges[0].body, b = c->edges[1].body;
    if (!c->linked && world->bodies[a].type == TS_BODY_DYNAMIC && world->bodies[b].type == TS_BODY_DYNAMIC) {
        ts_island_link(world, a, b);
        c->linked = true;
    }
}

static void unlink_islands(ts_world *world, int32_t contact)
{
    ts_contact *c = world->contacts + contact;
    if (c->linked) {
        ts_island_mark_removed(world, c->edges[0].body, c->edges[1].body);
        c->linked = false;
    }
}

void ts_contact_destroy(ts_world *world, int32_t contact)
{
    ts_contact *c = world->contacts + contact;
    ts_contact_store *s = &world->contact_store;
    int32_t i = s->table.slot_of_id[contact];
    if ((s->flags[i] & TS_CONTACT_TOUCHING) != 0) {
        push_end(world, c->shape_a, c->shape_b);
    }
    ts_contact_uncolor(world, contact);
    unlink_islands(world, contact);
    unlink_edge(world, contact, 0);
    unlink_edge(world, contact, 1);
    ts_pair_set_remove(&world->pairs, ts_pair_key(c->shape_a, c->shape_b));
    ts_contact_store_remove(s, i);
    c->alive = false;
    ts_id_pool_release(&world->contact_ids, contact);
}

void ts_body_destroy_contacts(ts_world *world, int32_t body, int32_t shape)
{
    int32_t key = world->bodies[body].contact_head;
    while (key != -1) {
        int32_t contact = key >> 1;
        const ts_contact *c = world->contacts + contact;
        int32_t next = c->edges[key & 1].next_key;
        if (shape < 0 || c->shape_a == shape || c->shape_b == shape) {
            ts_contact_destroy(world, contact);
        }
        key = next;
    }
}

void ts_contacts_free(ts_world *world)
{
    const ts_allocator *a = &world->allocator;
    ts_array_free(a, (void **)&world->contacts, &world->contact_capacity, sizeof(ts_contact));
    ts_id_pool_destroy(&world->contact_ids, a);
    ts_contact_store_destroy(&world->contact_store, a);
    ts_pair_set_destroy(&world->pairs, a);
    ts_graph_destroy(&world->graph, a);
    ts_array_free(a, (void **)&world->doomed_contacts, &world->doomed_capacity, sizeof(int32_t));
    ts_array_free(a, (void **)&world->contact_news, &world->contact_news_capacity, sizeof(int32_t));
    ts_array_free(a, (void **)&world->contact_news_count, &world->contact_news_count_capacity, sizeof(int32_t));
    ts_soa_removal_destroy(&world->contact_removal, a);
    ts_contact_events_buffer *e = &world->events;
    ts_array_free(a, (void **)&e->begin_pending, &e->begin_pending_capacity, sizeof(ts_contact_begin_event));
    ts_array_free(a, (void **)&e->begin_published, &e->begin_published_capacity, sizeof(ts_contact_begin_event));
    ts_array_free(a, (void **)&e->end_pending, &e->end_pending_capacity, sizeof(ts_contact_end_event));
    ts_array_free(a, (void **)&e->end_published, &e->end_published_capacity, sizeof(ts_contact_end_event));
    memset(e, 0, sizeof *e);
}

/* ---- the narrowphase stage ---- */

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

typedef struct old_points {
    int count;
    uint32_t feature[TS_CONTACT_POINTS];
    ts_vec3 anchor[TS_CONTACT_POINTS]; /* relative to body A's centre */
    float normal[TS_CONTACT_POINTS];
    bool taken[TS_CONTACT_POINTS];
} old_points;

/* A new point keeps the impulses of last step's point with the same feature
 * id. Failing that, of the nearest unclaimed old point within
 * TS_MATCH_DISTANCE (relative to body A): two equal boxes stacked face to face
 * have their corners exactly on each other's edges, so a rotation of 1e-5 rad
 * turns a corner point into a clipped point with another id while it stays
 * where it was; dropping its impulse would restart the stack from zero. */
#define TS_MATCH_DISTANCE 0.005f

static void match_points(ts_contact_store *s, int32_t i, int count, old_points *old)
{
    int source[TS_CONTACT_POINTS];
    for (int k = 0; k < count; ++k) {
        source[k] = -1;
        for (int j = 0; j < old->count; ++j) {
            if (!old->taken[j] && old->feature[j] == s->feature[4 * i + k]) {
                source[k] = j;
                old->taken[j] = true;
                break;
            }
        }
    }
    for (int k = 0; k < count; ++k) {
        int p = 4 * i + k;
        if (source[k] < 0) {
            ts_vec3 anchor = ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]);
            float best = TS_MATCH_DISTANCE * TS_MATCH_DISTANCE;
            for (int j = 0; j < old->count; ++j) {
                float d = ts_length_sq(ts_sub(anchor, old->anchor[j]));
                if (!old->taken[j] && d < best) {
                    best = d;
                    source[k] = j;
                }
            }
            if (source[k] >= 0) {
                old->taken[source[k]] = true;
            }
        }
        int j = source[k];
        s->normal_impulse[p] = j >= 0 ? old->normal[j] : 0.0f;
    }
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

/* ---- the manifold cache ----
 * Resting and slowly moving pairs keep the same contact features step after
 * step. While shape B's pose relative to shape A stays within 1 mm and
 * ~2 mrad of the pose of the last full test, the manifold is rebuilt from the
 * two witness points of each contact point, fixed in their shapes' frames:
 * the normal turns with A, the separation is measured anew between the moved
 * witnesses. The features cannot change within that tolerance by more than
 * the speculative margin allows; past it, the full test runs again. */
#define TS_CACHE_DISTANCE 1.0e-3f
#define TS_CACHE_ROTATION 5.0e-7f /* 1 - |q . q_cached|: about 2 mrad */

static bool cache_holds(const ts_contact_store *s, int32_t i, ts_transform relative)
{
    ts_vec3 dp = ts_sub(relative.p, ts_v3(s->cache_px[i], s->cache_py[i], s->cache_pz[i]));
    float dot = relative.q.x * s->cache_qx[i] + relative.q.y * s->cache_qy[i] + relative.q.z * s->cache_qz[i] +
                relative.q.w * s->cache_qw[i];
    return ts_length_sq(dp) < TS_CACHE_DISTANCE * TS_CACHE_DISTANCE && fabsf(dot) > 1.0f - TS_CACHE_ROTATION;
}

static void reuse_manifold(const ts_contact_store *s, int32_t i, ts_transform xa, ts_transform xb, ts_manifold *m)
{
    m->normal = ts_rotate(xa.q, ts_v3(s->cache_nx[i], s->cache_ny[i], s->cache_nz[i]));
    m->point_count = s->point_count[i];
    for (int k = 0; k < m->point_count; ++k) {
        int p = 4 * i + k;
        ts_vec3 on_a = ts_transform_point(xa, ts_v3(s->witness_ax[p], s->witness_ay[p], s->witness_az[p]));
        ts_vec3 on_b = ts_transform_point(xb, ts_v3(s->witness_bx[p], s->witness_by[p], s->witness_bz[p]));
        m->points[k].point = ts_scale(0.5f, ts_add(on_a, on_b));
        m->points[k].separation = ts_dot(ts_sub(on_b, on_a), m->normal);
        m->points[k].feature_id = s->feature[p];
    }
}

static void store_cache(ts_contact_store *s, int32_t i, ts_transform xa, ts_transform xb, ts_transform relative,
                        const ts_manifold *m)
{
    s->cache_px[i] = relative.p.x;
    s->cache_py[i] = relative.p.y;
    s->cache_pz[i] = relative.p.z;
    s->cache_qx[i] = relative.q.x;
    s->cache_qy[i] = relative.q.y;
    s->cache_qz[i] = relative.q.z;
    s->cache_qw[i] = relative.q.w;
    ts_vec3 n = ts_inv_rotate(xa.q, m->normal);
    s->cache_nx[i] = n.x;
    s->cache_ny[i] = n.y;
    s->cache_nz[i] = n.z;
    for (int k = 0; k < m->point_count; ++k) {
        int p = 4 * i + k;
        const ts_manifold_point *mp = m->points + k;
        ts_vec3 half = ts_scale(0.5f * mp->separation, m->normal);
        ts_vec3 on_a = ts_inv_transform_point(xa, ts_sub(mp->point, half));
        ts_vec3 on_b = ts_inv_transform_point(xb, ts_add(mp->point, half));
        s->witness_ax[p] = on_a.x;
        s->witness_ay[p] = on_a.y;
        s->witness_az[p] = on_a.z;
        s->witness_bx[p] = on_b.x;
        s->witness_by[p] = on_b.y;
        s->witness_bz[p] = on_b.z;
    }
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
        if ((s->flags[i] & TS_CONTACT_CACHED) != 0 && cache_holds(s, i, relative)) {
            reuse_manifold(s, i, xa, xb, &m);
            cached = true;
        } else {
            ts_collide_shapes(a->type, &a->geometry, xa, b->type, &b->geometry, xb, margin, &m);
        }
    }

    /* Last step's points, to carry their impulses over (see match_points).
     * A reused manifold has last step's points in last step's order, so each
     * keeps its impulse where it is. */
    old_points old;
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
        match_points(s, i, m.point_count, &old);
        if (m.point_count > 0) {
            store_cache(s, i, xa, xb, relative, &m);
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
            fill_slot(world, i);
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

/* Destroys the parted contacts, in order, with the same result as
 * ts_contact_destroy one by one: the bookkeeping here, the store's column
 * copies afterwards in parallel (soa/soa_removal.h). Their end events were
 * reported by the caller (the columns are stale from the first removal on). */
static void destroy_parted(ts_world *world, const int32_t *doomed, int32_t count);

ts_result ts_contacts_narrowphase(ts_world *world, void (*register_new)(ts_world *))
{
    ts_contact_store *s = &world->contact_store;
    /* Room in the news lists for every slot the table can hold, so that the
     * contacts made next to the first stage find it too. */
    if (!reserve_news(world, s->table.capacity) ||
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
                TS_TRY(push_begin(world, s->shape_a[i], s->shape_b[i]));
                TS_TRY(ts_contact_color(world, id, "ts_world_step"));
                link_islands(world, id);
            } else if (flags & TS_CONTACT_STOPPED) {
                TS_TRY(push_end(world, s->shape_a[i], s->shape_b[i]));
                ts_contact_uncolor(world, id);
                unlink_islands(world, id);
            }
            if (flags & TS_CONTACT_DISJOINT) {
                if ((flags & TS_CONTACT_TOUCHING) != 0) { /* parted while touching (STOPPED is not set then) */
                    TS_TRY(push_end(world, s->shape_a[i], s->shape_b[i]));
                }
                if (!ts_array_reserve(&world->allocator, (void **)&world->doomed_contacts, &world->doomed_capacity,
                                      doomed + 1, sizeof(int32_t))) {
                    return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (contacts)");
                }
                world->doomed_contacts[doomed++] = id;
            }
        }
    }
    destroy_parted(world, world->doomed_contacts, doomed);
    return TS_OK;
}

/* Store moves per block of the parallel copy. */
#define TS_REMOVAL_BLOCK 32

typedef struct removal_stage {
    ts_contact_store *store;
    const ts_soa_removal *removal;
    int range;
    int32_t count;
    int32_t block_size;
} removal_stage;

static void removal_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const removal_stage *stage = context;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, stage->count, &begin, &end);
    ts_soa_removal_copy(&stage->store->table, stage->store->columns, stage->removal, stage->range, begin, end);
}

static void destroy_parted(ts_world *world, const int32_t *doomed, int32_t count)
{
    if (count == 0) {
        return;
    }
    ts_contact_store *s = &world->contact_store;
    ts_soa_removal *removal = &world->contact_removal;
    for (int32_t k = 0; k < count; ++k) {
        int32_t contact = doomed[k];
        ts_contact *c = world->contacts + contact;
        ts_contact_uncolor(world, contact);
        unlink_islands(world, contact);
        unlink_edge(world, contact, 0);
        unlink_edge(world, contact, 1);
        ts_pair_set_remove(&world->pairs, ts_pair_key(c->shape_a, c->shape_b));
        ts_soa_remove_deferred(&s->table, removal, s->table.slot_of_id[contact]);
        c->alive = false;
        ts_id_pool_release(&world->contact_ids, contact);
    }
    int ranges = ts_soa_removal_plan(&s->table, removal);
    for (int r = 0; r < ranges; ++r) {
        int32_t moves = ts_soa_removal_moves(removal, r);
        removal_stage stage = {s, removal, r, moves, ts_block_size(moves, TS_REMOVAL_BLOCK)};
        ts_parallel_for(&world->parallel, removal_block, &stage, ts_block_count(moves, stage.block_size));
    }
    ts_soa_removal_clear(removal);
}

/* ---- API ---- */

ts_result ts_world_get_contact_events(ts_world_id id, ts_contact_events *events)
{
    TS_CHECK_NOT_NULL(events, __func__);
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    const ts_contact_events_buffer *e = &world->events;
    *events = (ts_contact_events){e->begin_published, e->begin_published_count, e->end_published,
                                  e->end_published_count};
    return TS_OK;
}

ts_result ts_body_get_contacts(ts_body_id id, ts_contact_data *contacts, int capacity, int *count)
{
    TS_CHECK_NOT_NULL(count, __func__);
    TS_TRY(ts_check_output_array(contacts, capacity, __func__, "contacts"));
    ts_world *world;
    ts_body *body = ts_body_lookup(id, &world, __func__);
    if (body == NULL) {
        return TS_ERROR_STALE_ID;
    }
    const ts_contact_store *s = &world->contact_store;
    int n = 0;
    for (int32_t key = body->contact_head; key != -1; key = world->contacts[key >> 1].edges[key & 1].next_key) {
        int32_t i = s->table.slot_of_id[key >> 1];
        if ((s->flags[i] & TS_CONTACT_TOUCHING) == 0) {
            continue;
        }
        if (n < capacity) {
            ts_contact_data *d = contacts + n;
            d->shape_a = shape_id(world, s->shape_a[i]);
            d->shape_b = shape_id(world, s->shape_b[i]);
            d->normal = ts_v3(s->nx[i], s->ny[i], s->nz[i]);
            d->point_count = s->point_count[i];
            ts_vec3 center_a = body_center(world, s->body_a[i]);
            for (int k = 0; k < 4; ++k) {
                int p = 4 * i + k;
                d->points[k] = k < d->point_count
                                   ? (ts_contact_point){ts_add(center_a, ts_v3(s->anchor_ax[p], s->anchor_ay[p],
                                                                               s->anchor_az[p])),
                                                        s->separation[p], s->feature[p], s->normal_impulse[p]}
                                   : (ts_contact_point){{0, 0, 0}, 0.0f, 0u, 0.0f};
            }
        }
        ++n;
    }
    *count = n;
    return TS_OK;
}

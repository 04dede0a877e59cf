// SPDX-License-Identifier: MIT
/* A solver context's joints and contacts (see solver_context.h): kept by
 * the program's keys, coloured as a world colours its own, and given back
 * with their impulses.
 *
 * Joints: the keys the call no longer lists go first (a world's program
 * destroys a joint before it makes its successor), then the new ones take
 * colours in the array's order; every listed joint takes the call's
 * settings (a moved frame makes the ball bundles fill afresh).
 *
 * Contacts, in the array's order: a new key makes a contact and takes a
 * colour; a known one keeps its colour, its friction impulses and its
 * points' impulses by feature id (ts_match_points: as a world's
 * narrowphase carries them over); one without points gives its colour up
 * and goes. After the array, the keys it no longer lists go. A world's step
 * does the same in its contact slot order: the contacts that began or
 * stopped touching, then the parted ones. */
#include "step/solver_context.h"

#include "base/array.h"
#include "collide/manifold_match.h"
#include "islands/contact_graph.h"
#include "islands/joint_graph.h"

#include <string.h>

/* The ids a call making at most `extra` new objects (keys it does not
 * know yet) may reach: a new object takes a freed id first (ts_id_pool_take,
 * and ids freed during the call only add to those), so only
 * `extra - free_count` of them can be past next_index. A call that lists
 * only known keys needs no new room: a repeated call allocates nothing. */
static int32_t id_bound(const ts_id_pool *pool, int32_t extra)
{
    int32_t past = extra - pool->free_count;
    return pool->next_index + (past > 0 ? past : 0);
}

/* Room for `extra` more objects of an id pool: records up to the ids they
 * may take, the pool's free stack (every id up to the bound may be freed),
 * the per-id key table. */
static bool reserve_ids(const ts_allocator *a, ts_id_pool *pool, void **records, int32_t *capacity, size_t size,
                        ts_keyed **keyed, int32_t *keyed_capacity, int32_t extra)
{
    int32_t ids = id_bound(pool, extra);
    int32_t old = *keyed_capacity;
    if (!ts_array_reserve(a, records, capacity, ids, size) ||
        !ts_array_reserve(a, (void **)keyed, keyed_capacity, ids, sizeof(ts_keyed)) ||
        !ts_id_pool_reserve(pool, a, ids)) {
        return false;
    }
    if (*keyed_capacity > old) { /* nothing new when no key was: *keyed may still be NULL */
        memset(*keyed + old, 0, (size_t)(*keyed_capacity - old) * sizeof(ts_keyed));
    }
    return true;
}

static void count_edges(ts_solver_context *c, int32_t body_a, int32_t body_b)
{
    ts_body_count_edge(&c->records.store, body_a, 1);
    ts_body_count_edge(&c->records.store, body_b, 1);
}

/* ---- joints ---- */

static void remove_joint(ts_solver_context *c, int32_t id)
{
    ts_records *r = &c->records;
    if (r->joints[id].color >= 0) {
        ts_joint_flush_impulses(&c->solver.joint_scratch, r); /* while the layout still holds it */
    }
    ts_joint_uncolor(r, &c->graph, id);
    ts_key_map_remove(&c->joint_keys, c->joint_keyed[id].key);
    r->joints[id].alive = false;
    r->joints[id].generation += 1;
    ts_id_pool_release(&r->joint_ids, id);
}

static ts_joint_axis_settings axis_of(const ts_solver_joint *j)
{
    float target = j->type == TS_JOINT_DISTANCE ? j->length : j->spring_target;
    return (ts_joint_axis_settings){j->enable_limit,  j->lower,        j->upper,
                                    j->enable_motor,  j->motor_speed,  j->max_motor_force,
                                    j->enable_spring, j->spring_hertz, j->spring_damping_ratio,
                                    target};
}

static bool same_frame(ts_transform a, ts_transform b) { return memcmp(&a, &b, sizeof a) == 0; }

static ts_transform unit_frame(ts_transform frame) { return (ts_transform){frame.p, ts_context_unit_quat(frame.q)}; }

/* A new joint: its record as a world's joint creation writes it, and a colour. */
static bool add_joint(ts_solver_context *c, const ts_solver_joint *sj, int32_t *out)
{
    ts_records *r = &c->records;
    bool fresh = r->joint_ids.free_count == 0;
    int32_t id = ts_id_pool_take(&r->joint_ids);
    uint32_t generation = fresh ? 0u : r->joints[id].generation;
    r->joints[id] = (ts_joint){
        .generation = generation,
        .alive = true,
        .type = sj->type,
        .edges = {{sj->body_a, -1, -1}, {sj->body_b, -1, -1}},
        .local_frame = {unit_frame(sj->local_frame_a), unit_frame(sj->local_frame_b)},
        .color = -1,
        .color_index = -1,
        .graph_body = {-1, -1},
    };
    c->joint_keyed[id].key = sj->key;
    ts_key_map_add(&c->joint_keys, sj->key, id);
    *out = id;
    return ts_joint_color(r, &c->graph, id);
}

bool ts_solver_context_take_joints(ts_solver_context *c, const ts_solver_joint *joints, int32_t count)
{
    ts_records *r = &c->records;
    int32_t unknown = 0; /* joints the call may make */
    for (int32_t k = 0; k < count; ++k) {
        unknown += ts_key_map_find(&c->joint_keys, joints[k].key) < 0;
    }
    if (!reserve_ids(&r->allocator, &r->joint_ids, (void **)&r->joints, &r->joint_capacity, sizeof(ts_joint),
                     &c->joint_keyed, &c->joint_keyed_capacity, unknown) ||
        !ts_key_map_reserve(&c->joint_keys, &r->allocator, c->joint_keys.count + count)) {
        return false;
    }
    /* the keys still listed, with the same type and bodies */
    for (int32_t k = 0; k < count; ++k) {
        int32_t id = ts_key_map_find(&c->joint_keys, joints[k].key);
        const ts_joint *j = id >= 0 ? r->joints + id : NULL;
        if (j != NULL && j->type == joints[k].type && j->edges[0].body == joints[k].body_a &&
            j->edges[1].body == joints[k].body_b) {
            c->joint_keyed[id].seen = c->call;
        }
    }
    for (int32_t id = 0; id < r->joint_ids.next_index; ++id) {
        if (r->joints[id].alive && c->joint_keyed[id].seen != c->call) {
            remove_joint(c, id);
        }
    }
    for (int32_t k = 0; k < count; ++k) {
        const ts_solver_joint *sj = joints + k;
        int32_t id = ts_key_map_find(&c->joint_keys, sj->key);
        if (id < 0 && !add_joint(c, sj, &id)) {
            return false;
        }
        c->joint_keyed[id].seen = c->call;
        ts_joint *j = r->joints + id;
        ts_transform fa = unit_frame(sj->local_frame_a), fb = unit_frame(sj->local_frame_b);
        if (!same_frame(j->local_frame[0], fa) || !same_frame(j->local_frame[1], fb)) {
            c->solver.joint_scratch.ball_step = -1; /* the ball bundles keep the anchors */
        }
        j->local_frame[0] = fa;
        j->local_frame[1] = fb;
        j->axis = axis_of(sj);
        j->length = sj->length;
        count_edges(c, sj->body_a, sj->body_b);
    }
    return true;
}

/* ---- contacts ---- */

static void remove_contact(ts_solver_context *c, int32_t id)
{
    ts_records *r = &c->records;
    ts_contact_uncolor(r, &c->graph, id);
    ts_contact_store_remove(&r->contact_store, r->contact_store.table.slot_of_id[id]);
    ts_key_map_remove(&c->contact_keys, c->contact_keyed[id].key);
    r->contacts[id].alive = false;
    ts_id_pool_release(&r->contact_ids, id);
}

static int32_t add_contact(ts_solver_context *c, const ts_solver_manifold *m)
{
    ts_records *r = &c->records;
    int32_t id = ts_id_pool_take(&r->contact_ids);
    r->contacts[id] = (ts_contact){
        .shape_a = -1,
        .shape_b = -1,
        .edges = {{m->body_a, -1, -1}, {m->body_b, -1, -1}},
        .color = -1,
        .color_index = -1,
        .graph_body = {-1, -1},
        .alive = true,
    };
    int32_t i = ts_contact_store_add(&r->contact_store, id, TS_CONTACT_RANGE_AWAKE); /* zeroed: no impulses */
    ts_contact_store *s = &r->contact_store;
    s->shape_a[i] = -1;
    s->shape_b[i] = -1;
    s->body_a[i] = m->body_a;
    s->body_b[i] = m->body_b;
    c->contact_keyed[id].key = m->key;
    ts_key_map_add(&c->contact_keys, m->key, id);
    return id;
}

/* The manifold into slot i; a known contact's points keep the impulses of
 * the last call's points by feature id (or nearness). */
static void write_manifold(ts_contact_store *s, int32_t i, const ts_solver_manifold *m)
{
    /* The same feature ids in the same order (a resting contact's usual
     * case): each point keeps its impulse where it is, as the matching
     * would give it (point k finds old point k first). */
    bool same = s->point_count[i] == m->point_count;
    for (int k = 0; k < m->point_count && same; ++k) {
        same = s->feature[4 * i + k] == m->points[k].feature_id;
    }
    ts_old_points old;
    old.count = same ? 0 : s->point_count[i];
    for (int k = 0; k < old.count; ++k) {
        int p = 4 * i + k;
        old.feature[k] = s->feature[p];
        old.anchor[k] = ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]);
        old.normal[k] = s->normal_impulse[p];
        old.taken[k] = false;
    }
    s->friction[i] = m->friction;
    s->restitution[i] = m->restitution;
    ts_vec3 n = ts_context_unit_vec3(m->normal);
    s->nx[i] = n.x;
    s->ny[i] = n.y;
    s->nz[i] = n.z;
    s->shift_x[i] = m->anchor_shift.x;
    s->shift_y[i] = m->anchor_shift.y;
    s->shift_z[i] = m->anchor_shift.z;
    s->point_count[i] = m->point_count;
    s->flags[i] = TS_CONTACT_TOUCHING;
    for (int k = 0; k < m->point_count; ++k) {
        int p = 4 * i + k;
        const ts_solver_point *sp = m->points + k;
        s->anchor_ax[p] = sp->anchor.x;
        s->anchor_ay[p] = sp->anchor.y;
        s->anchor_az[p] = sp->anchor.z;
        s->separation[p] = sp->separation;
        s->feature[p] = sp->feature_id;
    }
    if (!same) {
        ts_match_points(s, i, m->point_count, &old);
    }
}

bool ts_solver_context_take_manifolds(ts_solver_context *c, const ts_solver_manifold *manifolds, int32_t count)
{
    ts_records *r = &c->records;
    int32_t live = ts_id_pool_live_count(&r->contact_ids);
    int32_t unknown = 0; /* contacts the call may make: keys the check did not find */
    for (int32_t k = 0; k < count; ++k) {
        unknown += c->listed_ids[k] < 0;
    }
    if (!reserve_ids(&r->allocator, &r->contact_ids, (void **)&r->contacts, &r->contact_capacity,
                     sizeof(ts_contact), &c->contact_keyed, &c->contact_keyed_capacity, unknown) ||
        !ts_contact_store_reserve(&r->contact_store, &r->allocator, live + count,
                                  id_bound(&r->contact_ids, unknown)) ||
        !ts_key_map_reserve(&c->contact_keys, &r->allocator, live + count)) {
        return false;
    }
    ts_contact_store *s = &r->contact_store;
    for (int32_t k = 0; k < count; ++k) {
        const ts_solver_manifold *m = manifolds + k;
        int32_t id = c->listed_ids[k]; /* the check found the known ones */
        int32_t i = id >= 0 ? s->table.slot_of_id[id] : -1;
        if (id >= 0 && (s->body_a[i] != m->body_a || s->body_b[i] != m->body_b)) {
            remove_contact(c, id); /* the key names another pair now */
            id = -1;
        }
        c->listed_ids[k] = -1;
        if (m->point_count == 0) {
            if (id >= 0) {
                remove_contact(c, id); /* stopped touching */
            }
            continue;
        }
        bool fresh = id < 0;
        if (fresh) {
            id = add_contact(c, m);
        }
        c->contact_keyed[id].seen = c->call;
        c->listed_ids[k] = id;
        write_manifold(s, fresh ? s->table.slot_of_id[id] : i, m);
        if (fresh && ts_contact_color(r, &c->graph, id, "ts_solve_contacts") != TS_OK) {
            return false;
        }
        count_edges(c, m->body_a, m->body_b);
    }
    return true;
}

void ts_solver_context_drop_unlisted(ts_solver_context *c)
{
    ts_records *r = &c->records;
    for (int32_t id = 0; id < r->contact_ids.next_index; ++id) {
        if (r->contacts[id].alive && c->contact_keyed[id].seen != c->call) {
            remove_contact(c, id);
        }
    }
}

/* ---- back to the program ---- */

void ts_solver_context_give_constraints(ts_solver_context *c, ts_solver_manifold *manifolds, int32_t manifold_count,
                                        ts_solver_joint *joints, int32_t joint_count)
{
    ts_records *r = &c->records;
    const ts_contact_store *s = &r->contact_store;
    for (int32_t k = 0; k < manifold_count; ++k) {
        ts_solver_manifold *m = manifolds + k;
        int32_t id = c->listed_ids[k];
        int32_t i = id >= 0 ? s->table.slot_of_id[id] : -1;
        for (int p = 0; p < m->point_count; ++p) {
            m->points[p].normal_impulse = s->normal_impulse[4 * i + p];
        }
        m->tangent_impulse[0] = i >= 0 ? s->friction_impulse1[i] : 0.0f;
        m->tangent_impulse[1] = i >= 0 ? s->friction_impulse2[i] : 0.0f;
        m->twist_impulse = i >= 0 ? s->twist_impulse[i] : 0.0f;
    }
    if (joint_count > 0) {
        ts_joint_flush_impulses(&c->solver.joint_scratch, r); /* the ball bundles keep theirs */
    }
    for (int32_t k = 0; k < joint_count; ++k) {
        const ts_joint *j = r->joints + ts_key_map_find(&c->joint_keys, joints[k].key);
        joints[k].reaction_force = j->reaction_force;
        joints[k].reaction_torque = j->reaction_torque;
    }
}

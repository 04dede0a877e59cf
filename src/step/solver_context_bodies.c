// SPDX-License-Identifier: MIT
/* A solver context's bodies (see solver_context.h): the program's array
 * into the body store and back.
 *
 * Body k is body id index k. Its record holds what the layers above the
 * store read: the type (the graph colours count dynamic bodies only) and
 * the mass data (the joints turn their frames from the body's own frame
 * into the principal one with local_center and local_rotation). The store's
 * columns take the pose, velocities, forces and the motion columns as a
 * world writes them (api/body_mass.c: inverses computed the same way, zero
 * unless dynamic), so the kernels read the same bits as in a world.
 *
 * The ball joints keep each body's pose across steps (solver/ball_joint.h)
 * and the joint layout depends on the slots and masses: a pose that is not
 * bitwise the one the last call wrote back forces the ball bundles' full
 * fill, as moving a body through the API does, and a changed mass bumps the
 * store's revision, as a world's mass update does. */
#include "step/solver_context.h"

#include "base/array.h"
#include "islands/contact_graph.h"
#include "islands/joint_graph.h"

#include <string.h>

/* Lays the store out again: dynamic and kinematic bodies in the awake
 * range, in index order, then the static ones. */
static void lay_out(ts_solver_context *c, const ts_solver_body *bodies, int32_t count)
{
    ts_body_store *s = &c->records.store;
    while (s->table.count > 0) {
        ts_body_store_remove(s, s->table.count - 1); /* the last slot: nothing moves */
    }
    for (int32_t k = 0; k < count; ++k) {
        if (bodies[k].type != TS_BODY_STATIC) {
            ts_body_store_add(s, k, TS_RANGE_AWAKE);
        }
    }
    for (int32_t k = 0; k < count; ++k) {
        if (bodies[k].type == TS_BODY_STATIC) {
            ts_body_store_add(s, k, TS_RANGE_STATIC);
        }
    }
}

/* Contacts and joints of a body whose type changed hold colour bits by its
 * old type: they go (and come back as new if the call lists them), as a
 * world remakes a body's contacts when its type changes. */
static void drop_retyped(ts_solver_context *c, int32_t count)
{
    ts_records *r = &c->records;
    for (int32_t id = 0; id < r->contact_ids.next_index; ++id) {
        ts_contact *contact = r->contacts + id;
        for (int side = 0; side < 2 && contact->alive; ++side) {
            int32_t body = contact->edges[side].body;
            bool dynamic = body < count && r->bodies[body].type == TS_BODY_DYNAMIC;
            if ((contact->graph_body[side] >= 0) != dynamic || body >= count) {
                ts_contact_uncolor(r, &c->graph, id);
                ts_contact_store_remove(&r->contact_store, r->contact_store.table.slot_of_id[id]);
                ts_key_map_remove(&c->contact_keys, c->contact_keyed[id].key);
                contact->alive = false;
                ts_id_pool_release(&r->contact_ids, id);
            }
        }
    }
    for (int32_t id = 0; id < r->joint_ids.next_index; ++id) {
        ts_joint *j = r->joints + id;
        for (int side = 0; side < 2 && j->alive; ++side) {
            int32_t body = j->edges[side].body;
            bool dynamic = body < count && r->bodies[body].type == TS_BODY_DYNAMIC;
            if ((j->graph_body[side] >= 0) != dynamic || body >= count) {
                ts_joint_flush_impulses(&c->solver.joint_scratch, r);
                ts_joint_uncolor(r, &c->graph, id);
                ts_key_map_remove(&c->joint_keys, c->joint_keyed[id].key);
                j->alive = false;
                ts_id_pool_release(&r->joint_ids, id);
            }
        }
    }
}

static bool same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The motion columns of slot i (api/body_mass.c's write_motion_columns);
 * whether the masses changed. */
static bool write_motion(ts_body_store *s, int32_t i, const ts_solver_body *b)
{
    bool dynamic = b->type == TS_BODY_DYNAMIC;
    float inv_mass = dynamic ? 1.0f / b->mass : 0.0f;
    ts_vec3 inertia = dynamic ? b->inertia : (ts_vec3){0.0f, 0.0f, 0.0f};
    ts_vec3 inv_inertia = dynamic ? (ts_vec3){1.0f / inertia.x, 1.0f / inertia.y, 1.0f / inertia.z}
                                  : (ts_vec3){0.0f, 0.0f, 0.0f};
    bool changed = !same_bits(s->inv_mass[i], inv_mass) || !same_bits(s->ix[i], inertia.x) ||
                   !same_bits(s->iy[i], inertia.y) || !same_bits(s->iz[i], inertia.z);
    s->inv_mass[i] = inv_mass;
    s->ix[i] = inertia.x;
    s->iy[i] = inertia.y;
    s->iz[i] = inertia.z;
    s->inv_ix[i] = inv_inertia.x;
    s->inv_iy[i] = inv_inertia.y;
    s->inv_iz[i] = inv_inertia.z;
    s->linear_damping[i] = dynamic ? b->linear_damping : 0.0f;
    s->angular_damping[i] = dynamic ? b->angular_damping : 0.0f;
    s->gravity_scale[i] = dynamic ? b->gravity_scale : 0.0f;
    return changed;
}

/* The pose, velocities and forces of slot i; whether the pose moved. */
static bool write_state(ts_body_store *s, int32_t i, const ts_solver_body *b, bool *forces)
{
    ts_vec3 p = b->center;
    ts_quat q = ts_context_unit_quat(b->rotation);
    bool moved = !same_bits(s->px[i], p.x) || !same_bits(s->py[i], p.y) || !same_bits(s->pz[i], p.z) ||
                 !same_bits(s->qx[i], q.x) || !same_bits(s->qy[i], q.y) || !same_bits(s->qz[i], q.z) ||
                 !same_bits(s->qw[i], q.w);
    s->px[i] = p.x;
    s->py[i] = p.y;
    s->pz[i] = p.z;
    s->qx[i] = q.x;
    s->qy[i] = q.y;
    s->qz[i] = q.z;
    s->qw[i] = q.w;
    s->vx[i] = b->linear_velocity.x;
    s->vy[i] = b->linear_velocity.y;
    s->vz[i] = b->linear_velocity.z;
    s->wx[i] = b->angular_velocity.x;
    s->wy[i] = b->angular_velocity.y;
    s->wz[i] = b->angular_velocity.z;
    bool dynamic = b->type == TS_BODY_DYNAMIC;
    ts_vec3 f = dynamic ? b->force : (ts_vec3){0.0f, 0.0f, 0.0f};
    ts_vec3 t = dynamic ? b->torque : (ts_vec3){0.0f, 0.0f, 0.0f};
    s->fx[i] = f.x;
    s->fy[i] = f.y;
    s->fz[i] = f.z;
    s->tx[i] = t.x;
    s->ty[i] = t.y;
    s->tz[i] = t.z;
    *forces |= f.x != 0.0f || f.y != 0.0f || f.z != 0.0f || t.x != 0.0f || t.y != 0.0f || t.z != 0.0f;
    s->edges[i] = 0; /* counted by the joints and manifolds that follow */
    s->sleep_threshold[i] = -1.0f;
    return moved;
}

bool ts_solver_context_take_bodies(ts_solver_context *c, const ts_solver_body *bodies, int32_t count)
{
    ts_records *r = &c->records;
    if (!ts_array_reserve(&r->allocator, (void **)&r->bodies, &r->body_capacity, count, sizeof(ts_body)) ||
        !ts_body_store_reserve(&r->store, &r->allocator, count, count)) {
        return false;
    }
    bool layout = count != c->body_count, retyped = count < c->body_count;
    for (int32_t k = 0; k < count; ++k) {
        bool known = k < c->body_count;
        if (!known || r->bodies[k].type != bodies[k].type) {
            layout = true;
            retyped |= known;
        }
        const ts_solver_body *b = bodies + k;
        r->bodies[k] = (ts_body){
            .alive = true,
            .type = b->type,
            .first_shape = -1,
            .last_shape = -1,
            .mass_data = {b->type == TS_BODY_DYNAMIC ? b->mass : 0.0f, b->local_center, b->inertia,
                          ts_context_unit_quat(b->local_rotation)},
            .linear_damping = b->linear_damping,
            .angular_damping = b->angular_damping,
            .gravity_scale = b->gravity_scale,
            .contact_head = -1,
            .island = -1,
            .island_prev = -1,
            .island_next = -1,
            .joint_head = -1,
        };
    }
    if (retyped) {
        drop_retyped(c, count);
    }
    if (layout) {
        lay_out(c, bodies, count); /* new slots: the revision moves, the joints lay out again */
    }
    c->body_count = count;
    ts_body_store *s = &r->store;
    bool moved = false, masses = false, forces = false;
    for (int32_t k = 0; k < count; ++k) {
        int32_t i = s->table.slot_of_id[k];
        masses |= write_motion(s, i, bodies + k);
        moved |= write_state(s, i, bodies + k, &forces);
    }
    if (masses && !layout) {
        s->table.revision += 1;
    }
    if (moved || layout) {
        c->solver.joint_scratch.ball_step = -1; /* the ball bundles' kept poses are not these */
    }
    c->solver.forces_pending = forces;
    return true;
}

void ts_solver_context_give_bodies(const ts_solver_context *c, ts_solver_body *bodies, int32_t count)
{
    const ts_body_store *s = &c->records.store;
    for (int32_t k = 0; k < count; ++k) {
        ts_solver_body *b = bodies + k;
        if (b->type == TS_BODY_STATIC) {
            continue;
        }
        int32_t i = s->table.slot_of_id[k];
        b->center = (ts_vec3){s->px[i], s->py[i], s->pz[i]};
        b->rotation = (ts_quat){s->qx[i], s->qy[i], s->qz[i], s->qw[i]};
        b->linear_velocity = (ts_vec3){s->vx[i], s->vy[i], s->vz[i]};
        b->angular_velocity = (ts_vec3){s->wx[i], s->wy[i], s->wz[i]};
    }
}

// SPDX-License-Identifier: MIT
/* What a world's solver works on, read out as the solver-only entry's
 * arrays (include/tessera/solver.h), for the test that a context gives a
 * world's result bit for bit (test_solver_context.c) and for the bench of
 * that entry (bench/solver_only_bench.c). Internal: it reads the world's
 * stores.
 *
 *   capture_bodies     before a step: every body in its simulation frame
 *   capture_order      before a step: the contact ids in slot order
 *   capture_manifolds  after the step: the manifolds its narrowphase made,
 *                      in the order its step coloured them (the old
 *                      contacts in their slot order, then the new ones in
 *                      pair order), those that stopped touching as
 *                      manifolds without points
 *   capture_joints     the joints, key = joint id
 *
 * The world must not sleep (a sleeping island's contacts leave the store's
 * awake range) and its ids must not be reused within the capture. */
#ifndef TS_WORLD_CAPTURE_H
#define TS_WORLD_CAPTURE_H

#include <stdlib.h>
#include <string.h>

#include "api/world.h"
#include "tessera/tessera.h"

static inline ts_world *capture_world(ts_world_id id) { return ts_world_lookup(id, "capture"); }

/* Body k of the array is body id index k (the world made its bodies in
 * order and destroyed none). */
static inline int capture_bodies(ts_world_id id, ts_solver_body *out)
{
    ts_world *w = capture_world(id);
    const ts_records *r = &w->records;
    const ts_body_store *s = &r->store;
    int n = r->body_ids.next_index;
    for (int k = 0; k < n; ++k) {
        const ts_body *b = r->bodies + k;
        int32_t i = s->table.slot_of_id[k];
        ts_solver_body *o = out + k;
        *o = ts_default_solver_body();
        o->type = b->type;
        o->center = (ts_vec3){s->px[i], s->py[i], s->pz[i]};
        o->rotation = (ts_quat){s->qx[i], s->qy[i], s->qz[i], s->qw[i]};
        o->linear_velocity = (ts_vec3){s->vx[i], s->vy[i], s->vz[i]};
        o->angular_velocity = (ts_vec3){s->wx[i], s->wy[i], s->wz[i]};
        o->mass = b->mass_data.mass;
        o->inertia = b->mass_data.principal_inertia;
        o->force = (ts_vec3){s->fx[i], s->fy[i], s->fz[i]};
        o->torque = (ts_vec3){s->tx[i], s->ty[i], s->tz[i]};
        o->gravity_scale = b->gravity_scale;
        o->linear_damping = b->linear_damping;
        o->angular_damping = b->angular_damping;
        o->local_center = b->mass_data.center;
        o->local_rotation = b->mass_data.principal_rotation;
    }
    return n;
}

/* The contact ids in slot order; returns their count. */
static inline int capture_order(ts_world_id id, int32_t *order)
{
    const ts_contact_store *s = &capture_world(id)->records.contact_store;
    for (int32_t i = 0; i < s->table.count; ++i) {
        order[i] = s->table.id_of_slot[i];
    }
    return s->table.count;
}

static inline uint64_t capture_pair_key(const ts_contact *c)
{
    return (uint64_t)(uint32_t)c->shape_a << 32 | (uint32_t)c->shape_b;
}

typedef struct capture_fresh {
    uint64_t key;
    int32_t id;
} capture_fresh;

static inline int capture_compare_keys(const void *a, const void *b)
{
    uint64_t x = ((const capture_fresh *)a)->key, y = ((const capture_fresh *)b)->key;
    return x < y ? -1 : x > y;
}

static inline void capture_manifold(const ts_records *r, int32_t id, ts_solver_manifold *m)
{
    const ts_contact_store *s = &r->contact_store;
    int32_t i = s->table.slot_of_id[id];
    *m = ts_default_solver_manifold();
    m->key = capture_pair_key(r->contacts + id);
    m->body_a = s->body_a[i];
    m->body_b = s->body_b[i];
    m->normal = (ts_vec3){s->nx[i], s->ny[i], s->nz[i]};
    m->anchor_shift = (ts_vec3){s->shift_x[i], s->shift_y[i], s->shift_z[i]};
    m->friction = s->friction[i];
    m->restitution = s->restitution[i];
    m->point_count = s->point_count[i];
    for (int k = 0; k < m->point_count; ++k) {
        int p = 4 * i + k;
        m->points[k].anchor = (ts_vec3){s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]};
        m->points[k].separation = s->separation[p];
        m->points[k].feature_id = s->feature[p];
    }
}

/* The touching contacts and those that stopped touching in the last step,
 * in the order the step coloured them (see above); order/order_count as
 * capture_order gave them before the step. ids (may be NULL) receives each
 * manifold's contact id. Returns the count. */
static inline int capture_manifolds(ts_world_id id, const int32_t *order, int order_count, ts_solver_manifold *out,
                                    int32_t *ids)
{
    const ts_records *r = &capture_world(id)->records;
    const ts_contact_store *s = &r->contact_store;
    int32_t max_id = r->contact_ids.next_index;
    char *old = calloc((size_t)max_id + 1, 1);
    capture_fresh *fresh = malloc(((size_t)s->table.count + 1) * sizeof *fresh);
    int listed = 0;
    for (int k = 0; k < order_count; ++k) {
        int32_t c = order[k];
        old[c] = 1;
        if (c < max_id && r->contacts[c].alive) {
            int32_t i = s->table.slot_of_id[c];
            if (s->point_count[i] > 0 || (s->flags[i] & TS_CONTACT_STOPPED) != 0) {
                if (ids != NULL) {
                    ids[listed] = c;
                }
                capture_manifold(r, c, out + listed++);
            }
        }
    }
    /* the new contacts were made in pair order */
    int fresh_count = 0;
    for (int32_t i = 0; i < s->table.count; ++i) {
        int32_t c = s->table.id_of_slot[i];
        if (!old[c] && s->point_count[i] > 0) {
            fresh[fresh_count++] = (capture_fresh){capture_pair_key(r->contacts + c), c};
        }
    }
    qsort(fresh, (size_t)fresh_count, sizeof *fresh, capture_compare_keys);
    for (int k = 0; k < fresh_count; ++k) {
        if (ids != NULL) {
            ids[listed] = fresh[k].id;
        }
        capture_manifold(r, fresh[k].id, out + listed++);
    }
    free(old);
    free(fresh);
    return listed;
}

/* Every live joint in id order, key = its id. */
static inline int capture_joints(ts_world_id id, ts_solver_joint *out)
{
    const ts_records *r = &capture_world(id)->records;
    int n = 0;
    for (int32_t k = 0; k < r->joint_ids.next_index; ++k) {
        const ts_joint *j = r->joints + k;
        if (!j->alive) {
            continue;
        }
        ts_solver_joint *o = out + n++;
        *o = ts_default_solver_joint();
        o->key = (uint64_t)k;
        o->type = j->type;
        o->body_a = j->edges[0].body;
        o->body_b = j->edges[1].body;
        o->local_frame_a = j->local_frame[0];
        o->local_frame_b = j->local_frame[1];
        o->length = j->length;
        o->enable_limit = j->axis.enable_limit;
        o->lower = j->axis.lower;
        o->upper = j->axis.upper;
        o->enable_motor = j->axis.enable_motor;
        o->motor_speed = j->axis.motor_speed;
        o->max_motor_force = j->axis.max_motor_force;
        o->enable_spring = j->axis.enable_spring;
        o->spring_hertz = j->axis.spring_hertz;
        o->spring_damping_ratio = j->axis.spring_damping_ratio;
        o->spring_target = j->type == TS_JOINT_DISTANCE ? 0.0f : j->axis.target;
    }
    return n;
}

#endif

/* The records of a world: one per body, shape, contact and joint id, with
 * their id pools, beside the SoA stores of what the step reads per body and
 * per contact (body_store.h, contact_store.h), and the allocator they all
 * grow through. Every layer above reads them; the id -> slot lookups are the
 * stores' tables (slot_of_id). A record holds what the step does not read
 * per substep: settings, list links, the shape's geometry, and the fields
 * that the layers above keep in it (a contact's colour, a body's island). */
#ifndef TS_RECORDS_H
#define TS_RECORDS_H

#include "base/aabb.h"
#include "base/core.h"
#include "base/math3.h"
#include "soa/body_store.h"
#include "soa/contact_store.h"
#include "soa/id_pool.h"
#include "tessera/constraint.h"
#include "tessera/joint.h"

/* Per-body data that the step does not read: the id table entry. */
typedef struct ts_body {
    uint32_t generation; /* bumped on destroy, so old ids go stale */
    bool alive;
    ts_body_type type;
    int32_t first_shape; /* shape list in creation order, -1 when empty */
    int32_t last_shape;
    int32_t shape_count;
    ts_mass_data mass_data; /* what ts_body_get_mass_data reports */
    float linear_damping;  /* the user's settings; the store holds what the step uses */
    float angular_damping;
    float gravity_scale;
    bool enable_sleep;
    float sleep_threshold; /* the user's; the store's column is -1 while sleep is off */
    void *user_data;
    int32_t contact_head; /* edge key (contact << 1 | side) of the first contact, -1 when none */
    int32_t contact_count;
    int32_t island;                   /* island id, -1 unless dynamic (islands/island.h) */
    int32_t island_prev, island_next; /* neighbours in the island's body list */
    int32_t joint_head; /* edge key (joint << 1 | side) of the first joint, -1 when none */
    int32_t joint_count;
    uint32_t motion_locks; /* the user's TS_LOCK_* bits; the store's locks column holds those in effect */
    bool faulted; /* taken out of the simulation after its state overflowed (api/body_fault.c) */
} ts_body;

/* One side of a contact in a body's contact list. Keys are contact << 1 | side. */
typedef struct ts_contact_edge {
    int32_t body;
    int32_t prev_key;
    int32_t next_key;
} ts_contact_edge;

/* Per-contact data the step does not read (the SoA store holds the rest). */
typedef struct ts_contact {
    int32_t shape_a, shape_b; /* shape_a < shape_b */
    ts_contact_edge edges[2]; /* 0: body of shape_a, 1: body of shape_b */
    int color;                /* graph colour while touching, -1 otherwise */
    int32_t color_index;      /* place in the colour's list */
    int32_t graph_body[2];    /* the bodies that hold colour bits (dynamic ones), -1 for none */
    bool linked;              /* touching between two dynamic bodies: joins their islands */
    bool alive;
} ts_contact;

typedef struct ts_shape {
    uint32_t generation;
    bool alive;
    ts_shape_type type;
    int32_t body;
    int32_t prev, next; /* neighbours in the body's shape list */
    union {
        ts_sphere sphere;
        ts_box box;
        ts_capsule capsule;
        /* hulls, meshes, heightfields: a block of the collide layer's
         * geometry store (collide/geometry_store.h), shared by reference,
         * and the farthest point from the shape origin */
        struct {
            const struct ts_hull_data *data;
            float radius;
        } hull;
        struct {
            const struct ts_mesh_data *data;
            float radius;
        } mesh;
        struct {
            const struct ts_heightfield_data *data;
            float radius;
        } heightfield;
    } geometry;
    ts_transform local;     /* in the body frame */
    ts_transform sim_local; /* in the body's simulation frame (centre of mass, principal axes) */
    ts_aabb fat_aabb;       /* the bounds in the broadphase tree */
    int32_t proxy;          /* proxy in broadphase tree `tree`, or -1 */
    uint8_t tree;           /* TS_TREE_STATIC or TS_TREE_MOVABLE (collide/broadphase.h) */
    bool enlarged;          /* the fat AABB grew in this step's update: the proxy must move */
    bool in_move_buffer;    /* queued to find new pairs at the next step */
    bool is_sensor;         /* no contacts, no mass, not seen by queries (overlap events: not yet) */
    float density;
    float friction;
    float restitution;
    float rolling_resistance; /* >= 0: see collide/rolling_resistance.h */
    ts_filter filter;
    void *user_data;
} ts_shape;

/* One side of a joint in a body's joint list. Keys are joint << 1 | side. */
typedef struct ts_joint_edge {
    int32_t body;
    int32_t prev_key;
    int32_t next_key;
} ts_joint_edge;

/* A 1-DOF row's settings: hinge angle, prismatic translation, distance. */
typedef struct ts_joint_axis_settings {
    bool enable_limit;
    float lower, upper;
    bool enable_motor;
    float motor_speed, max_motor_force;
    bool enable_spring;
    float spring_hertz, spring_damping_ratio;
    float target; /* spring rest value (distance: the length) */
} ts_joint_axis_settings;

/* Impulses accumulated over a substep, kept for the next step's warm start. */
typedef struct ts_joint_impulses {
    ts_vec3 linear;  /* ball/hinge/fixed: point impulse (world); prismatic: x, y = across the axis */
    ts_vec3 angular; /* fixed/prismatic: angular impulse (world); hinge: x, y = swing rows */
    float lower, upper, motor, spring;
} ts_joint_impulses;

/* What a custom constraint (TS_JOINT_CUSTOM, tessera/constraint.h) keeps
 * in place of the axis settings: its callback and rows. Its bodies are the
 * joint's edges; a one-body constraint has edges[1].body == edges[0].body
 * and only side 0 in its body's list. Its rows' impulses of the last
 * substep are kept in ts_joint.impulses (row i: linear x, y, z, then
 * angular x, y, z), so that a switch of solver clears them too. */
typedef struct ts_joint_custom {
    ts_constraint_fn *evaluate;
    void *context;
    int32_t row_count;
    bool dropped;  /* a callback gave a bad row: the solver skips it for good */
    bool reported; /* the step reported the drop (ts_world_step's error) */
} ts_joint_custom;

/* The joint's cold storage, read once per step by the prepare stage
 * (solver/joint_prepare.c), which packs the hot data of each graph
 * colour's joints into SoA bundles of TS_W lanes for the wide kernels. */
typedef struct ts_joint {
    uint32_t generation;
    bool alive;
    ts_joint_type type;
    ts_joint_edge edges[2]; /* 0: body A, 1: body B */
    ts_transform local_frame[2]; /* in the bodies' origin frames */
    union {
        ts_joint_axis_settings axis; /* every type but the custom constraint */
        ts_joint_custom custom;      /* TS_JOINT_CUSTOM */
    };
    float length; /* distance joints: rod / rest length */
    bool collide_connected;
    void *user_data;
    int color;             /* graph colour, -1 when neither body is dynamic */
    int32_t color_index;   /* place in the colour's joint list */
    int32_t graph_body[2]; /* the bodies that hold colour bits (dynamic ones), -1 for none */
    ts_joint_impulses impulses;
    ts_vec3 reaction_force;  /* on body B over the last step, N */
    ts_vec3 reaction_torque; /* N m */
} ts_joint;

typedef struct ts_records {
    ts_allocator allocator;   /* the world's: every array of the world grows through it */
    uint16_t world_index;     /* the world's slot and generation, for the ids it hands out */
    uint16_t world_generation;

    ts_body *bodies; /* indexed by body id index */
    int32_t body_capacity;
    ts_id_pool body_ids;
    ts_body_store store;

    ts_shape *shapes; /* indexed by shape id index */
    int32_t shape_capacity;
    ts_id_pool shape_ids;
    /* some shape was given rolling resistance > 0 (never cleared): until
     * then the solver does not read the contacts' rolling columns */
    bool rolling;

    ts_contact *contacts; /* indexed by contact id */
    int32_t contact_capacity;
    ts_id_pool contact_ids;
    ts_contact_store contact_store;

    ts_joint *joints; /* indexed by joint id index */
    int32_t joint_capacity;
    ts_id_pool joint_ids;
} ts_records;

static inline ts_body_id ts_body_id_of(const ts_records *records, int32_t index)
{
    return (ts_body_id){index + 1, records->world_index, records->world_generation,
                        records->bodies[index].generation};
}

/* The pose the user sees of body `index` (its origin), from the
 * simulation pose in its store slot: origin rotation = simulation rotation
 * * conj(principal rotation); origin = centre - origin rotation * local
 * centre. */
static inline ts_transform ts_records_origin_transform(const ts_records *records, int32_t index, int32_t slot)
{
    const ts_body_store *s = &records->store;
    const ts_mass_data *md = &records->bodies[index].mass_data;
    ts_quat q = ts_quat_mul((ts_quat){s->qx[slot], s->qy[slot], s->qz[slot], s->qw[slot]},
                            ts_quat_conj(md->principal_rotation));
    ts_vec3 center = ts_v3(s->px[slot], s->py[slot], s->pz[slot]);
    return (ts_transform){ts_sub(center, ts_rotate(q, md->center)), q};
}

static inline ts_shape_id ts_shape_id_of(const ts_records *records, int32_t index)
{
    return (ts_shape_id){index + 1, records->world_index, records->world_generation,
                         records->shapes[index].generation};
}

static inline ts_joint_id ts_joint_id_of(const ts_records *records, int32_t index)
{
    return (ts_joint_id){index + 1, records->world_index, records->world_generation,
                         records->joints[index].generation};
}

#endif

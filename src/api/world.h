/* The world: owns every body, shape and array of one simulation, and the
 * table of world slots that turns a ts_world_id into a world. */
#ifndef TS_WORLD_H
#define TS_WORLD_H

#include "api/joint.h"
#include "base/core.h"
#include "base/parallel.h"
#include "collide/broadphase.h"
#include "collide/pair_set.h"
#include "islands/graph.h"
#include "islands/island.h"
#include "soa/body_store.h"
#include "soa/contact_store.h"
#include "soa/id_pool.h"
#include "soa/soa_removal.h"
#include "solver/joint_scratch.h"
#include "solver/solver.h"

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

typedef struct ts_contact_events_buffer {
    ts_contact_begin_event *begin_pending, *begin_published;
    int32_t begin_pending_count, begin_published_count, begin_pending_capacity, begin_published_capacity;
    ts_contact_end_event *end_pending, *end_published;
    int32_t end_pending_count, end_published_count, end_pending_capacity, end_published_capacity;
} ts_contact_events_buffer;

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
    } geometry;
    ts_transform local;     /* in the body frame */
    ts_transform sim_local; /* in the body's simulation frame (centre of mass, principal axes) */
    ts_aabb fat_aabb;       /* the bounds in the broadphase tree */
    int32_t proxy;          /* proxy in broadphase tree `tree`, or -1 */
    uint8_t tree;           /* TS_TREE_STATIC or TS_TREE_MOVABLE */
    bool enlarged;          /* the fat AABB grew in this step's update: the proxy must move */
    bool in_move_buffer;    /* queued to find new pairs at the next step */
    float density;
    float friction;
    float restitution;
    ts_filter filter;
    void *user_data;
} ts_shape;

typedef struct ts_world {
    uint16_t index;
    uint16_t generation;
    ts_allocator allocator;
    ts_vec3 gravity;
    int substeps;
    int thread_count; /* workers of a step (base/parallel.h) */
    ts_enqueue_task_fn *enqueue_task; /* NULL: OpenMP */
    ts_finish_task_fn *finish_task;
    void *user_task_context;
    int simd_width;
    ts_solver_type solver;
    void *user_data;
    float contact_hertz;
    float contact_damping_ratio;
    float contact_push_speed;
    float restitution_threshold;
    bool enable_warm_starting;
    float joint_hertz;
    float joint_damping_ratio;

    ts_body *bodies; /* indexed by body id index */
    int32_t body_capacity;
    ts_id_pool body_ids;
    ts_body_store store;

    ts_shape *shapes; /* indexed by shape id index */
    int32_t shape_capacity;
    ts_id_pool shape_ids;

    ts_broadphase broadphase;
    ts_contact *contacts; /* indexed by contact id */
    int32_t contact_capacity;
    ts_id_pool contact_ids;
    ts_contact_store contact_store;
    ts_pair_set pairs; /* shape pair -> contact id */
    ts_constraint_graph graph; /* colours of the touching contacts */
    ts_island_set islands;     /* persistent islands (islands/island.h) */
    bool enable_sleep;         /* islands at rest sleep (islands/sleep.h) */
    int32_t *doomed_contacts; /* scratch: contacts to destroy after the narrowphase */
    int32_t doomed_capacity;
    int32_t *contact_news;       /* scratch of the narrowphase: per block, its slots that began, ended or parted */
    int32_t contact_news_capacity;
    int32_t *contact_news_count; /* per narrowphase block: how many */
    int32_t contact_news_count_capacity;
    ts_soa_removal contact_removal; /* scratch: the parted contacts leave the store in one batch */

    /* Events: collected while stepping (and by destroy calls between steps),
     * published sorted at the end of the next step. */
    ts_contact_events_buffer events;

    ts_joint *joints; /* indexed by joint id index (joint.h) */
    int32_t joint_capacity;
    ts_id_pool joint_ids;
    ts_joint_scratch joint_scratch; /* joint bundles of a step (solver/joint_scratch.h) */

    ts_solver_scratch solver_scratch; /* body states and constraint bundles of a step */
    ts_parallel parallel;             /* the step's workers and stages */

    float step_dt; /* dt of the step in progress */
    /* Some awake body's force or torque column may be non-zero (set by
     * ts_body_apply_force and the like, which wake the body): the soft
     * step's write-back clears them, and skips that otherwise. */
    bool forces_pending;
    int step_count;
    ts_step_profile profile;
    int32_t narrowphase_pairs; /* contacts the last narrowphase updated */
} ts_world;

/* The world of an id, or NULL after recording an error for `function`. */
ts_world *ts_world_lookup(ts_world_id id, const char *function);

/* The world of a body or shape id (world slot and generation), or NULL after
 * recording TS_ERROR_STALE_ID. */
ts_world *ts_world_lookup_slot(uint16_t world0, uint16_t world_generation, const char *function);

static inline ts_world_id ts_world_id_of(const ts_world *world)
{
    return (ts_world_id){(uint16_t)(world->index + 1), world->generation};
}

/* The cores OpenMP sees (at most TS_MAX_THREADS), or 1 without OpenMP:
 * what threads = 0 asks for. */
int ts_available_threads(void);

/* Releases every body, shape, contact and joint array (the world struct itself stays). */
void ts_world_free_bodies_and_shapes(ts_world *world);

#endif

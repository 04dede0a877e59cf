/* The world: owns every body, shape and array of one simulation, and the
 * table of world slots that turns a ts_world_id into a world. */
#ifndef TS_WORLD_H
#define TS_WORLD_H

#include "core.h"
#include "soa/body_store.h"
#include "soa/id_pool.h"

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
    void *user_data;
} ts_body;

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
    ts_transform local; /* in the body frame */
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
    int thread_count;
    ts_solver_type solver;
    void *user_data;

    ts_body *bodies; /* indexed by body id index */
    int32_t body_capacity;
    ts_id_pool body_ids;
    ts_body_store store;

    ts_shape *shapes; /* indexed by shape id index */
    int32_t shape_capacity;
    ts_id_pool shape_ids;

    int step_count;
    ts_step_profile profile;
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

/* Releases every body and shape array (the world struct itself stays). */
void ts_world_free_bodies_and_shapes(ts_world *world);

#endif

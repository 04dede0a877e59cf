/* The world: every layer's part of one simulation in one struct. The step
 * (step.c) runs the layers over it in order; the API (src/api/) reads and
 * changes it between steps. The layers below see only their own parts,
 * handed to them by pointer. */
#ifndef TS_WORLD_STATE_H
#define TS_WORLD_STATE_H

#include "base/core.h"
#include "base/parallel.h"
#include "collide/collision.h"
#include "collide/ray_batch.h"
#include "islands/graph.h"
#include "islands/island.h"
#include "soa/records.h"
#include "tessera/body_moves.h"
#include "tessera/sensor.h"
#include "solver/solver.h"
#include "step/body_order.h"

typedef struct ts_world {
    ts_records records;        /* soa: bodies, shapes, contacts, joints, their stores, the allocator */
    ts_collision collision;    /* collide: broadphase, pair map, events, the narrowphase's lists */
    ts_island_set islands;     /* islands: persistent islands (islands/island.h) */
    ts_constraint_graph graph; /* islands: colours of the touching contacts and the joints */
    ts_solver solver;          /* solver: settings, scratch */
    ts_parallel parallel;      /* base: the step's workers and stages */
    ts_body_order body_order;  /* step: the awake bodies' storage order kept close to space */
    /* ts_world_cast_rays (api/query.c): 1 while a batch holds the workers
     * and the memory of the wide tree, which is kept between batches */
    _Atomic int query_workers;
    ts_ray_bvh ray_bvh;
    /* sensors (api/sensor.c): overlaps of the last step and this step's
     * events, pairs sorted by (sensor, visitor) index */
    struct {
        bool any; /* a sensor shape was ever made: else no pass at all */
        ts_sensor_event *pairs, *old_pairs, *begin, *end;
        int32_t pair_count, old_count, begin_count, end_count;
        int32_t pair_capacity, old_capacity, begin_capacity, end_capacity;
    } sensors;
    /* body move events (api/body_moves.c): while on, the step's finish
     * writes each awake slot's entry and the sleep stage marks those that
     * fell asleep (step.c) */
    struct {
        bool on;
        ts_body_move_event *events; /* by the step's awake slot */
        int32_t count, capacity;
    } moves;

    int thread_count;  /* workers of a step (base/parallel.h) */
    bool enable_sleep; /* islands at rest sleep (islands/sleep.h) */
    bool planar;       /* every dynamic body locked to its x-y plane (ts_world_def.planar) */
    void *user_data;
    float step_dt; /* dt of the step in progress */
    int step_count;
    ts_step_profile profile;
} ts_world;

static inline ts_world_id ts_world_id_of(const ts_world *world)
{
    return (ts_world_id){(uint16_t)(world->records.world_index + 1), world->records.world_generation};
}

#endif

/* What the body functions of the API share (body.c, body_motion.c,
 * body_mass.c): a checked lookup that returns from the caller, the body's
 * slot in the store, and loads and stores of the store's columns. */
#ifndef TS_BODY_ACCESS_H
#define TS_BODY_ACCESS_H

#include "api/body_mass.h"
#include "api/lookup.h"
#include "base/bounds.h"
#include "islands/sleep.h"

static inline int32_t body_slot(const ts_world *world, const ts_body *body)
{
    return world->records.store.table.slot_of_id[body - world->records.bodies];
}

static inline ts_vec3 load_vec3(const float *x, const float *y, const float *z, int32_t i)
{
    return ts_v3(x[i], y[i], z[i]);
}

static inline void store_vec3(float *x, float *y, float *z, int32_t i, ts_vec3 v)
{
    x[i] = v.x;
    y[i] = v.y;
    z[i] = v.z;
}

static inline ts_quat load_rotation(const ts_body_store *s, int32_t i)
{
    return (ts_quat){s->qx[i], s->qy[i], s->qz[i], s->qw[i]};
}

/* A linear velocity within the world's max_linear_speed (tessera/limits.h). */
static inline ts_result check_linear_speed(const ts_world *world, ts_vec3 velocity, const char *function,
                                           const char *name)
{
    return ts_check_length(velocity, world->solver.max_linear_speed, "the world's max_linear_speed", function, name);
}

/* An angular velocity within TS_MAX_ANGULAR_SPEED. */
static inline ts_result check_angular_speed(ts_vec3 velocity, const char *function, const char *name)
{
    return ts_check_length(velocity, TS_MAX_ANGULAR_SPEED, "TS_MAX_ANGULAR_SPEED", function, name);
}

/* Looks the body up or returns the error from the calling function. */
#define BODY_LOOKUP(id, world, body)                                                                           \
    ts_world *world;                                                                                           \
    ts_body *body = ts_body_lookup(id, &world, __func__);                                                      \
    if (body == NULL) {                                                                                        \
        return TS_ERROR_STALE_ID;                                                                              \
    }                                                                                                          \
    int32_t body##_slot = body_slot(world, body);                                                              \
    (void)body##_slot

/* Wakes a body the user changes (and the islands it touches); its slot
 * moves when it was asleep. */
static inline ts_result wake(ts_world *world, const ts_body *body, int32_t *slot, const char *function)
{
    int32_t index = (int32_t)(body - world->records.bodies);
    TS_TRY(ts_wake_body(&world->records, &world->islands, &world->graph, index, function));
    *slot = body_slot(world, body);
    return TS_OK;
}

#endif

/* Structure-of-arrays storage of the per-body simulation state.
 *
 * One float column per scalar (px, py, pz, ...), so that every per-body loop
 * reads only the columns it needs, with unit stride, over a contiguous range.
 * Slots are split into three consecutive ranges (soa_table.h):
 *
 *   [0, end[AWAKE])                awake: dynamic and kinematic bodies that move
 *   [end[AWAKE], end[SLEEPING])    sleeping: bodies of sleeping islands (islands/sleep.h)
 *   [end[SLEEPING], count)         static
 *
 * A body's slot changes when it moves between ranges or when another body is
 * removed; table.slot_of_id (indexed by the body id's index) follows every move.
 *
 * The simulation frame of a body is its centre of mass with its principal
 * axes of inertia, so the inertia is diagonal in it: (px, py, pz) is the
 * centre of mass and q is the body rotation times the principal rotation.
 * Static and kinematic bodies use their origin frame. */
#ifndef TS_BODY_STORE_H
#define TS_BODY_STORE_H

#include "soa/soa_table.h"

typedef enum ts_body_range {
    TS_RANGE_AWAKE = 0,
    TS_RANGE_SLEEPING = 1,
    TS_RANGE_STATIC = 2,
    TS_RANGE_COUNT = 3,
} ts_body_range;

#define TS_BODY_COLUMNS 51

typedef struct ts_body_store {
    union {
        struct {
            float *px, *py, *pz;              /* centre of mass, world */
            float *qx, *qy, *qz, *qw;         /* rotation of the principal frame, world */
            float *vx, *vy, *vz;              /* linear velocity of the centre of mass */
            float *wx, *wy, *wz;              /* angular velocity, world */
            float *fx, *fy, *fz;              /* force accumulated for the next step */
            float *tx, *ty, *tz;              /* torque accumulated for the next step, world */
            float *inv_mass;                  /* 0 for static and kinematic bodies */
            float *inv_ix, *inv_iy, *inv_iz;  /* inverse principal inertia */
            float *ix, *iy, *iz;              /* principal inertia (for the momentum update) */
            float *linear_damping;            /* 0 unless dynamic */
            float *angular_damping;           /* 0 unless dynamic */
            float *gravity_scale;             /* 0 unless dynamic */
            /* World inverse inertia R diag(inv_i) R^T at the step's start,
             * written by the solver for awake bodies (xx yy zz xy xz yz), so
             * that each contact of a body does not rotate it again. */
            float *inv_iw_xx, *inv_iw_yy, *inv_iw_zz, *inv_iw_xy, *inv_iw_xz, *inv_iw_yz;
            float *max_extent;                /* farthest shape point from the centre of mass */
            float *sleep_threshold;           /* m/s; -1 when the body may not sleep */
            float *sleep_time;                /* seconds spent below the threshold (islands/sleep.h) */
            /* For the bounds update (collide/broadphase_bounds.c), kept by
             * ts_body_sync_bounds: the body's first shape (its list's head, as
             * in ts_body; -1 when none), so that the update need not go
             * through the body; and its fast paths: the radius of the body's
             * only shape when that is a sphere at the centre of mass with a
             * proxy, else 0; the half extents of the body's only shape when
             * that is a box at the centre of mass in the simulation frame's
             * axes with a proxy, else 0; with that shape's fat box, kept
             * equal to it, so that the update of such a body reads these
             * columns alone. */
            int32_t *first_shape;
            float *sphere_radius;
            float *box_hx, *box_hy, *box_hz;
            float *fat_lx, *fat_ly, *fat_lz, *fat_ux, *fat_uy, *fat_uz;
            /* The contacts (touching or not) and joints the body is in, the
             * lengths of its lists in ts_body: 0 for a free body, which the
             * soft step integrates through all its substeps in one go. */
            int32_t *edges;
            /* The motion locks in effect (TS_LOCK_* bits, motion_locks.h):
             * the integrators keep the locked components and the solver's
             * world inverse inertia has the locked axes zeroed. */
            int32_t *locks;
        };
        void *columns[TS_BODY_COLUMNS];
    };
    ts_soa_table table; /* slots, ids and ranges */
    /* Bodies whose locks column is non-zero (any range): while 0 the
     * solver's passes skip every lock test. */
    int32_t locked_count;
} ts_body_store;

void ts_body_store_init(ts_body_store *store);
void ts_body_store_destroy(ts_body_store *store, const ts_allocator *allocator);

/* One more (delta 1) or one fewer (-1) contact or joint for body id index
 * `body` (nothing once it has left the store). */
static inline void ts_body_count_edge(ts_body_store *store, int32_t body, int32_t delta)
{
    int32_t slot = store->table.slot_of_id[body];
    if (slot >= 0) {
        store->edges[slot] += delta;
    }
}

/* Makes room for `bodies` bodies and for body id indices below `ids`. */
static inline bool ts_body_store_reserve(ts_body_store *store, const ts_allocator *allocator, int32_t bodies,
                                         int32_t ids)
{
    return ts_soa_reserve(&store->table, store->columns, allocator, bodies, ids);
}

/* Adds a body (room must be reserved) to a range with every column zero but
 * the rotation (identity); returns its slot. */
int32_t ts_body_store_add(ts_body_store *store, int32_t body, ts_body_range range);

/* Removes the body in slot (its slot and another body's may change). */
static inline void ts_body_store_remove(ts_body_store *store, int32_t slot)
{
    store->locked_count -= store->locks[slot] != 0 ? 1 : 0;
    ts_soa_remove(&store->table, store->columns, slot);
}

/* Sets the motion locks of the body in slot, keeping locked_count. */
static inline void ts_body_store_set_locks(ts_body_store *store, int32_t slot, uint32_t locks)
{
    store->locked_count += (locks != 0 ? 1 : 0) - (store->locks[slot] != 0 ? 1 : 0);
    store->locks[slot] = (int32_t)locks;
}

/* Moves a body to another range; returns its new slot. */
static inline int32_t ts_body_store_move(ts_body_store *store, int32_t slot, ts_body_range range)
{
    return ts_soa_move(&store->table, store->columns, slot, (int)range);
}

static inline ts_body_range ts_body_store_range_of(const ts_body_store *store, int32_t slot)
{
    return (ts_body_range)ts_soa_range_of(&store->table, slot);
}

/* Whether a body rests: static, or in a sleeping island (islands/sleep.h
 * moves those to the sleeping range): outside the awake range. A contact
 * between two resting bodies sleeps with them. */
static inline bool ts_body_store_rests(const ts_body_store *store, int32_t body)
{
    return store->table.slot_of_id[body] >= store->table.end[TS_RANGE_AWAKE];
}

static inline bool ts_body_store_validate(const ts_body_store *store) { return ts_soa_validate(&store->table); }

#endif

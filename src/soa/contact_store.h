/* Structure-of-arrays storage of contact manifolds, one slot per shape pair
 * whose fat AABBs overlap. Per-contact columns hold one value per slot;
 * per-point columns hold TS_MAX_MANIFOLD_POINTS values per slot (point k of
 * slot i at [4 i + k]), so the solver can pack W contacts into a bundle lane
 * by lane. The narrowphase writes each slot from one thread only.
 *
 * Ranges: [0, end[AWAKE]) awake (the narrowphase's), then sleeping: contacts
 * whose bodies all sleep or are static (islands/sleep.h). */
#ifndef TS_CONTACT_STORE_H
#define TS_CONTACT_STORE_H

#include "soa/soa_table.h"

#define TS_CONTACT_POINTS 4

typedef enum ts_contact_range {
    TS_CONTACT_RANGE_AWAKE = 0,
    TS_CONTACT_RANGE_SLEEPING = 1,
    TS_CONTACT_RANGE_COUNT = 2,
} ts_contact_range;

/* flags */
enum {
    TS_CONTACT_TOUCHING = 1, /* the manifold has points (speculative ones count) */
    TS_CONTACT_STARTED = 2,  /* began touching in this step */
    TS_CONTACT_STOPPED = 4,  /* stopped touching in this step */
    TS_CONTACT_DISJOINT = 8, /* the fat AABBs no longer overlap: destroy */
    TS_CONTACT_CACHED = 16,  /* the recycling columns hold the last full test (collide/contact_recycle.h) */
};

#define TS_CONTACT_COLUMNS 39

typedef struct ts_contact_store {
    union {
        struct {
            /* per contact */
            int32_t *shape_a, *shape_b; /* shape indices, shape_a < shape_b */
            int32_t *body_a, *body_b;   /* body id indices */
            float *friction;            /* geometric mean of the shapes' */
            float *restitution;         /* the larger of the shapes' */
            float *nx, *ny, *nz;        /* world normal from A to B */
            int32_t *point_count;
            uint32_t *flags;
            float *friction_impulse1, *friction_impulse2; /* at the manifold centre, along the tangents */
            float *twist_impulse;                         /* about the normal */
            /* XPBD: where static friction holds the manifold centre, as its
             * tangential offset (t1, t2) from where it is at the step's end */
            float *slip1, *slip2;
            /* centre of mass of A - centre of mass of B when the manifold was
             * last computed in full: B's anchors are A's plus this shift */
            float *shift_x, *shift_y, *shift_z;
            /* contact recycling (contact_recycle.h): the shapes' world
             * rotations at the last full test */
            float *cache_ax, *cache_ay, *cache_az, *cache_aw;
            float *cache_bx, *cache_by, *cache_bz, *cache_bw;
            /* hulls: the feature that decided the last separating axis
             * test and its contact's depth (collide/collide_hull.h) */
            uint32_t *sat_feature;
            float *sat_depth;
            /* rolling resistance (collide/rolling_resistance.h): the mixed
             * lever, m (0: none), and the accumulated angular impulse about
             * the solver's tangents (solver/contact_rolling.h) */
            float *rolling_resistance;
            float *rolling_impulse1, *rolling_impulse2;
            /* per point */
            float *anchor_ax, *anchor_ay, *anchor_az; /* point - centre of mass of A, world, at the last full test */
            float *separation;                        /* negative = penetration */
            float *base_separation;                   /* separation at the last full test */
            uint32_t *feature;                        /* feature id, for matching across steps */
            float *normal_impulse;                    /* accumulated, for warm starting */
        };
        void *columns[TS_CONTACT_COLUMNS];
    };
    ts_soa_table table;
} ts_contact_store;

void ts_contact_store_init(ts_contact_store *store);

static inline void ts_contact_store_destroy(ts_contact_store *store, const ts_allocator *allocator)
{
    ts_soa_destroy(&store->table, store->columns, allocator);
}

static inline bool ts_contact_store_reserve(ts_contact_store *store, const ts_allocator *allocator, int32_t contacts,
                                            int32_t ids)
{
    return ts_soa_reserve(&store->table, store->columns, allocator, contacts, ids);
}

static inline int32_t ts_contact_store_add(ts_contact_store *store, int32_t contact, ts_contact_range range)
{
    return ts_soa_add(&store->table, store->columns, contact, (int)range);
}

static inline int32_t ts_contact_store_move(ts_contact_store *store, int32_t slot, ts_contact_range range)
{
    return ts_soa_move(&store->table, store->columns, slot, (int)range);
}

static inline void ts_contact_store_remove(ts_contact_store *store, int32_t slot)
{
    ts_soa_remove(&store->table, store->columns, slot);
}

#endif

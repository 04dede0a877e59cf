/* What the collide layer keeps of a world besides the records (soa/records.h):
 * the broadphase, the map from shape pairs to contacts, the contact events,
 * and the narrowphase's lists and scratch.
 *
 * The narrowphase leaves two lists for the step (step/touches.c), which
 * acts on them in order: the contacts that began or stopped touching (their
 * colours and islands) and the contacts that parted (destroyed in one batch
 * afterwards, ts_contacts_destroy_parted). The collide layer itself never
 * touches islands or colours. */
#ifndef TS_COLLISION_H
#define TS_COLLISION_H

#include "collide/broadphase.h"
#include "collide/geometry_store.h"
#include "collide/pair_set.h"
#include "soa/soa_removal.h"

typedef struct ts_contact_events_buffer {
    ts_contact_begin_event *begin_pending, *begin_published;
    int32_t begin_pending_count, begin_published_count, begin_pending_capacity, begin_published_capacity;
    ts_contact_end_event *end_pending, *end_published;
    int32_t end_pending_count, end_published_count, end_pending_capacity, end_published_capacity;
    uint64_t *sort_keys; /* scratch of the publish's sorts (contact_events.c) */
    int32_t *sort_order; /* two positions per event */
    int32_t sort_keys_capacity, sort_order_capacity;
} ts_contact_events_buffer;

/* The pass that writes the recycle kernel's body records (contact.h,
 * ts_contacts_body_records). */
typedef struct ts_body_records_pass {
    const struct ts_body_store *store;
    struct ts_recycle_body *bodies;
    int32_t count, block_size;
    bool written; /* this step's records are written: the narrowphase writes none */
} ts_body_records_pass;

typedef struct ts_collision {
    ts_broadphase broadphase;
    ts_geometry_store geometry; /* hulls, meshes, heightfields of the shapes */
    ts_key_map pairs; /* shape pair -> contact id */

    /* Events: collected while stepping (and by destroy calls between steps),
     * published sorted at the end of the next step. */
    ts_contact_events_buffer events;

    /* The narrowphase's news: per block, the slots of its contacts that
     * began, ended or parted; after the narrowphase, contact_news[0,
     * news_count) holds the slots of those that began or stopped touching,
     * in slot order (the flags in the contact store say which). */
    int32_t *contact_news;
    int32_t contact_news_capacity;
    int32_t *block_news; /* per narrowphase block: how many */
    int32_t block_news_capacity;
    int32_t news_count;
    /* After the narrowphase: the ids of the contacts that parted, in slot order. */
    int32_t *doomed_contacts;
    int32_t doomed_capacity;
    int32_t doomed_count;
    ts_soa_removal contact_removal; /* scratch: the parted contacts leave the store in one batch */
    int32_t narrowphase_pairs;      /* contacts the last narrowphase updated */
    /* scratch: the narrowphase's copy of every body's pose and velocity,
     * one record per body store slot (contact_recycle.h) */
    struct ts_recycle_body *recycle_bodies;
    int32_t recycle_bodies_capacity;
    ts_body_records_pass body_records;
} ts_collision;

#endif

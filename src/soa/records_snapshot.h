/* Snapshots of the soa layer's part of a world (docs/snapshots.md): the
 * records of bodies, shapes, joints and contacts with their id pools, the
 * bodies' contact and joint lists, and the two SoA stores.
 *
 * Each save writes one section's payload; each load reads it into a fresh
 * world's records (made by ts_create_world, nothing added yet), checking
 * every count against the bytes left before allocating and every index
 * against its range, and fails through the reader (r->failed, r->message)
 * or returns false when out of memory. What a record or a column holds that
 * follows from other data (a shape's frame in its body's simulation frame,
 * a body's inverse mass, a contact's mixed friction) is predicted on both
 * sides and written only where the world differs from the prediction, so
 * a loaded world has every bit of the saved one and the file stays small. */
#ifndef TS_RECORDS_SNAPSHOT_H
#define TS_RECORDS_SNAPSHOT_H

#include "base/snapshot_io.h"
#include "soa/records.h"
#include "tessera/tessera.h" /* TS_MAX_OBJECTS */

/* Load results besides the reader's failure. */
typedef enum ts_load_status {
    TS_LOAD_OK = 0,
    TS_LOAD_INVALID, /* r->message says why */
    TS_LOAD_NO_MEMORY,
} ts_load_status;

/* An id pool: its next index and free stack (limit: the most ids). */
void ts_id_pool_save(ts_writer *w, const ts_id_pool *pool);
ts_load_status ts_id_pool_load(ts_reader *r, ts_id_pool *pool, const ts_allocator *allocator, int32_t limit,
                               const char *what);

/* Bodies (records without their lists), shapes, joints (records and the
 * bodies' joint lists), contacts (records, the bodies' contact lists and
 * the contact store), in this order: each load reads what the earlier
 * ones loaded. */
void ts_bodies_save(ts_writer *w, const ts_records *records);
ts_load_status ts_bodies_load(ts_reader *r, ts_records *records);
void ts_shapes_save(ts_writer *w, const ts_records *records);
ts_load_status ts_shapes_load(ts_reader *r, ts_records *records);
void ts_joints_save(ts_writer *w, const ts_records *records);
ts_load_status ts_joints_load(ts_reader *r, ts_records *records);
void ts_contacts_save(ts_writer *w, const ts_records *records);
ts_load_status ts_contacts_load(ts_reader *r, ts_records *records);

/* The body store: the slots in range order, and each column's value where
 * it differs from `predict`, which fills what a body's columns follow
 * from (its record, shapes and lists) as the bits of TS_BODY_COLUMNS
 * values; the step's (it knows the layers that predict them). */
typedef void ts_body_predict_fn(const ts_records *records, int32_t body, uint32_t predicted[TS_BODY_COLUMNS]);
void ts_body_store_save(ts_writer *w, const ts_records *records, ts_body_predict_fn *predict);
ts_load_status ts_body_store_load(ts_reader *r, ts_records *records, ts_body_predict_fn *predict);

/* A list of bodies' edges ({body, prev_key, next_key}, keys index << 1 |
 * side): contacts' or joints'. */
typedef struct ts_edge_lists {
    int32_t *(*head)(ts_records *records, int32_t body);   /* the body's head key */
    int32_t *(*count)(ts_records *records, int32_t body);  /* its list's length */
    int32_t *(*edge)(ts_records *records, int32_t key);    /* {body, prev_key, next_key} of a key */
    bool (*alive)(const ts_records *records, int32_t index); /* the object of a key exists */
    int32_t objects;                                        /* keys below objects << 1 */
    bool (*listed)(const ts_records *records, int32_t key); /* a live object's key is in a list (NULL: both sides) */
} ts_edge_lists;

void ts_edge_lists_save(ts_writer *w, const ts_records *records, const ts_edge_lists *lists);
ts_load_status ts_edge_lists_load(ts_reader *r, ts_records *records, const ts_edge_lists *lists);

#endif

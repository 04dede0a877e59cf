/* Snapshots of the collide layer's part of a world (docs/snapshots.md):
 * the broadphase (both trees node for node, with their free lists and area
 * bookkeeping, and the move buffer), the contact events, and after the
 * contacts were loaded (soa/records_snapshot.h) the pair map and the room
 * a step expects. Loads check like records_snapshot.h's. */
#ifndef TS_COLLIDE_SNAPSHOT_H
#define TS_COLLIDE_SNAPSHOT_H

#include "collide/collision.h"
#include "soa/records_snapshot.h"

void ts_broadphase_save(ts_writer *w, const ts_records *records, const ts_broadphase *broadphase);
ts_load_status ts_broadphase_load(ts_reader *r, ts_records *records, ts_broadphase *broadphase);

void ts_contact_events_save(ts_writer *w, const ts_contact_events_buffer *events);
ts_load_status ts_contact_events_load(ts_reader *r, const ts_records *records, ts_contact_events_buffer *events);

/* The pair map of the loaded contacts and the room of every contact array
 * (ts_contacts_reserve). */
ts_load_status ts_collision_rebuild(ts_records *records, ts_collision *collision);

#endif

/* The sections of a world snapshot, in order (docs/snapshots.md): each
 * layer's part of the world, walked by the functions of that layer. The
 * API adds the header and the checksum (api/snapshot.c). */
#ifndef TS_WORLD_SNAPSHOT_H
#define TS_WORLD_SNAPSHOT_H

#include "base/snapshot_io.h"
#include "step/world_state.h"

/* Writes every section of the world. */
void ts_world_save_sections(ts_writer *w, ts_world *world);

/* Reads every section into a world fresh from ts_create_world (nothing
 * added to it); on failure the world is to be destroyed. Returns TS_OK,
 * TS_ERROR_INVALID_DATA (r->message says why) or TS_ERROR_OUT_OF_MEMORY. */
ts_result ts_world_load_sections(ts_reader *r, ts_world *world);

#endif

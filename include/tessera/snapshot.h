/** @file
 * Snapshots: a whole world saved to bytes (memory or a file) and loaded
 * into a new world that goes on exactly as the saved one would have, on any
 * thread count, SIMD width and CPU; and the state hash that tells two
 * worlds' bodies apart bit for bit. Included by tessera.h; see
 * docs/snapshots.md for the format and what a snapshot holds. */
#ifndef TESSERA_SNAPSHOT_H
#define TESSERA_SNAPSHOT_H

#include "tessera/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The snapshot format this library writes. It reads this one and every
 * older one down to TS_SNAPSHOT_OLDEST_VERSION (a world saved in format 1
 * loads without motion locks, planar mode or speed limits, as it was
 * saved); a file of another version is refused with TS_ERROR_INVALID_DATA
 * (the message says which version it has). Format 2 added motion locks,
 * planar worlds and speed limits. */
#define TS_SNAPSHOT_FORMAT_VERSION 2
/** The oldest snapshot format this library still reads. */
#define TS_SNAPSHOT_OLDEST_VERSION 1

/** Saves the world into buffer (capacity bytes) and sets *size to the
 * bytes the snapshot takes. With buffer NULL (capacity 0) it only sets
 * *size: call it so first to size the buffer. The world is not changed (a
 * snapshot is a copy: saving every step changes no result).
 *
 * What is saved: every body, shape, joint and contact with its manifold,
 * impulses and feature ids, the settings, the islands, graph colours and
 * sleep timers, the broadphase trees, the contact events, the solver's
 * kept state and the user_data values (as numbers: a pointer means
 * something only in the process that saved it). Not saved: the thread
 * count, SIMD width, task callbacks, allocator and the world's own
 * user_data, which ts_world_load takes from its def.
 *
 * Returns TS_OK, TS_ERROR_NULL_POINTER (size NULL, or buffer NULL with a
 * capacity), TS_ERROR_CAPACITY (capacity below *size, which is set:
 * nothing useful was written), TS_ERROR_STALE_ID, TS_ERROR_UNSUPPORTED
 * (the world holds a faulted body, a hull, mesh or heightfield, a sensor
 * or a custom constraint: format 2 does not hold these yet). */
TS_API ts_result ts_world_save(ts_world_id world, void *buffer, size_t capacity, size_t *size);

/** Makes a new world from a snapshot made by ts_world_save (of any
 * thread count and SIMD width, on any CPU). def gives how the new world
 * runs in this process: threads, simd_width, the task callbacks, the
 * allocator and user_data (start from ts_default_world_def(); its physics
 * settings and capacities are ignored: the snapshot's are used). NULL
 * means the defaults. The bodies, shapes and joints keep their indices and
 * generations, so their ids in the new world are those of the saved world
 * with the new world's slot (ts_world_get_bodies lists them).
 *
 * Returns TS_OK with *world set, or TS_ERROR_NULL_POINTER (data or world
 * NULL), TS_ERROR_INVALID_DATA (not a snapshot, truncated, corrupted
 * (checksum), another format version, or a value out of range: the message
 * names the section and the value), the errors of ts_create_world for def,
 * TS_ERROR_OUT_OF_MEMORY. On failure *world is the null id and no world
 * was made. */
TS_API ts_result ts_world_load(const void *data, size_t size, const ts_world_def *def, ts_world_id *world);

/** ts_world_save into a file at path (written whole, replacing it).
 * Returns the codes of ts_world_save, or TS_ERROR_IO naming the path and
 * the system's reason. */
TS_API ts_result ts_world_save_file(ts_world_id world, const char *path);

/** ts_world_load from a file at path. Returns the codes of ts_world_load,
 * or TS_ERROR_IO naming the path and the system's reason. */
TS_API ts_result ts_world_load_file(const char *path, const ts_world_def *def, ts_world_id *world);

/** A fixed hash of every body's state: FNV-1a 64 over each live body's
 * position, rotation (x, y, z, w), linear and angular velocity as
 * ts_body_get_transform and the velocity getters give them (13 floats,
 * the little-endian bytes of each), in body index order (creation order
 * while no body was destroyed). Two worlds have the same hash exactly
 * when their bodies' states are bitwise equal (barring a collision);
 * tessera-bench reports it as state_hash. Returns TS_OK,
 * TS_ERROR_NULL_POINTER, TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_state_hash(ts_world_id world, uint64_t *hash);

/** The ids of the world's bodies in index order (creation order while no
 * body was destroyed): up to capacity of them into ids; *count is set to
 * how many bodies there are. ids may be NULL with capacity 0 (a count
 * query). Returns TS_OK, TS_ERROR_NULL_POINTER, TS_ERROR_OUT_OF_RANGE
 * (capacity < 0), TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_bodies(ts_world_id world, ts_body_id *ids, int capacity, int *count);

#ifdef __cplusplus
}
#endif

#endif

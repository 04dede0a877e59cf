/** @file
 * Snapshots: a whole world saved to bytes (memory or a file) and loaded
 * into a new world that goes on exactly as the saved one would have, on any
 * thread count, SIMD width and CPU; and the state hash that tells two
 * worlds' bodies apart bit for bit. Included by tessera.h; see
 * docs/snapshots.md for the format and what a snapshot holds. */
#ifndef TESSERA_SNAPSHOT_H
#define TESSERA_SNAPSHOT_H

#include "tessera/constraint.h"
#include "tessera/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The snapshot format this library writes. It reads this one and every
 * older one down to TS_SNAPSHOT_OLDEST_VERSION (a world saved in format 1
 * loads without motion locks, planar mode or speed limits, as it was
 * saved); a file of another version is refused with TS_ERROR_INVALID_DATA
 * (the message says which version it has). Format 2 added motion locks,
 * planar worlds and speed limits; format 3 hulls, meshes, heightfields,
 * sensors and custom constraints; format 4 the switches of the contact
 * reports and body move events. */
#define TS_SNAPSHOT_FORMAT_VERSION 4
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
 * kept state, the hulls, meshes and heightfields, the sensors with their
 * overlaps and events, the custom constraints with their rows' kept
 * impulses, and the user_data values (as numbers: a pointer means
 * something only in the process that saved it). Not saved: the thread
 * count, SIMD width, task callbacks, allocator and the world's own
 * user_data, which ts_world_load takes from its def, and each custom
 * constraint's callback (a function pointer: ts_world_load_with gives it
 * back); its context pointer is saved as a number for that.
 *
 * Returns TS_OK, TS_ERROR_NULL_POINTER (size NULL, or buffer NULL with a
 * capacity), TS_ERROR_CAPACITY (capacity below *size, which is set:
 * nothing useful was written), TS_ERROR_STALE_ID, TS_ERROR_UNSUPPORTED
 * (the world holds a body taken out after its state overflowed: destroy
 * it first). */
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
 * TS_ERROR_OUT_OF_MEMORY, TS_ERROR_INVALID_OPERATION (the snapshot holds
 * a custom constraint: load it with ts_world_load_with). On failure *world
 * is the null id and no world was made. */
TS_API ts_result ts_world_load(const void *data, size_t size, const ts_world_def *def, ts_world_id *world);

/** Gives a loaded custom constraint its callback back (a snapshot cannot
 * hold a function pointer). Called by ts_world_load_with once per custom
 * constraint of the snapshot, in joint index order, before the world is
 * handed out: joint is its id in the new world, user_data its user data
 * and saved_context the context pointer it had when saved, both as the
 * numbers they were (the same pointers when loading in the process that
 * saved, e.g. a rollback). Set *evaluate (required) and *context (preset
 * to saved_context) and return true; return false to refuse the load.
 * It must not call tessera. resolver_context is
 * ts_snapshot_load_options::resolver_context. */
typedef bool ts_constraint_resolve_fn(ts_joint_id joint, void *user_data, void *saved_context,
                                      void *resolver_context, ts_constraint_fn **evaluate, void **context);

/** What ts_world_load_with needs beyond ts_world_load's arguments. Start
 * from ts_default_snapshot_load_options(). */
typedef struct ts_snapshot_load_options {
    /** Gives each custom constraint its callback; NULL: a snapshot with a
     * custom constraint is refused (TS_ERROR_INVALID_OPERATION). */
    ts_constraint_resolve_fn *resolve_constraint;
    void *resolver_context; /**< passed to resolve_constraint */
} ts_snapshot_load_options;

/** Options with no resolver. */
TS_API ts_snapshot_load_options ts_default_snapshot_load_options(void);

/** ts_world_load with options (options NULL: the defaults): a snapshot
 * with custom constraints loads when options->resolve_constraint gives
 * each its callback; the loaded world then steps exactly as the saved one
 * did, provided each callback computes the rows the saved one did.
 * Returns the codes of ts_world_load, and TS_ERROR_INVALID_OPERATION when
 * there is no resolver for a custom constraint, the resolver returns
 * false, or it sets *evaluate to NULL (the message names the joint). */
TS_API ts_result ts_world_load_with(const void *data, size_t size, const ts_world_def *def,
                                    const ts_snapshot_load_options *options, ts_world_id *world);

/** ts_world_save into a file at path (written whole, replacing it).
 * Returns the codes of ts_world_save, or TS_ERROR_IO naming the path and
 * the system's reason. */
TS_API ts_result ts_world_save_file(ts_world_id world, const char *path);

/** ts_world_load from a file at path. Returns the codes of ts_world_load,
 * or TS_ERROR_IO naming the path and the system's reason. */
TS_API ts_result ts_world_load_file(const char *path, const ts_world_def *def, ts_world_id *world);

/** ts_world_load_with from a file at path. Returns the codes of
 * ts_world_load_with, or TS_ERROR_IO naming the path and the system's
 * reason. */
TS_API ts_result ts_world_load_file_with(const char *path, const ts_world_def *def,
                                         const ts_snapshot_load_options *options, ts_world_id *world);

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

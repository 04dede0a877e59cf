/* tessera: the blocks of geometry that shapes point to (hulls, meshes,
 * heightfields), owned by the world and counted by reference.
 *
 * A hull is kept once per set of input points: the shapes made from the
 * same points (a pile of identical rocks) share one block, found by a hash
 * of the points and an exact comparison. Meshes and heightfields belong to
 * their one shape. Every block comes from the world's allocator and is freed
 * when its last shape goes, or with the world. */
#ifndef TS_COLLIDE_GEOMETRY_STORE_H
#define TS_COLLIDE_GEOMETRY_STORE_H

#include "tessera/types.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ts_geometry_block ts_geometry_block;

typedef struct ts_geometry_store {
    ts_geometry_block *head;     /* every block */
    ts_geometry_block **buckets; /* shared blocks by key */
    int32_t bucket_count;        /* a power of two, or 0 */
    int32_t shared_count;
} ts_geometry_store;

/* The data of a shared block made from points[0 .. count) with this key,
 * with one more reference; NULL when there is none. */
const void *ts_geometry_find(ts_geometry_store *store, uint64_t key, const ts_vec3 *points, int count);

/* A new block of `size` bytes of data (64-byte aligned) with one reference.
 * With points (count > 0) it is shared under key, and a copy of the points
 * is kept to compare. NULL when the allocator fails. */
void *ts_geometry_alloc(ts_geometry_store *store, const ts_allocator *allocator, size_t size, uint64_t key,
                        const ts_vec3 *points, int count);

/* One reference more to the block holding data (a loaded snapshot's
 * shapes that share a hull, collide/geometry_snapshot.c). */
void ts_geometry_retain(const void *data);

/* The input points a shared block was made from (its count in *count);
 * NULL with 0 for a block that is not shared (a mesh, a heightfield). */
const ts_vec3 *ts_geometry_points(const void *data, int *count);

/* One reference less to the block holding data; the last frees it. */
void ts_geometry_release(ts_geometry_store *store, const ts_allocator *allocator, const void *data);

/* Frees every block (the world goes). */
void ts_geometry_store_destroy(ts_geometry_store *store, const ts_allocator *allocator);

/* FNV-1a over the bytes of the points and their count. */
uint64_t ts_geometry_key(const ts_vec3 *points, int count);

#endif

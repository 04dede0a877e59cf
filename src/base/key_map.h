// SPDX-License-Identifier: MIT
/* A hash map from a program's 64-bit key (any value, 0 included) to a
 * non-negative index: open addressing with linear probing and
 * backward-shift deletion (no tombstones). An empty slot holds value -1.
 * The solver-only entry keeps its contacts and joints by the program's
 * keys in two of these (step/solver_context.h). */
#ifndef TS_KEY_MAP_H
#define TS_KEY_MAP_H

#include "base/core.h"

#include <stdbool.h>

typedef struct ts_key_map {
    uint64_t *keys;
    int32_t *values;  /* -1: empty */
    int32_t capacity; /* a power of two, or 0 */
    int32_t count;
} ts_key_map;

void ts_key_map_destroy(ts_key_map *map, const ts_allocator *allocator);

/* Makes room for `count` keys at a load of at most one half; false when
 * out of memory (the map is then unchanged). */
bool ts_key_map_reserve(ts_key_map *map, const ts_allocator *allocator, int32_t count);

/* The value of a key, or -1. */
int32_t ts_key_map_find(const ts_key_map *map, uint64_t key);

/* Starts bringing the key's first slot into the cache (filling a large
 * map in a loop: ask a few keys ahead). */
void ts_key_map_prefetch(const ts_key_map *map, uint64_t key);

/* Adds a key that is not in the map (room reserved). */
void ts_key_map_add(ts_key_map *map, uint64_t key, int32_t value);

/* Removes a key that is in the map. */
void ts_key_map_remove(ts_key_map *map, uint64_t key);

/* Empties the map (keeps its room). */
void ts_key_map_clear(ts_key_map *map);

#endif

// SPDX-License-Identifier: MIT
/* 64-bit key -> index hash map (see key_map.h). */
#include "base/key_map.h"

#include "base/alloc.h"

#include <string.h>

/* The finaliser of MurmurHash3: consecutive keys spread over the table. */
static uint32_t home_of(uint64_t key, int32_t capacity)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ull;
    key ^= key >> 33;
    return (uint32_t)key & (uint32_t)(capacity - 1);
}

void ts_key_map_destroy(ts_key_map *map, const ts_allocator *allocator)
{
    ts_free(allocator, map->keys, (size_t)map->capacity * sizeof(uint64_t));
    ts_free(allocator, map->values, (size_t)map->capacity * sizeof(int32_t));
    memset(map, 0, sizeof *map);
}

void ts_key_map_prefetch(const ts_key_map *map, uint64_t key)
{
#if defined(__GNUC__)
    if (map->capacity == 0) {
        return;
    }
    uint32_t i = home_of(key, map->capacity);
    __builtin_prefetch(map->keys + i, 1);
    __builtin_prefetch(map->values + i, 1);
#else
    (void)map;
    (void)key;
#endif
}

static void insert(ts_key_map *map, uint64_t key, int32_t value)
{
    uint32_t mask = (uint32_t)map->capacity - 1;
    uint32_t i = home_of(key, map->capacity);
    while (map->values[i] >= 0) {
        i = (i + 1) & mask;
    }
    map->keys[i] = key;
    map->values[i] = value;
    map->count += 1;
}

bool ts_key_map_reserve(ts_key_map *map, const ts_allocator *allocator, int32_t count)
{
    if (2 * (int64_t)count <= map->capacity) {
        return true;
    }
    int64_t capacity = map->capacity < 64 ? 64 : map->capacity;
    while (capacity < 2 * (int64_t)count) {
        capacity *= 2;
    }
    if (capacity > INT32_MAX / 2) {
        return false;
    }
    uint64_t *keys = ts_alloc(allocator, (size_t)capacity * sizeof(uint64_t));
    int32_t *values = ts_alloc(allocator, (size_t)capacity * sizeof(int32_t));
    if (keys == NULL || values == NULL) {
        ts_free(allocator, keys, (size_t)capacity * sizeof(uint64_t));
        ts_free(allocator, values, (size_t)capacity * sizeof(int32_t));
        return false;
    }
    memset(values, 0xff, (size_t)capacity * sizeof(int32_t)); /* -1: empty */
    ts_key_map old = *map;
    map->keys = keys;
    map->values = values;
    map->capacity = (int32_t)capacity;
    map->count = 0;
    for (int32_t i = 0; i < old.capacity; ++i) {
        if (old.values[i] >= 0) {
            insert(map, old.keys[i], old.values[i]);
        }
    }
    ts_free(allocator, old.keys, (size_t)old.capacity * sizeof(uint64_t));
    ts_free(allocator, old.values, (size_t)old.capacity * sizeof(int32_t));
    return true;
}

int32_t ts_key_map_find(const ts_key_map *map, uint64_t key)
{
    if (map->capacity == 0) {
        return -1;
    }
    uint32_t mask = (uint32_t)map->capacity - 1;
    for (uint32_t i = home_of(key, map->capacity);; i = (i + 1) & mask) {
        if (map->values[i] < 0) {
            return -1;
        }
        if (map->keys[i] == key) {
            return map->values[i];
        }
    }
}

void ts_key_map_add(ts_key_map *map, uint64_t key, int32_t value) { insert(map, key, value); }

/* Backward-shift deletion: the entries after the hole that may move into
 * it (their home is not between the hole and them) close it, one by one. */
void ts_key_map_remove(ts_key_map *map, uint64_t key)
{
    uint32_t mask = (uint32_t)map->capacity - 1;
    uint32_t hole = home_of(key, map->capacity);
    while (map->keys[hole] != key || map->values[hole] < 0) {
        hole = (hole + 1) & mask;
    }
    for (uint32_t i = (hole + 1) & mask; map->values[i] >= 0; i = (i + 1) & mask) {
        uint32_t home = home_of(map->keys[i], map->capacity);
        /* i's home lies cyclically in (hole, i]: it stays */
        bool stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
        if (!stays) {
            map->keys[hole] = map->keys[i];
            map->values[hole] = map->values[i];
            hole = i;
        }
    }
    map->values[hole] = -1;
    map->count -= 1;
}

void ts_key_map_clear(ts_key_map *map)
{
    if (map->capacity > 0) {
        memset(map->values, 0xff, (size_t)map->capacity * sizeof(int32_t));
    }
    map->count = 0;
}

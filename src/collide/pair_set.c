/* Shape pair -> contact hash map (see pair_set.h). */
#include "collide/pair_set.h"

#include "base/alloc.h"

#include <string.h>

/* A 64-bit mix (the finaliser of MurmurHash3) so that keys of nearby shape
 * indices spread over the table. */
static uint32_t slot_of(uint64_t key, int32_t capacity)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ull;
    key ^= key >> 33;
    return (uint32_t)key & (uint32_t)(capacity - 1);
}

void ts_pair_set_destroy(ts_pair_set *set, const ts_allocator *allocator)
{
    ts_free(allocator, set->keys, (size_t)set->capacity * sizeof(uint64_t));
    ts_free(allocator, set->values, (size_t)set->capacity * sizeof(int32_t));
    memset(set, 0, sizeof *set);
}

void ts_pair_set_prefetch(const ts_pair_set *set, uint64_t key)
{
#if defined(__GNUC__)
    if (set->capacity == 0) {
        return;
    }
    uint32_t i = slot_of(key, set->capacity);
    __builtin_prefetch(set->keys + i, 1);
    __builtin_prefetch(set->values + i, 1);
#else
    (void)set;
    (void)key;
#endif
}

static void insert(ts_pair_set *set, uint64_t key, int32_t value)
{
    uint32_t mask = (uint32_t)set->capacity - 1;
    uint32_t i = slot_of(key, set->capacity);
    while (set->keys[i] != 0) {
        i = (i + 1) & mask;
    }
    set->keys[i] = key;
    set->values[i] = value;
    set->count += 1;
}

bool ts_pair_set_reserve(ts_pair_set *set, const ts_allocator *allocator, int32_t count)
{
    if (2 * (int64_t)count <= set->capacity) {
        return true;
    }
    int32_t capacity = set->capacity < 64 ? 64 : set->capacity;
    while ((int64_t)capacity < 2 * (int64_t)count) {
        capacity *= 2;
    }
    uint64_t *keys = ts_alloc(allocator, (size_t)capacity * sizeof(uint64_t));
    int32_t *values = ts_alloc(allocator, (size_t)capacity * sizeof(int32_t));
    if (keys == NULL || values == NULL) {
        ts_free(allocator, keys, (size_t)capacity * sizeof(uint64_t));
        ts_free(allocator, values, (size_t)capacity * sizeof(int32_t));
        return false;
    }
    memset(keys, 0, (size_t)capacity * sizeof(uint64_t));
    ts_pair_set old = *set;
    set->keys = keys;
    set->values = values;
    set->capacity = capacity;
    set->count = 0;
    for (int32_t i = 0; i < old.capacity; ++i) {
        if (old.keys[i] != 0) {
            insert(set, old.keys[i], old.values[i]);
        }
    }
    ts_free(allocator, old.keys, (size_t)old.capacity * sizeof(uint64_t));
    ts_free(allocator, old.values, (size_t)old.capacity * sizeof(int32_t));
    return true;
}

int32_t ts_pair_set_find(const ts_pair_set *set, uint64_t key)
{
    if (set->capacity == 0) {
        return -1;
    }
    uint32_t mask = (uint32_t)set->capacity - 1;
    for (uint32_t i = slot_of(key, set->capacity);; i = (i + 1) & mask) {
        if (set->keys[i] == key) {
            return set->values[i];
        }
        if (set->keys[i] == 0) {
            return -1;
        }
    }
}

void ts_pair_set_add(ts_pair_set *set, uint64_t key, int32_t value)
{
    TS_ASSERT(2 * (int64_t)(set->count + 1) <= set->capacity && key != 0);
    insert(set, key, value);
}

void ts_pair_set_remove(ts_pair_set *set, uint64_t key)
{
    uint32_t mask = (uint32_t)set->capacity - 1;
    uint32_t i = slot_of(key, set->capacity);
    while (set->keys[i] != key) {
        TS_ASSERT(set->keys[i] != 0);
        i = (i + 1) & mask;
    }
    /* Backward shift: pull later entries of the probe run into the hole when
     * their home slot is not between the hole and them. */
    uint32_t hole = i;
    for (uint32_t j = (hole + 1) & mask; set->keys[j] != 0; j = (j + 1) & mask) {
        uint32_t home = slot_of(set->keys[j], set->capacity);
        bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
        if (movable) {
            set->keys[hole] = set->keys[j];
            set->values[hole] = set->values[j];
            hole = j;
        }
    }
    set->keys[hole] = 0;
    set->count -= 1;
}

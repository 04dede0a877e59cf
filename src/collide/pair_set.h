/* A hash map from a shape pair to its contact: open addressing with linear
 * probing and backward-shift deletion (no tombstones), keys are
 * (lower shape index << 32) | higher shape index, never 0. */
#ifndef TS_PAIR_SET_H
#define TS_PAIR_SET_H

#include "base/core.h"

#include <stdbool.h>

typedef struct ts_pair_set {
    uint64_t *keys;   /* 0 = empty */
    int32_t *values;  /* contact id of each key */
    int32_t capacity; /* a power of two */
    int32_t count;
} ts_pair_set;

static inline uint64_t ts_pair_key(int32_t shape_a, int32_t shape_b)
{
    uint32_t lo = (uint32_t)(shape_a < shape_b ? shape_a : shape_b);
    uint32_t hi = (uint32_t)(shape_a < shape_b ? shape_b : shape_a);
    return ((uint64_t)lo << 32) | hi;
}

void ts_pair_set_destroy(ts_pair_set *set, const ts_allocator *allocator);

/* Makes room for `count` keys at a load of at most one half. */
bool ts_pair_set_reserve(ts_pair_set *set, const ts_allocator *allocator, int32_t count);

/* The contact of a key, or -1. */
int32_t ts_pair_set_find(const ts_pair_set *set, uint64_t key);

/* Starts bringing the key's first slot into the cache (filling a large
 * set in a loop: ask a few keys ahead). */
void ts_pair_set_prefetch(const ts_pair_set *set, uint64_t key);

/* Adds a key that is not in the set (room reserved). */
void ts_pair_set_add(ts_pair_set *set, uint64_t key, int32_t value);

/* Removes a key that is in the set. */
void ts_pair_set_remove(ts_pair_set *set, uint64_t key);

#endif

/* Growable arrays through the world's allocator: capacity doubles, so a
 * world that has reached its size allocates no more. */
#ifndef TS_ARRAY_H
#define TS_ARRAY_H

#include "base/alloc.h"

#include <stdbool.h>

/* The capacity after growing `capacity` to hold `needed`: doubled until it does. */
static inline int32_t ts_array_grown(int32_t capacity, int32_t needed)
{
    int32_t grown = capacity < 16 ? 16 : capacity;
    while (grown < needed && grown <= INT32_MAX / 2) {
        grown *= 2;
    }
    return grown < needed ? needed : grown;
}

/* Makes room for `needed` elements of `element_size` bytes in *data (with
 * *capacity elements now). On failure nothing changes. */
static inline bool ts_array_reserve(const ts_allocator *allocator, void **data, int32_t *capacity, int32_t needed,
                                    size_t element_size)
{
    if (needed <= *capacity) {
        return true;
    }
    int32_t grown = ts_array_grown(*capacity, needed);
    void *fresh = ts_realloc(allocator, *data, (size_t)*capacity * element_size, (size_t)grown * element_size);
    if (fresh == NULL) {
        return false;
    }
    *data = fresh;
    *capacity = grown;
    return true;
}

/* ts_array_reserve for scratch whose contents need not survive the growth
 * (rewritten before they are read again): the old block is freed instead
 * of copied. A step's solver scratch runs to tens of MB, and the copy (and
 * the page faults of the fresh block it touches) ran serially on worker 0.
 * On failure nothing changes. */
static inline bool ts_array_reserve_scratch(const ts_allocator *allocator, void **data, int32_t *capacity,
                                            int32_t needed, size_t element_size)
{
    if (needed <= *capacity) {
        return true;
    }
    int32_t grown = ts_array_grown(*capacity, needed);
    void *fresh = ts_alloc(allocator, (size_t)grown * element_size);
    if (fresh == NULL) {
        return false;
    }
    ts_free(allocator, *data, (size_t)*capacity * element_size);
    *data = fresh;
    *capacity = grown;
    return true;
}

/* Frees an array made by ts_array_reserve. */
static inline void ts_array_free(const ts_allocator *allocator, void **data, int32_t *capacity, size_t element_size)
{
    ts_free(allocator, *data, (size_t)*capacity * element_size);
    *data = NULL;
    *capacity = 0;
}

#endif

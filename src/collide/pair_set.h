/* The map from a shape pair to its contact: a ts_key_map (base/key_map.h)
 * whose keys are (lower shape index << 32) | higher shape index. */
#ifndef TS_PAIR_SET_H
#define TS_PAIR_SET_H

#include "base/key_map.h"

static inline uint64_t ts_pair_key(int32_t shape_a, int32_t shape_b)
{
    uint32_t lo = (uint32_t)(shape_a < shape_b ? shape_a : shape_b);
    uint32_t hi = (uint32_t)(shape_a < shape_b ? shape_b : shape_a);
    return ((uint64_t)lo << 32) | hi;
}

#endif

/* The radix sorts of radix_sort.h. */
#include "base/radix_sort.h"

#include <string.h>

#define TS_RADIX_BYTES 8

/* The count of every byte value at every byte of the keys, in one pass;
 * then whether byte d moves anything (its keys do not all share a value). */
typedef struct radix_counts {
    int32_t count[TS_RADIX_BYTES][256];
} radix_counts;

static void count_key(radix_counts *c, uint64_t key)
{
    for (int d = 0; d < TS_RADIX_BYTES; ++d) {
        c->count[d][(key >> (8 * d)) & 0xffu] += 1;
    }
}

/* Turns byte d's counts into first places; false: one value holds all n
 * keys, the pass would move nothing. */
static int starts_of(radix_counts *c, int d, int32_t n)
{
    int32_t *count = c->count[d];
    int32_t start = 0;
    for (int v = 0; v < 256; ++v) {
        int32_t size = count[v];
        if (size == n) {
            return 0;
        }
        count[v] = start;
        start += size;
    }
    return 1;
}

void ts_sort_keys(uint64_t *keys, uint64_t *scratch, int32_t n)
{
    if (n < 2) {
        return;
    }
    radix_counts c;
    memset(&c, 0, sizeof c);
    for (int32_t k = 0; k < n; ++k) {
        count_key(&c, keys[k]);
    }
    uint64_t *from = keys, *to = scratch;
    for (int d = 0; d < TS_RADIX_BYTES; ++d) {
        if (!starts_of(&c, d, n)) {
            continue;
        }
        int32_t *next = c.count[d];
        for (int32_t k = 0; k < n; ++k) {
            to[next[(from[k] >> (8 * d)) & 0xffu]++] = from[k];
        }
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != keys) {
        memcpy(keys, from, (size_t)n * sizeof *keys);
    }
}

void ts_sort_order(const uint64_t *keys, int32_t *order, int32_t *scratch, int32_t n)
{
    if (n < 2) {
        return;
    }
    radix_counts c;
    memset(&c, 0, sizeof c);
    for (int32_t k = 0; k < n; ++k) {
        count_key(&c, keys[order[k]]);
    }
    int32_t *from = order, *to = scratch;
    for (int d = 0; d < TS_RADIX_BYTES; ++d) {
        if (!starts_of(&c, d, n)) {
            continue;
        }
        int32_t *next = c.count[d];
        for (int32_t k = 0; k < n; ++k) {
            to[next[(keys[from[k]] >> (8 * d)) & 0xffu]++] = from[k];
        }
        int32_t *t = from;
        from = to;
        to = t;
    }
    if (from != order) {
        memcpy(order, from, (size_t)n * sizeof *order);
    }
}

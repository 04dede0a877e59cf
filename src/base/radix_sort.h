/* Stable radix sorts of 64-bit keys, for the step's small sorts (the new
 * pairs' keys, the contact events): no allocation (the caller gives the
 * scratch), no comparison callback.
 *
 * Least significant byte first, one counting pass a byte; a byte that is
 * the same in every key moves nothing and is skipped, so keys made of two
 * small 32-bit indices (shape pairs: two bytes each below 65,536 shapes)
 * take four passes. Each pass is stable, so the result is the order of
 * the keys with ties kept in input order: the same for every input order
 * of distinct keys, as any correct sort's. */
#ifndef TS_RADIX_SORT_H
#define TS_RADIX_SORT_H

#include <stdint.h>

/* Sorts keys[0, n) ascending; scratch holds n keys. */
void ts_sort_keys(uint64_t *keys, uint64_t *scratch, int32_t n);

/* Orders the positions order[0, n) stably by keys[order[k]] ascending (the
 * keys stay where they are); scratch holds n positions. Sorting by a
 * second key first and then by the first gives the order by (first,
 * second). */
void ts_sort_order(const uint64_t *keys, int32_t *order, int32_t *scratch, int32_t n);

#endif

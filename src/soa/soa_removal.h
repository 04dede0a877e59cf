/* Removing many objects from a SoA table at once: the slot bookkeeping on one
 * thread, the copying of the columns on any threads.
 *
 * ts_soa_remove fills the hole of a removed object with the last object of
 * each range after it, copying every column of the moved objects each time.
 * A batch of removals does the same bookkeeping in the same order (ids,
 * slots and ranges end up exactly as ts_soa_remove one by one would leave
 * them) but only records where each slot's object came from, and copies each
 * surviving moved object once, at the end:
 *
 *   ts_soa_removal_reserve(removal, allocator, slots)   room (once per table size)
 *   ts_soa_remove_deferred(table, removal, slot)        per object, in order, one thread
 *   ranges = ts_soa_removal_plan(table, removal)        one thread
 *   for r in [0, ranges): ts_soa_removal_copy(table, columns, removal, r, k)
 *                                                       per move k of range r, any threads;
 *                                                       range r after range r - 1
 *   ts_soa_removal_clear(removal)                       one thread
 *
 * Between the first deferred removal and the copies the columns are stale
 * (the maps already point at slots whose elements have not arrived): read
 * nothing from them in between.
 *
 * Why the copies of one range may run in any order: a removal in range r
 * takes the object in the range's last slot, end[r] - 1, which never drops
 * below the range's final end. So every object that moves within range r
 * comes from a slot at or past the final end[r] and goes to a slot before
 * it: sources and destinations of one range are disjoint. Destinations of
 * range r lie before the final end[r] and the sources of later ranges at or
 * past their final ends, so range by range no copy overwrites a source that
 * is still to be read. */
#ifndef TS_SOA_REMOVAL_H
#define TS_SOA_REMOVAL_H

#include "soa/soa_table.h"

typedef struct ts_soa_removal {
    int32_t *origin;   /* per slot: the batch-start slot of the object it holds now, or -1 (not moved) */
    int32_t *received; /* slots that received an object in this batch, each once */
    int32_t *moves;    /* after plan: the destinations to copy, grouped by their range */
    int32_t received_count;
    int32_t move_begin[TS_SOA_MAX_RANGES + 1]; /* after plan: range r's moves are [move_begin[r], move_begin[r + 1]) */
    int32_t capacity;
} ts_soa_removal;

/* Room for a table of `slots` slots; false when out of memory (nothing changes). */
bool ts_soa_removal_reserve(ts_soa_removal *removal, const ts_allocator *allocator, int32_t slots);
void ts_soa_removal_destroy(ts_soa_removal *removal, const ts_allocator *allocator);

/* ts_soa_remove without touching the columns. */
void ts_soa_remove_deferred(ts_soa_table *table, ts_soa_removal *removal, int32_t slot);

/* Lists the copies the batch needs, by range; returns the number of ranges. */
int ts_soa_removal_plan(const ts_soa_table *table, ts_soa_removal *removal);

/* Number of copies in range r (after plan). */
static inline int32_t ts_soa_removal_moves(const ts_soa_removal *removal, int r)
{
    return removal->move_begin[r + 1] - removal->move_begin[r];
}

/* Copies the object of moves [begin, end) of range r to its final slot. */
void ts_soa_removal_copy(const ts_soa_table *table, void **columns, const ts_soa_removal *removal, int r,
                         int32_t begin, int32_t end);

/* Ends the batch (the next one starts clean). */
void ts_soa_removal_clear(ts_soa_removal *removal);

#endif

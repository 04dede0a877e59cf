/* A dense structure-of-arrays table with stable ids and ordered ranges: the
 * machinery shared by the body store and the contact store.
 *
 * Every column holds 4-byte elements (float, int32_t or uint32_t), `width` of
 * them per slot (1 for per-object values, 4 for per-contact-point values).
 * Slots are split into consecutive ranges [end[r-1], end[r]); an object moves
 * between ranges by swapping with a range boundary, so every range stays
 * dense and a per-range loop runs over contiguous memory. Slots change; ids
 * do not: slot_of_id and id_of_slot follow every swap.
 *
 * The owner keeps its column pointers in an array (usually a union with named
 * pointers) and passes it to every call. */
#ifndef TS_SOA_TABLE_H
#define TS_SOA_TABLE_H

#include "base/core.h"

#include <stdbool.h>

#define TS_SOA_MAX_RANGES 3

typedef struct ts_soa_layout {
    int column_count;
    int range_count;
    const uint8_t *widths; /* elements per slot, per column */
} ts_soa_layout;

typedef struct ts_soa_table {
    ts_soa_layout layout;
    int32_t *id_of_slot;
    int32_t *slot_of_id; /* -1 when the id is not in the table */
    int32_t count;
    int32_t capacity;
    int32_t id_capacity;
    int32_t end[TS_SOA_MAX_RANGES]; /* end[range_count - 1] == count */
    uint32_t revision; /* bumped whenever an object's slot changes (add, remove, move) */
} ts_soa_table;

void ts_soa_init(ts_soa_table *table, ts_soa_layout layout);
void ts_soa_destroy(ts_soa_table *table, void **columns, const ts_allocator *allocator);

/* Makes room for `slots` objects and for ids below `ids`. On failure nothing
 * changes. */
bool ts_soa_reserve(ts_soa_table *table, void **columns, const ts_allocator *allocator, int32_t slots, int32_t ids);

/* Adds an id (room reserved) to a range with every element zero; returns its slot. */
int32_t ts_soa_add(ts_soa_table *table, void **columns, int32_t id, int range);

/* ts_soa_add without zeroing: the new object's elements are undefined until
 * the caller zeroes them (ts_soa_zero_slot, at the slot the object has then).
 * Lets a batch of adds do the bookkeeping in order and the filling in
 * parallel, with the same result as ts_soa_add one by one. */
int32_t ts_soa_add_unfilled(ts_soa_table *table, void **columns, int32_t id, int range);

/* Sets every element of one slot to zero; touches only that slot. */
void ts_soa_zero_slot(const ts_soa_table *table, void **columns, int32_t slot);

/* Removes the object in slot; other objects' slots may change. */
void ts_soa_remove(ts_soa_table *table, void **columns, int32_t slot);

/* The walk of ts_soa_remove with the elements' moves left to `move`
 * (context, from, to), called for each object that fills the hole, in
 * order; the maps, range ends and count change as in ts_soa_remove. */
typedef void ts_soa_move_fn(void *context, int32_t from, int32_t to);
void ts_soa_remove_with(ts_soa_table *table, int32_t slot, ts_soa_move_fn *move, void *context);

/* Reorders the slots [0, count) (within one range): the object in slot
 * order[k] goes to slot k, order a permutation of [0, count). Column by
 * column, so that several workers can share the columns; then the maps.
 * scratch: count times the column's width elements. */
void ts_soa_permute_column(const ts_soa_table *table, void **columns, int column, const int32_t *order,
                           int32_t count, uint32_t *scratch);
/* ... and the maps, after every column (scratch: count elements). Bumps the
 * revision: slots changed. */
void ts_soa_permute_ids(ts_soa_table *table, const int32_t *order, int32_t count, int32_t *scratch);

/* Moves an object to another range; returns its new slot. */
int32_t ts_soa_move(ts_soa_table *table, void **columns, int32_t slot, int range);

static inline int ts_soa_range_of(const ts_soa_table *table, int32_t slot)
{
    int r = 0;
    while (slot >= table->end[r]) {
        ++r;
    }
    return r;
}

static inline int32_t ts_soa_range_begin(const ts_soa_table *table, int range)
{
    return range == 0 ? 0 : table->end[range - 1];
}

/* The two maps are inverse and the ranges ordered (for tests). */
bool ts_soa_validate(const ts_soa_table *table);

#endif

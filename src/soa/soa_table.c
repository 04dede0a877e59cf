/* Dense SoA table with stable ids and ordered ranges (see soa_table.h). */
#include "soa/soa_table.h"

#include "base/alloc.h"

#include <string.h>

void ts_soa_init(ts_soa_table *table, ts_soa_layout layout)
{
    TS_ASSERT(layout.range_count >= 1 && layout.range_count <= TS_SOA_MAX_RANGES);
    memset(table, 0, sizeof *table);
    table->layout = layout;
}

static size_t column_bytes(const ts_soa_table *table, int column, int32_t slots)
{
    return (size_t)slots * table->layout.widths[column] * sizeof(uint32_t);
}

/* All columns live in one block, each starting on a 64-byte line: one
 * allocation per growth, and a block large enough for the allocator to back
 * it with large pages (a 10,000-body pile's contact store is 15 MB; as 36
 * blocks of 0.25-1 MB each it could not be, and a loaded world's first touch
 * of every 4 KB page cost more than the load itself; see alloc.h). */
/* Where the next column starts after one of `bytes`: on a 64-byte line, one
 * line further than it needs. Columns of a power-of-two capacity would
 * otherwise start a multiple of 4 KB apart, and a loop reading slot i of
 * a dozen columns (px, py, pz, qx, ...) would ask for a dozen lines of the
 * same L1 set, more than its ways hold. */
static size_t column_step(size_t bytes) { return ((bytes + 63) & ~(size_t)63) + 64; }

static size_t block_bytes(const ts_soa_table *table, int32_t slots)
{
    size_t total = 0;
    for (int c = 0; c < table->layout.column_count; ++c) {
        total += column_step(column_bytes(table, c, slots));
    }
    return total;
}

void ts_soa_destroy(ts_soa_table *table, void **columns, const ts_allocator *allocator)
{
    ts_free(allocator, columns[0], block_bytes(table, table->capacity));
    for (int c = 0; c < table->layout.column_count; ++c) {
        columns[c] = NULL;
    }
    ts_free(allocator, table->id_of_slot, (size_t)table->capacity * sizeof(int32_t));
    ts_free(allocator, table->slot_of_id, (size_t)table->id_capacity * sizeof(int32_t));
    ts_soa_init(table, table->layout);
}

static int32_t grown_capacity(int32_t current, int32_t needed)
{
    int32_t capacity = current < 64 ? 64 : current;
    while (capacity < needed && capacity <= INT32_MAX / 2) {
        capacity *= 2;
    }
    return capacity < needed ? needed : capacity;
}

/* The new block is allocated before the old one is freed, so a failure
 * leaves the table as it was. */
static bool grow_slots(ts_soa_table *table, void **columns, const ts_allocator *allocator, int32_t capacity)
{
    int n = table->layout.column_count;
    int32_t *fresh_ids = ts_alloc(allocator, (size_t)capacity * sizeof(int32_t));
    uint8_t *block = ts_alloc(allocator, block_bytes(table, capacity));
    if (fresh_ids == NULL || block == NULL) {
        ts_free(allocator, block, block_bytes(table, capacity));
        ts_free(allocator, fresh_ids, (size_t)capacity * sizeof(int32_t));
        return false;
    }
    void *old_block = columns[0];
    size_t at = 0;
    for (int c = 0; c < n; ++c) {
        if (table->count > 0) {
            memcpy(block + at, columns[c], column_bytes(table, c, table->count));
        }
        columns[c] = block + at;
        at += column_step(column_bytes(table, c, capacity));
    }
    ts_free(allocator, old_block, block_bytes(table, table->capacity));
    if (table->count > 0) {
        memcpy(fresh_ids, table->id_of_slot, (size_t)table->count * sizeof(int32_t));
    }
    ts_free(allocator, table->id_of_slot, (size_t)table->capacity * sizeof(int32_t));
    table->id_of_slot = fresh_ids;
    table->capacity = capacity;
    return true;
}

bool ts_soa_reserve(ts_soa_table *table, void **columns, const ts_allocator *allocator, int32_t slots, int32_t ids)
{
    if (ids > table->id_capacity) {
        int32_t capacity = grown_capacity(table->id_capacity, ids);
        int32_t *grown = ts_realloc(allocator, table->slot_of_id, (size_t)table->id_capacity * sizeof(int32_t),
                                    (size_t)capacity * sizeof(int32_t));
        if (grown == NULL) {
            return false;
        }
        for (int32_t i = table->id_capacity; i < capacity; ++i) {
            grown[i] = -1;
        }
        table->slot_of_id = grown;
        table->id_capacity = capacity;
    }
    if (slots <= table->capacity) {
        return true;
    }
    return grow_slots(table, columns, allocator, grown_capacity(table->capacity, slots));
}

static void swap_slots(ts_soa_table *table, void **columns, int32_t a, int32_t b)
{
    if (a == b) {
        return;
    }
    for (int c = 0; c < table->layout.column_count; ++c) {
        uint32_t *column = columns[c];
        int w = table->layout.widths[c];
        for (int k = 0; k < w; ++k) {
            uint32_t t = column[a * w + k];
            column[a * w + k] = column[b * w + k];
            column[b * w + k] = t;
        }
    }
    table->revision += 1;
    int32_t id_a = table->id_of_slot[a];
    int32_t id_b = table->id_of_slot[b];
    table->id_of_slot[a] = id_b;
    table->id_of_slot[b] = id_a;
    table->slot_of_id[id_a] = b;
    table->slot_of_id[id_b] = a;
}

int32_t ts_soa_move(ts_soa_table *table, void **columns, int32_t slot, int range)
{
    int current = ts_soa_range_of(table, slot);
    table->revision += current != range ? 1u : 0u; /* the ranges change even when no slot does */
    /* Towards the end: swap with the last slot of the range, which then
     * becomes the first slot of the next range. */
    while (current < range) {
        int32_t last = table->end[current] - 1;
        swap_slots(table, columns, slot, last);
        table->end[current] -= 1;
        slot = last;
        current += 1;
    }
    /* Towards the front: swap with the first slot of the range and grow the
     * previous range over it. */
    while (current > range) {
        int32_t first = ts_soa_range_begin(table, current);
        swap_slots(table, columns, slot, first);
        table->end[current - 1] += 1;
        slot = first;
        current -= 1;
    }
    return slot;
}

void ts_soa_zero_slot(const ts_soa_table *table, void **columns, int32_t slot)
{
    for (int c = 0; c < table->layout.column_count; ++c) {
        int w = table->layout.widths[c];
        memset((uint32_t *)columns[c] + (size_t)slot * w, 0, (size_t)w * sizeof(uint32_t));
    }
}

int32_t ts_soa_add_unfilled(ts_soa_table *table, void **columns, int32_t id, int range)
{
    TS_ASSERT(table->count < table->capacity && id < table->id_capacity);
    int32_t slot = table->count;
    table->id_of_slot[slot] = id;
    table->slot_of_id[id] = slot;
    table->count += 1;
    table->end[table->layout.range_count - 1] = table->count;
    table->revision += 1;
    /* Swaps move whole slots, so the other objects keep their elements. */
    return ts_soa_move(table, columns, slot, range);
}

int32_t ts_soa_add(ts_soa_table *table, void **columns, int32_t id, int range)
{
    int32_t slot = ts_soa_add_unfilled(table, columns, id, range);
    ts_soa_zero_slot(table, columns, slot);
    return slot;
}

/* Copies slot `from` over slot `to` (whose object is being removed). */
/* The object in slot `from` fills slot `to`: its elements by `move`, its
 * maps here. */
static void fill_hole(ts_soa_table *table, int32_t from, int32_t to, ts_soa_move_fn *move, void *context)
{
    move(context, from, to);
    int32_t id = table->id_of_slot[from];
    table->id_of_slot[to] = id;
    table->slot_of_id[id] = to;
}

void ts_soa_remove_with(ts_soa_table *table, int32_t slot, ts_soa_move_fn *move, void *context)
{
    table->slot_of_id[table->id_of_slot[slot]] = -1;
    int last_range = table->layout.range_count - 1;
    int32_t hole = slot;
    for (int r = ts_soa_range_of(table, slot); r < last_range; ++r) {
        int32_t last = table->end[r] - 1;
        if (last != hole) {
            fill_hole(table, last, hole, move, context);
        }
        table->end[r] -= 1;
        hole = last;
    }
    int32_t last = table->count - 1;
    if (last != hole) {
        fill_hole(table, last, hole, move, context);
    }
    table->count -= 1;
    table->revision += 1; /* slots changed */
    table->end[last_range] = table->count;
}

typedef struct column_copy {
    const ts_soa_table *table;
    void **columns;
} column_copy;

static void copy_columns(void *context, int32_t from, int32_t to)
{
    const column_copy *copy = context;
    for (int c = 0; c < copy->table->layout.column_count; ++c) {
        uint32_t *column = copy->columns[c];
        int w = copy->table->layout.widths[c];
        memcpy(column + (size_t)to * w, column + (size_t)from * w, (size_t)w * sizeof(uint32_t));
    }
}

/* The slots end up as ts_soa_move to the last range and a swap with the last
 * slot would leave them, but the removed object is never carried along: the
 * hole moves instead, each range's last object filling it (half the copying,
 * which is what destroying parted contacts on worker 0 costs). */
void ts_soa_remove(ts_soa_table *table, void **columns, int32_t slot)
{
    column_copy copy = {table, columns};
    ts_soa_remove_with(table, slot, copy_columns, &copy);
}

void ts_soa_permute_column(const ts_soa_table *table, void **columns, int column, const int32_t *order,
                           int32_t count, uint32_t *scratch)
{
    uint32_t *data = columns[column];
    int w = table->layout.widths[column];
    if (w == 1) {
        for (int32_t k = 0; k < count; ++k) {
            scratch[k] = data[order[k]];
        }
    } else {
        for (int32_t k = 0; k < count; ++k) {
            memcpy(scratch + (size_t)k * w, data + (size_t)order[k] * w, (size_t)w * sizeof(uint32_t));
        }
    }
    memcpy(data, scratch, (size_t)count * w * sizeof(uint32_t));
}

void ts_soa_permute_ids(ts_soa_table *table, const int32_t *order, int32_t count, int32_t *scratch)
{
    for (int32_t k = 0; k < count; ++k) {
        scratch[k] = table->id_of_slot[order[k]];
    }
    for (int32_t k = 0; k < count; ++k) {
        table->id_of_slot[k] = scratch[k];
        table->slot_of_id[scratch[k]] = k;
    }
    table->revision += 1;
}

bool ts_soa_validate(const ts_soa_table *table)
{
    int ranges = table->layout.range_count;
    int32_t previous = 0;
    for (int r = 0; r < ranges; ++r) {
        if (table->end[r] < previous) {
            return false;
        }
        previous = table->end[r];
    }
    if (table->end[ranges - 1] != table->count || table->count > table->capacity) {
        return false;
    }
    int32_t mapped = 0;
    for (int32_t id = 0; id < table->id_capacity; ++id) {
        int32_t slot = table->slot_of_id[id];
        if (slot < 0) {
            continue;
        }
        if (slot >= table->count || table->id_of_slot[slot] != id) {
            return false;
        }
        mapped += 1;
    }
    return mapped == table->count;
}

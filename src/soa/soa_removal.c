/* Batched removal from a SoA table (see soa_removal.h). */
#include "soa/soa_removal.h"

#include "base/alloc.h"

#include <string.h>

bool ts_soa_removal_reserve(ts_soa_removal *removal, const ts_allocator *allocator, int32_t slots)
{
    if (slots <= removal->capacity) {
        return true;
    }
    TS_ASSERT(removal->received_count == 0);
    int32_t capacity = removal->capacity < 64 ? 64 : removal->capacity;
    while (capacity < slots && capacity <= INT32_MAX / 2) {
        capacity *= 2;
    }
    capacity = capacity < slots ? slots : capacity;
    size_t bytes = (size_t)capacity * sizeof(int32_t);
    int32_t *origin = ts_alloc(allocator, bytes);
    int32_t *received = ts_alloc(allocator, bytes);
    int32_t *moves = ts_alloc(allocator, bytes);
    if (origin == NULL || received == NULL || moves == NULL) {
        ts_free(allocator, origin, bytes);
        ts_free(allocator, received, bytes);
        ts_free(allocator, moves, bytes);
        return false;
    }
    memset(origin, 0xff, bytes); /* -1: not moved */
    ts_soa_removal_destroy(removal, allocator);
    removal->origin = origin;
    removal->received = received;
    removal->moves = moves;
    removal->capacity = capacity;
    return true;
}

void ts_soa_removal_destroy(ts_soa_removal *removal, const ts_allocator *allocator)
{
    size_t bytes = (size_t)removal->capacity * sizeof(int32_t);
    ts_free(allocator, removal->origin, bytes);
    ts_free(allocator, removal->received, bytes);
    ts_free(allocator, removal->moves, bytes);
    memset(removal, 0, sizeof *removal);
}

/* The object in slot `from` moves to slot `to` (whose object is gone): the
 * maps follow now (ts_soa_remove_with), the elements at the copy. */
static void defer_move(void *context, int32_t from, int32_t to)
{
    ts_soa_removal *removal = context;
    int32_t source = removal->origin[from] >= 0 ? removal->origin[from] : from;
    if (removal->origin[to] < 0) {
        removal->received[removal->received_count++] = to;
    }
    removal->origin[to] = source;
}

/* ts_soa_remove's walk of the hole, step for step. */
void ts_soa_remove_deferred(ts_soa_table *table, ts_soa_removal *removal, int32_t slot)
{
    TS_ASSERT(table->capacity <= removal->capacity);
    ts_soa_remove_with(table, slot, defer_move, removal);
}

int ts_soa_removal_plan(const ts_soa_table *table, ts_soa_removal *removal)
{
    /* A counting sort of the surviving destinations by range; a slot past
     * the final count held an object that moved on or was removed. */
    int ranges = table->layout.range_count;
    int32_t counts[TS_SOA_MAX_RANGES] = {0};
    for (int32_t k = 0; k < removal->received_count; ++k) {
        int32_t to = removal->received[k];
        if (to < table->count) {
            counts[ts_soa_range_of(table, to)] += 1;
        }
    }
    int32_t next[TS_SOA_MAX_RANGES];
    removal->move_begin[0] = 0;
    for (int r = 0; r < ranges; ++r) {
        next[r] = removal->move_begin[r];
        removal->move_begin[r + 1] = removal->move_begin[r] + counts[r];
    }
    for (int32_t k = 0; k < removal->received_count; ++k) {
        int32_t to = removal->received[k];
        if (to < table->count) {
            removal->moves[next[ts_soa_range_of(table, to)]++] = to;
        }
    }
    return ranges;
}

void ts_soa_removal_copy(const ts_soa_table *table, void **columns, const ts_soa_removal *removal, int r,
                         int32_t begin, int32_t end)
{
    const int32_t *moves = removal->moves + removal->move_begin[r];
    const int32_t *origin = removal->origin;
    /* Column by column: each column's moves touch one array. */
    for (int c = 0; c < table->layout.column_count; ++c) {
        uint32_t *column = columns[c];
        int w = table->layout.widths[c];
        if (w == 1) {
            for (int32_t k = begin; k < end; ++k) {
                column[moves[k]] = column[origin[moves[k]]];
            }
            continue;
        }
        for (int32_t k = begin; k < end; ++k) {
            uint32_t *to = column + (size_t)moves[k] * w;
            const uint32_t *from = column + (size_t)origin[moves[k]] * w;
            for (int j = 0; j < w; ++j) {
                to[j] = from[j];
            }
        }
    }
}

void ts_soa_removal_clear(ts_soa_removal *removal)
{
    for (int32_t k = 0; k < removal->received_count; ++k) {
        removal->origin[removal->received[k]] = -1;
    }
    removal->received_count = 0;
}

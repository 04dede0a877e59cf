/* SoA body storage with awake / sleeping / static ranges (see body_store.h). */
#include "soa/body_store.h"

_Static_assert(sizeof(((ts_body_store *)0)->columns) == sizeof(float *) * TS_BODY_COLUMNS,
               "every named column must be in the column table");

static const uint8_t body_widths[TS_BODY_COLUMNS] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1,
};

void ts_body_store_init(ts_body_store *store)
{
    for (int c = 0; c < TS_BODY_COLUMNS; ++c) {
        store->columns[c] = NULL;
    }
    ts_soa_init(&store->table, (ts_soa_layout){TS_BODY_COLUMNS, TS_RANGE_COUNT, body_widths});
    store->locked_count = 0;
}

void ts_body_store_destroy(ts_body_store *store, const ts_allocator *allocator)
{
    ts_soa_destroy(&store->table, store->columns, allocator);
}

int32_t ts_body_store_add(ts_body_store *store, int32_t body, ts_body_range range)
{
    int32_t slot = ts_soa_add(&store->table, store->columns, body, (int)range);
    store->qw[slot] = 1.0f;
    return slot;
}

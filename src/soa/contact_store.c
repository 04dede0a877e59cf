/* SoA contact storage (see contact_store.h). */
#include "soa/contact_store.h"

_Static_assert(sizeof(((ts_contact_store *)0)->columns) == sizeof(void *) * TS_CONTACT_COLUMNS,
               "every named column must be in the column table");

/* 32 per-contact columns, then 7 per-point columns. */
static const uint8_t contact_widths[TS_CONTACT_COLUMNS] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    TS_CONTACT_POINTS, TS_CONTACT_POINTS, TS_CONTACT_POINTS, TS_CONTACT_POINTS, TS_CONTACT_POINTS, TS_CONTACT_POINTS,
    TS_CONTACT_POINTS,
};

void ts_contact_store_init(ts_contact_store *store)
{
    for (int c = 0; c < TS_CONTACT_COLUMNS; ++c) {
        store->columns[c] = NULL;
    }
    ts_soa_init(&store->table, (ts_soa_layout){TS_CONTACT_COLUMNS, TS_CONTACT_RANGE_COUNT, contact_widths});
}

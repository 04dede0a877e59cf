/* The filter of a query (tessera/query.h) applied to a shape: its bits and
 * the sensor flag first (cheap, before any geometry), the caller's callback
 * only for shapes the query found. */
#ifndef TS_COLLIDE_QUERY_FILTER_H
#define TS_COLLIDE_QUERY_FILTER_H

#include "soa/records.h"
#include "tessera/query.h"

/* Category and mask both ways, as two shapes that may touch; sensors never. */
static inline bool ts_query_filter_passes(const ts_query_filter *filter, const ts_shape *shape)
{
    return !shape->is_sensor && (shape->filter.category_bits & filter->mask_bits) != 0 &&
           (filter->category_bits & shape->filter.mask_bits) != 0;
}

/* The caller's own test, when it gave one. */
static inline bool ts_query_filter_accepts(const ts_query_filter *filter, const ts_records *records, int32_t shape)
{
    return filter->fn == NULL || filter->fn(ts_shape_id_of(records, shape), filter->context);
}

#endif

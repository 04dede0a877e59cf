/* Hands out small integer indices for ids, reusing freed ones last-in first-out,
 * so the same sequence of creates and destroys always gives the same indices. */
#ifndef TS_ID_POOL_H
#define TS_ID_POOL_H

#include "base/core.h"

#include <stdbool.h>

typedef struct ts_id_pool {
    int32_t *free_ids; /* stack of released indices */
    int32_t free_count;
    int32_t free_capacity;
    int32_t next_index; /* indices [0, next_index) have been handed out at least once */
} ts_id_pool;

void ts_id_pool_destroy(ts_id_pool *pool, const ts_allocator *allocator);

/* Call before ts_id_pool_take with live = ids that may then exist: makes room
 * in the free stack for all of them, so that ts_id_pool_release never
 * allocates or fails. */
bool ts_id_pool_reserve(ts_id_pool *pool, const ts_allocator *allocator, int32_t live);

/* The index the next ts_id_pool_take will return. */
static inline int32_t ts_id_pool_peek(const ts_id_pool *pool)
{
    return pool->free_count > 0 ? pool->free_ids[pool->free_count - 1] : pool->next_index;
}

int32_t ts_id_pool_take(ts_id_pool *pool);

/* Never fails: ts_id_pool_reserve made the room. */
void ts_id_pool_release(ts_id_pool *pool, int32_t index);

static inline int32_t ts_id_pool_live_count(const ts_id_pool *pool) { return pool->next_index - pool->free_count; }

#endif

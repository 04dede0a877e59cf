/* Index allocator for ids (see id_pool.h). */
#include "soa/id_pool.h"

#include "base/alloc.h"

void ts_id_pool_destroy(ts_id_pool *pool, const ts_allocator *allocator)
{
    ts_free(allocator, pool->free_ids, (size_t)pool->free_capacity * sizeof(int32_t));
    *pool = (ts_id_pool){0};
}

bool ts_id_pool_reserve(ts_id_pool *pool, const ts_allocator *allocator, int32_t live)
{
    int32_t needed = live > pool->next_index + 1 ? live : pool->next_index + 1;
    if (pool->free_capacity >= needed) {
        return true;
    }
    int32_t capacity = pool->free_capacity < 16 ? 16 : pool->free_capacity;
    while (capacity < needed && capacity <= INT32_MAX / 2) {
        capacity *= 2;
    }
    capacity = capacity < needed ? needed : capacity;
    int32_t *grown = ts_realloc(allocator, pool->free_ids, (size_t)pool->free_capacity * sizeof(int32_t),
                                (size_t)capacity * sizeof(int32_t));
    if (grown == NULL) {
        return false;
    }
    pool->free_ids = grown;
    pool->free_capacity = capacity;
    return true;
}

int32_t ts_id_pool_take(ts_id_pool *pool)
{
    if (pool->free_count > 0) {
        pool->free_count -= 1;
        return pool->free_ids[pool->free_count];
    }
    int32_t index = pool->next_index;
    pool->next_index += 1;
    return index;
}

void ts_id_pool_release(ts_id_pool *pool, int32_t index)
{
    TS_ASSERT(pool->free_count < pool->free_capacity);
    pool->free_ids[pool->free_count] = index;
    pool->free_count += 1;
}

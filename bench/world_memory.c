/* Counting allocator for the bench's worlds (world_memory.h). Steps may
 * allocate from worker threads during warm-up, so the counters are atomic. */
#include "world_memory.h"

#include <stdlib.h>

static world_memory counters;

static void *counting_alloc(size_t size, size_t alignment, void *context)
{
    (void)context;
    void *p = aligned_alloc(alignment, size); /* size is a multiple of alignment (types.h) */
    if (p != NULL) {
        int64_t live = __atomic_add_fetch(&counters.live_bytes, (int64_t)size, __ATOMIC_RELAXED);
        int64_t peak = __atomic_load_n(&counters.peak_bytes, __ATOMIC_RELAXED);
        while (live > peak &&
               !__atomic_compare_exchange_n(&counters.peak_bytes, &peak, live, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
        __atomic_add_fetch(&counters.allocations, 1, __ATOMIC_RELAXED);
    }
    return p;
}

static void counting_free(void *memory, size_t size, void *context)
{
    (void)context;
    if (memory != NULL) {
        __atomic_sub_fetch(&counters.live_bytes, (int64_t)size, __ATOMIC_RELAXED);
        free(memory);
    }
}

ts_allocator world_memory_allocator(void)
{
    return (ts_allocator){counting_alloc, counting_free, NULL};
}

void world_memory_reset(void)
{
    __atomic_store_n(&counters.live_bytes, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&counters.peak_bytes, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&counters.allocations, 0, __ATOMIC_RELAXED);
}

world_memory world_memory_read(void)
{
    return (world_memory){__atomic_load_n(&counters.live_bytes, __ATOMIC_RELAXED),
                          __atomic_load_n(&counters.peak_bytes, __ATOMIC_RELAXED),
                          __atomic_load_n(&counters.allocations, __ATOMIC_RELAXED)};
}

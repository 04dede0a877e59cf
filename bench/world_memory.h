/* The bench's allocator for tessera worlds: the C library's aligned
 * allocation with counters of the bytes a world holds (now and at most) and
 * of its allocations, so a run reports bytes per body and whether a timed
 * step allocated (it must not: the hot path allocates nothing after warm-up). */
#ifndef BENCH_WORLD_MEMORY_H
#define BENCH_WORLD_MEMORY_H

#include "tessera/tessera.h"

#include <stdint.h>

typedef struct world_memory {
    int64_t live_bytes;  /* allocated and not yet freed */
    int64_t peak_bytes;  /* the most live at once since the last reset */
    int64_t allocations; /* calls to alloc since the last reset */
} world_memory;

/* The allocator to put in ts_world_def.allocator. The counters are shared
 * by every world made with it (the bench runs one at a time). */
ts_allocator world_memory_allocator(void);

/* Zeroes the counters (before a world is created). */
void world_memory_reset(void);

world_memory world_memory_read(void);

#endif

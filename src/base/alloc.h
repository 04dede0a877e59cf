/* Allocation through the world's allocator callbacks. Every block is 64-byte
 * aligned (one cache line, room for the widest SIMD load) and its size is
 * rounded up to a multiple of 64; ts_free must be given the size that was asked. */
#ifndef TS_ALLOC_H
#define TS_ALLOC_H

#include "tessera/types.h"

#include <stddef.h>

#define TS_ALIGNMENT 64

/* The default allocator (C library aligned allocation). */
ts_allocator ts_default_allocator(void);

/* Returns NULL when the allocator fails or size is 0. */
void *ts_alloc(const ts_allocator *allocator, size_t size);
void ts_free(const ts_allocator *allocator, void *memory, size_t size);

/* Moves a block to a new size (keeping min(old, new) bytes). On failure returns
 * NULL and leaves the old block untouched. */
void *ts_realloc(const ts_allocator *allocator, void *memory, size_t old_size, size_t new_size);

#endif

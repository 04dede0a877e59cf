/* Allocation through the world's allocator callbacks (see alloc.h). */
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

static size_t round_up(size_t size) { return (size + (TS_ALIGNMENT - 1)) & ~(size_t)(TS_ALIGNMENT - 1); }

static void *default_alloc(size_t size, size_t alignment, void *context)
{
    (void)context;
    /* size is already a multiple of alignment, as aligned_alloc requires. */
    return aligned_alloc(alignment, size);
}

static void default_free(void *memory, size_t size, void *context)
{
    (void)size;
    (void)context;
    free(memory);
}

ts_allocator ts_default_allocator(void) { return (ts_allocator){default_alloc, default_free, NULL}; }

void *ts_alloc(const ts_allocator *allocator, size_t size)
{
    if (size == 0) {
        return NULL;
    }
    return allocator->alloc(round_up(size), TS_ALIGNMENT, allocator->context);
}

void ts_free(const ts_allocator *allocator, void *memory, size_t size)
{
    if (memory != NULL) {
        allocator->free(memory, round_up(size), allocator->context);
    }
}

void *ts_realloc(const ts_allocator *allocator, void *memory, size_t old_size, size_t new_size)
{
    void *fresh = ts_alloc(allocator, new_size);
    if (fresh == NULL) {
        return NULL;
    }
    if (memory != NULL) {
        memcpy(fresh, memory, old_size < new_size ? old_size : new_size);
        ts_free(allocator, memory, old_size);
    }
    return fresh;
}

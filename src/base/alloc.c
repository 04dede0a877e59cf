/* Allocation through the world's allocator callbacks (see alloc.h). */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS and madvise's MADV_HUGEPAGE */
#endif
#include "base/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

static size_t round_up(size_t size) { return (size + (TS_ALIGNMENT - 1)) & ~(size_t)(TS_ALIGNMENT - 1); }

/* Large blocks (Linux): a block of 512 KB or more (the SoA stores and record
 * arrays of a large world) is mapped from the system directly, 2 MB aligned
 * and rounded up to whole 2 MB, and asked to be backed by 2 MB pages
 * (MADV_HUGEPAGE; the kernel falls back to 4 KB pages when it has none).
 * Why: the first touch of each 4 KB page is a page fault, which costs ~14 us
 * on the VMs CI runs on: a loaded 10,000-body pile touches 20 MB, 5,000
 * faults, 70 ms, where touching it in 2 MB pages takes ~2 ms (and a step
 * over it misses the TLB less). The cost: a large block once touched holds
 * up to 2 MB more than it asked (four times the size of one of 512 KB):
 * a few MB for a world of 10,000 bodies.
 * free is given the size that was allocated, so the size says which kind a
 * block is. */
#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define TS_LARGE_BLOCK ((size_t)512 << 10) /* from this size on */
#define TS_LARGE_PAGE ((size_t)2 << 20)

static size_t round_up_large(size_t size) { return (size + (TS_LARGE_PAGE - 1)) & ~(TS_LARGE_PAGE - 1); }

static void *map_large(size_t size)
{
    size_t length = round_up_large(size);
    if (length < size || length > SIZE_MAX - TS_LARGE_PAGE) {
        return NULL;
    }
    /* map 2 MB more than needed, then unmap what lies outside the aligned part */
    uint8_t *mapped = mmap(NULL, length + TS_LARGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
        return NULL;
    }
    uint8_t *block = (uint8_t *)(((uintptr_t)mapped + TS_LARGE_PAGE - 1) & ~(uintptr_t)(TS_LARGE_PAGE - 1));
    if (block > mapped) {
        munmap(mapped, (size_t)(block - mapped));
    }
    size_t tail = (size_t)(mapped + length + TS_LARGE_PAGE - (block + length));
    if (tail > 0) {
        munmap(block + length, tail);
    }
    (void)madvise(block, length, MADV_HUGEPAGE); /* a hint: without it, 4 KB pages */
    return block;
}
#endif

static void *default_alloc(size_t size, size_t alignment, void *context)
{
    (void)context;
#ifdef TS_LARGE_BLOCK
    if (size >= TS_LARGE_BLOCK) {
        return map_large(size);
    }
#endif
    /* size is already a multiple of alignment, as aligned_alloc requires. */
    return aligned_alloc(alignment, size);
}

static void default_free(void *memory, size_t size, void *context)
{
    (void)context;
#ifdef TS_LARGE_BLOCK
    if (size >= TS_LARGE_BLOCK) {
        munmap(memory, round_up_large(size));
        return;
    }
#else
    (void)size;
#endif
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

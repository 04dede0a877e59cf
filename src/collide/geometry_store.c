/* Shared, reference-counted geometry blocks (see geometry_store.h).
 *
 * A block is [header][data][copy of the input points], the header and the
 * data each a multiple of 64 bytes, so the data's address gives the header
 * back. Shared blocks also sit in a chained hash table by key. */
#include "collide/geometry_store.h"

#include "base/alloc.h"

#include <string.h>

struct ts_geometry_block {
    ts_geometry_block *prev, *next; /* every block */
    ts_geometry_block *bucket_next; /* shared blocks of the same bucket */
    size_t size;                    /* of the whole block */
    size_t data_size;
    uint64_t key;
    int32_t refs;
    int32_t point_count; /* 0: not shared */
};

#define HEADER_SIZE ((sizeof(ts_geometry_block) + 63u) & ~(size_t)63u)

static ts_geometry_block *block_of(const void *data) { return (ts_geometry_block *)((char *)data - HEADER_SIZE); }
static void *data_of(ts_geometry_block *b) { return (char *)b + HEADER_SIZE; }
static const ts_vec3 *points_of(ts_geometry_block *b) { return (const ts_vec3 *)((char *)data_of(b) + b->data_size); }

uint64_t ts_geometry_key(const ts_vec3 *points, int count)
{
    uint64_t h = 14695981039346656037ull;
    const unsigned char *bytes = (const unsigned char *)points;
    for (size_t i = 0; i < (size_t)count * sizeof(ts_vec3); ++i) {
        h = (h ^ bytes[i]) * 1099511628211ull;
    }
    return (h ^ (uint64_t)count) * 1099511628211ull;
}

const void *ts_geometry_find(ts_geometry_store *store, uint64_t key, const ts_vec3 *points, int count)
{
    if (store->bucket_count == 0) {
        return NULL;
    }
    for (ts_geometry_block *b = store->buckets[key & (uint64_t)(store->bucket_count - 1)]; b != NULL;
         b = b->bucket_next) {
        if (b->key == key && b->point_count == count &&
            memcmp(points_of(b), points, (size_t)count * sizeof(ts_vec3)) == 0) {
            b->refs += 1;
            return data_of(b);
        }
    }
    return NULL;
}

/* Room for one more shared block: the table doubles past one block per bucket. */
static bool grow_buckets(ts_geometry_store *store, const ts_allocator *allocator)
{
    if (store->shared_count < store->bucket_count) {
        return true;
    }
    int32_t count = store->bucket_count == 0 ? 16 : 2 * store->bucket_count;
    ts_geometry_block **buckets = ts_alloc(allocator, (size_t)count * sizeof(ts_geometry_block *));
    if (buckets == NULL) {
        return false;
    }
    memset(buckets, 0, (size_t)count * sizeof(ts_geometry_block *));
    for (int32_t i = 0; i < store->bucket_count; ++i) {
        ts_geometry_block *b = store->buckets[i];
        while (b != NULL) {
            ts_geometry_block *next = b->bucket_next;
            uint64_t slot = b->key & (uint64_t)(count - 1);
            b->bucket_next = buckets[slot];
            buckets[slot] = b;
            b = next;
        }
    }
    ts_free(allocator, store->buckets, (size_t)store->bucket_count * sizeof(ts_geometry_block *));
    store->buckets = buckets;
    store->bucket_count = count;
    return true;
}

void *ts_geometry_alloc(ts_geometry_store *store, const ts_allocator *allocator, size_t size, uint64_t key,
                        const ts_vec3 *points, int count)
{
    size_t data_size = (size + 63u) & ~(size_t)63u;
    size_t total = HEADER_SIZE + data_size + (size_t)count * sizeof(ts_vec3);
    if (count > 0 && !grow_buckets(store, allocator)) {
        return NULL;
    }
    ts_geometry_block *b = ts_alloc(allocator, total);
    if (b == NULL) {
        return NULL;
    }
    *b = (ts_geometry_block){NULL, store->head, NULL, total, data_size, key, 1, count};
    if (store->head != NULL) {
        store->head->prev = b;
    }
    store->head = b;
    if (count > 0) {
        memcpy((char *)data_of(b) + data_size, points, (size_t)count * sizeof(ts_vec3));
        uint64_t slot = key & (uint64_t)(store->bucket_count - 1);
        b->bucket_next = store->buckets[slot];
        store->buckets[slot] = b;
        store->shared_count += 1;
    }
    return data_of(b);
}

void ts_geometry_retain(const void *data) { block_of(data)->refs += 1; }

const ts_vec3 *ts_geometry_points(const void *data, int *count)
{
    ts_geometry_block *b = block_of(data);
    *count = b->point_count;
    return b->point_count > 0 ? points_of(b) : NULL;
}

void ts_geometry_release(ts_geometry_store *store, const ts_allocator *allocator, const void *data)
{
    ts_geometry_block *b = block_of(data);
    if (--b->refs > 0) {
        return;
    }
    if (b->point_count > 0) {
        ts_geometry_block **link = &store->buckets[b->key & (uint64_t)(store->bucket_count - 1)];
        while (*link != b) {
            link = &(*link)->bucket_next;
        }
        *link = b->bucket_next;
        store->shared_count -= 1;
    }
    if (b->prev != NULL) {
        b->prev->next = b->next;
    } else {
        store->head = b->next;
    }
    if (b->next != NULL) {
        b->next->prev = b->prev;
    }
    ts_free(allocator, b, b->size);
}

void ts_geometry_store_destroy(ts_geometry_store *store, const ts_allocator *allocator)
{
    ts_geometry_block *b = store->head;
    while (b != NULL) {
        ts_geometry_block *next = b->next;
        ts_free(allocator, b, b->size);
        b = next;
    }
    ts_free(allocator, store->buckets, (size_t)store->bucket_count * sizeof(ts_geometry_block *));
    *store = (ts_geometry_store){NULL, NULL, 0, 0};
}

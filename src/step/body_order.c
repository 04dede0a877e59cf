/* The awake bodies' storage order kept close to space (see body_order.h). */
#include "step/body_order.h"

#include "base/array.h"

#include <string.h>

/* Buckets along an axis: the counting sort's keys. Bodies in one bucket
 * keep their slot order; a finer grid would change little (the halves'
 * crossings are what is compared). */
#define TS_ORDER_BUCKETS 1024

bool ts_body_order_reserve(ts_body_order *o, const ts_allocator *allocator, int32_t bodies, int workers)
{
    if (o->every <= 0 || bodies < TS_BODY_ORDER_MIN_BODIES) {
        return true; /* never looked at */
    }
    int32_t capacity = o->capacity;
    if (!ts_array_reserve_scratch(allocator, (void **)&o->order, &capacity, bodies, sizeof(int32_t))) {
        return false;
    }
    capacity = o->capacity;
    if (!ts_array_reserve_scratch(allocator, (void **)&o->buckets, &capacity, bodies, sizeof(uint16_t))) {
        return false;
    }
    capacity = o->capacity;
    if (!ts_array_reserve_scratch(allocator, (void **)&o->halves, &capacity, bodies, sizeof(uint8_t))) {
        return false;
    }
    o->capacity = capacity;
    int32_t elements = capacity * (workers > 1 ? workers : 1);
    return ts_array_reserve_scratch(allocator, (void **)&o->scratch, &o->scratch_capacity, elements,
                                    sizeof(uint32_t));
}

void ts_body_order_destroy(ts_body_order *o, const ts_allocator *allocator)
{
    int32_t capacity = o->capacity;
    ts_array_free(allocator, (void **)&o->order, &capacity, sizeof(int32_t));
    capacity = o->capacity;
    ts_array_free(allocator, (void **)&o->buckets, &capacity, sizeof(uint16_t));
    capacity = o->capacity;
    ts_array_free(allocator, (void **)&o->halves, &capacity, sizeof(uint8_t));
    ts_array_free(allocator, (void **)&o->scratch, &o->scratch_capacity, sizeof(uint32_t));
    o->capacity = 0;
}

/* order = the slots [0, n) sorted by their bucket along `axis` (a counting
 * sort: stable, so ties keep their slot order). */
static void sort_along(ts_body_order *o, const float *coordinate, int32_t n)
{
    float lo = coordinate[0], hi = coordinate[0];
    for (int32_t i = 1; i < n; ++i) {
        lo = coordinate[i] < lo ? coordinate[i] : lo;
        hi = coordinate[i] > hi ? coordinate[i] : hi;
    }
    /* finite: the solver holds a body at its last finite state */
    float scale = hi > lo ? (float)(TS_ORDER_BUCKETS - 1) / (hi - lo) : 0.0f;
    int32_t start[TS_ORDER_BUCKETS] = {0};
    for (int32_t i = 0; i < n; ++i) {
        int b = (int)((coordinate[i] - lo) * scale);
        b = b < 0 ? 0 : b >= TS_ORDER_BUCKETS ? TS_ORDER_BUCKETS - 1 : b;
        o->buckets[i] = (uint16_t)b;
        ++start[b];
    }
    int32_t sum = 0;
    for (int b = 0; b < TS_ORDER_BUCKETS; ++b) {
        int32_t count = start[b];
        start[b] = sum;
        sum += count;
    }
    for (int32_t i = 0; i < n; ++i) {
        o->order[start[o->buckets[i]]++] = i;
    }
}

/* Touching awake contacts whose two awake bodies lie in different halves,
 * for each of the four orders (bits of halves). */
static void count_crossings(const ts_body_order *o, const ts_records *records, int32_t n, int32_t crossings[4])
{
    const ts_contact_store *s = &records->contact_store;
    const int32_t *slot_of_id = records->store.table.slot_of_id;
    int32_t count[4] = {0};
    for (int32_t i = 0; i < s->table.end[TS_CONTACT_RANGE_AWAKE]; ++i) {
        if (s->point_count[i] == 0) {
            continue;
        }
        int32_t a = slot_of_id[s->body_a[i]], b = slot_of_id[s->body_b[i]];
        if (a < n && b < n) {
            unsigned differ = (unsigned)(o->halves[a] ^ o->halves[b]);
            for (int k = 0; k < 4; ++k) {
                count[k] += (int32_t)(differ >> k & 1u);
            }
        }
    }
    memcpy(crossings, count, sizeof count);
}

typedef struct permute_context {
    ts_body_order *order;
    ts_body_store *store;
    int32_t count;
} permute_context;

/* One block: one column of the store put in the new order. */
static void permute_column(void *context, int32_t column, int worker)
{
    const permute_context *c = context;
    ts_soa_permute_column(&c->store->table, c->store->columns, column, c->order->order, c->count,
                          c->order->scratch + (size_t)worker * c->order->capacity);
}

bool ts_body_order_update(ts_body_order *o, ts_records *records, ts_parallel *parallel, int step)
{
    ts_body_store *store = &records->store;
    int32_t n = store->table.end[TS_RANGE_AWAKE];
    float contacts = (float)records->contact_store.table.end[TS_CONTACT_RANGE_AWAKE];
    if (o->every <= 0 || step % o->every != 0 || n < TS_BODY_ORDER_MIN_BODIES || n > o->capacity ||
        contacts < TS_BODY_ORDER_MIN_CONTACTS_PER_BODY * (float)n) {
        return false;
    }
    const float *axes[3] = {store->px, store->py, store->pz};
    for (int32_t i = 0; i < n; ++i) {
        o->halves[i] = (uint8_t)((i >= n / 2) << 3);
    }
    int32_t crossings[4];
    count_crossings(o, records, n, crossings);
    if ((float)crossings[3] < TS_BODY_ORDER_FEW_CROSSINGS * contacts) {
        return false; /* the three sorts are the look's cost: skipped when the slots cut few contacts */
    }
    for (int a = 0; a < 3; ++a) {
        sort_along(o, axes[a], n);
        for (int32_t k = n / 2; k < n; ++k) {
            o->halves[o->order[k]] |= (uint8_t)(1u << a);
        }
    }
    count_crossings(o, records, n, crossings);
    int best = 0;
    for (int a = 1; a < 3; ++a) {
        best = crossings[a] < crossings[best] ? a : best;
    }
    if (5 * (int64_t)crossings[best] > 4 * (int64_t)crossings[3]) {
        return false;
    }
    sort_along(o, axes[best], n);
    permute_context context = {o, store, n};
    ts_parallel_for(parallel, permute_column, &context, TS_BODY_COLUMNS);
    ts_soa_permute_ids(&store->table, o->order, n, (int32_t *)o->scratch);
    return true;
}

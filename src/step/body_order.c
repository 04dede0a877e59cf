/* The awake bodies' storage order kept close to space, and their contacts'
 * in their bodies' order (see body_order.h). */
#include "step/body_order.h"

#include "base/array.h"

#include <string.h>

/* Buckets along an axis: the counting sort's keys. Bodies in one bucket
 * keep their slot order; a finer grid would change little (the halves'
 * crossings are what is compared). */
#define TS_ORDER_BUCKETS 1024

bool ts_body_order_reserve(ts_body_order *o, const ts_allocator *allocator, int32_t bodies, int32_t contacts,
                           int workers)
{
    if (o->every <= 0 || bodies < TS_BODY_ORDER_MIN_BODIES) {
        return true; /* never looked at */
    }
    bodies += 1; /* the contacts' sort's starts */
    int32_t stride = bodies > 4 * contacts ? bodies : 4 * contacts;
    if (!ts_array_reserve_scratch(allocator, (void **)&o->order, &o->order_capacity, bodies, sizeof(int32_t)) ||
        !ts_array_reserve_scratch(allocator, (void **)&o->buckets, &o->bucket_capacity, bodies, sizeof(uint16_t)) ||
        !ts_array_reserve_scratch(allocator, (void **)&o->halves, &o->half_capacity, bodies, sizeof(uint8_t)) ||
        !ts_array_reserve_scratch(allocator, (void **)&o->contact_order, &o->contact_order_capacity, contacts,
                                  sizeof(int32_t)) ||
        !ts_array_reserve_scratch(allocator, (void **)&o->contact_keys, &o->contact_key_capacity, contacts,
                                  sizeof(int32_t)) ||
        !ts_array_reserve_scratch(allocator, (void **)&o->scratch, &o->scratch_capacity,
                                  stride * (workers > 1 ? workers : 1), sizeof(uint32_t))) {
        return false;
    }
    o->capacity = bodies;
    o->contact_capacity = contacts;
    o->stride = stride;
    return true;
}

void ts_body_order_destroy(ts_body_order *o, const ts_allocator *allocator)
{
    ts_array_free(allocator, (void **)&o->order, &o->order_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&o->buckets, &o->bucket_capacity, sizeof(uint16_t));
    ts_array_free(allocator, (void **)&o->halves, &o->half_capacity, sizeof(uint8_t));
    ts_array_free(allocator, (void **)&o->contact_order, &o->contact_order_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&o->contact_keys, &o->contact_key_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&o->scratch, &o->scratch_capacity, sizeof(uint32_t));
    o->capacity = 0;
    o->contact_capacity = 0;
    o->stride = 0;
}

/* order = the slots [0, n) sorted by their bucket of `coordinate` (a
 * counting sort: stable, so ties keep their slot order). */
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
    ts_soa_table *table;
    void **columns;
    const int32_t *to; /* slot k takes the object of slot to[k] */
    int32_t count;
} permute_context;

/* One block: one column of a store put in the new order. */
static void permute_column(void *context, int32_t column, int worker)
{
    const permute_context *c = context;
    ts_soa_permute_column(c->table, c->columns, column, c->to, c->count,
                          c->order->scratch + (size_t)worker * c->order->stride);
}

/* Moves a store's first count slots into the order `to`: its columns on
 * the step's workers, then its maps. */
static void permute(ts_body_order *o, ts_soa_table *table, void **columns, const int32_t *to, int32_t count,
                    ts_parallel *parallel)
{
    permute_context context = {o, table, columns, to, count};
    ts_parallel_for(parallel, permute_column, &context, table->layout.column_count);
    ts_soa_permute_ids(table, to, count, (int32_t *)o->scratch);
}

/* The awake bodies into the order along the axis whose halves cross least,
 * when it crosses at most 4/5 of what the slot halves do. Returns true when
 * they moved. */
static bool move_bodies(ts_body_order *o, ts_records *records, int32_t n, float contacts, ts_parallel *parallel)
{
    ts_body_store *store = &records->store;
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
    permute(o, &store->table, store->columns, o->order, n, parallel);
    return true;
}

/* The awake contacts in the order of their first awake body's slot (a
 * counting sort over the n awake slots: stable), when the bodies just
 * moved or the contacts strayed from that order: more than 1/16 of them
 * follow one of a larger key (a quarter left pile's step at two workers
 * 5% longer than 1/16; sorting at any stray cost ~3 ms a sort on worker
 * 0's side of the step, pile's 30k contacts). Returns true when they
 * moved. */
static bool order_contacts(ts_body_order *o, ts_records *records, int32_t n, bool moved, ts_parallel *parallel)
{
    ts_contact_store *s = &records->contact_store;
    const int32_t *slot_of_id = records->store.table.slot_of_id;
    int32_t m = s->table.end[TS_CONTACT_RANGE_AWAKE];
    if (m < 2 || m > o->contact_capacity || n + 1 > o->capacity) {
        return false;
    }
    int32_t *keys = o->contact_keys, strays = 0;
    for (int32_t i = 0; i < m; ++i) {
        int32_t a = slot_of_id[s->body_a[i]], b = slot_of_id[s->body_b[i]];
        int32_t key = a < b ? a : b;
        keys[i] = key < n ? key : n - 1; /* (an awake contact has an awake body) */
        strays += i > 0 && keys[i] < keys[i - 1];
    }
    if (!moved && 16 * strays <= m) {
        return false;
    }
    int32_t *start = o->order;
    memset(start, 0, (size_t)(n + 1) * sizeof(int32_t));
    for (int32_t i = 0; i < m; ++i) {
        ++start[keys[i] + 1];
    }
    for (int32_t k = 0; k < n; ++k) {
        start[k + 1] += start[k];
    }
    for (int32_t i = 0; i < m; ++i) {
        o->contact_order[start[keys[i]]++] = i;
    }
    permute(o, &s->table, s->columns, o->contact_order, m, parallel);
    return true;
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
    bool moved = move_bodies(o, records, n, contacts, parallel);
    if (!o->keep_contacts) {
        order_contacts(o, records, n, moved, parallel);
    }
    return moved;
}

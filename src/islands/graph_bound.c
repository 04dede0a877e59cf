/* The overflow bound of graph_bound.h.
 *
 * A contact reaches the overflow set only when no colour is free of both
 * its dynamic bodies. Body x with d(x) constraints (contacts and joints,
 * coloured or not, and new pairs) holds at most d(x) - 1 colours other
 * than the one its contact is looking for, so among the C colours one is
 * free for a contact of x and y unless
 *
 *     (d(x) - 1) + (d(y) - 1) >= C        (two dynamic bodies)
 *     d(x) - 1 >= C                       (one: the other is static or kinematic)
 *
 * and a contact with no dynamic body takes no colour at all. The bound
 * counts the contacts that may be coloured in the step (the store's without
 * a colour, the new pairs) for which this holds. A pyramid's boxes touch
 * 5 to 10 others, far from C = 24: none is counted, where "every new
 * contact a bundle of its own" reserved 11 KB a contact at width 16. */
#include "islands/graph_bound.h"

#include "base/array.h"

#include <string.h>

static int32_t dynamic_or_none(const ts_records *records, int32_t body)
{
    return records->bodies[body].type == TS_BODY_DYNAMIC ? body : -1;
}

static bool may_overflow(const int32_t *degrees, const ts_records *records, int32_t a, int32_t b)
{
    a = dynamic_or_none(records, a);
    b = dynamic_or_none(records, b);
    if (a < 0 && b < 0) {
        return true;
    }
    if (a < 0 || b < 0) {
        int32_t x = a < 0 ? b : a;
        return degrees[x] - 1 >= TS_GRAPH_COLOR_COUNT;
    }
    return (degrees[a] - 1) + (degrees[b] - 1) >= TS_GRAPH_COLOR_COUNT;
}

int32_t ts_graph_overflow_bound(ts_constraint_graph *graph, const ts_records *records, ts_pair_keys pairs)
{
    int32_t bodies = records->body_ids.next_index;
    if (!ts_array_reserve(&records->allocator, (void **)&graph->degrees, &graph->degree_capacity, bodies,
                          sizeof(int32_t))) {
        return -1;
    }
    int32_t *degrees = graph->degrees;
    for (int32_t b = 0; b < bodies; ++b) {
        const ts_body *body = records->bodies + b;
        degrees[b] = body->alive ? body->contact_count + body->joint_count : 0;
    }
    for (int i = 0; i < pairs.buffers; ++i) {
        for (int32_t k = 0; k < pairs.counts[i]; ++k) {
            uint64_t key = pairs.keys[i][k];
            degrees[records->shapes[(int32_t)(key >> 32)].body] += 1;
            degrees[records->shapes[(int32_t)(key & 0xffffffffu)].body] += 1;
        }
    }
    int32_t over = 0;
    const ts_soa_table *table = &records->contact_store.table;
    for (int32_t slot = 0; slot < table->count; ++slot) {
        const ts_contact *c = records->contacts + table->id_of_slot[slot];
        if (c->color < 0 && may_overflow(degrees, records, c->edges[0].body, c->edges[1].body)) {
            over += 1;
        }
    }
    for (int i = 0; i < pairs.buffers; ++i) {
        for (int32_t k = 0; k < pairs.counts[i]; ++k) {
            uint64_t key = pairs.keys[i][k];
            over += may_overflow(degrees, records, records->shapes[(int32_t)(key >> 32)].body,
                                 records->shapes[(int32_t)(key & 0xffffffffu)].body)
                        ? 1
                        : 0;
        }
    }
    return over;
}

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
 * contact a bundle of its own" reserved 11 KB a contact at width 16.
 *
 * Both passes over many items (every body's count, every contact of the
 * store) run in parallel blocks: while a pile falls the solver asks for the
 * bound every step, and on worker 0 alone the passes took 0.1-0.5 ms a step
 * of scattered reads (pile, 4,000 bodies, 15-30k contacts). */
#include "islands/graph_bound.h"

#include "base/array.h"
#include "base/parallel.h"

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

/* Items per block of the two parallel passes: the reads are scattered
 * (a body record, a contact record and its bodies' records per item), so
 * the passes are bound by memory latency, which two cores overlap. */
#define TS_BOUND_BLOCK 256

typedef struct bound_stage {
    const ts_records *records;
    int32_t *degrees;
    int32_t count; /* bodies (first pass) or contact slots (second) */
    int32_t block_size;
    int32_t over[TS_MAX_THREADS]; /* second pass: per worker (a sum: the same total whoever ran what) */
} bound_stage;

/* Each body's constraint count (its own slot). */
static void degree_block(void *context, int32_t block, int worker)
{
    (void)worker;
    bound_stage *stage = context;
    const ts_body *bodies = stage->records->bodies;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, stage->count, &begin, &end);
    for (int32_t b = begin; b < end; ++b) {
        stage->degrees[b] = bodies[b].alive ? bodies[b].contact_count + bodies[b].joint_count : 0;
    }
}

/* The store's contacts without a colour that may overflow, added to the
 * worker's count once per block. */
static void contact_block(void *context, int32_t block, int worker)
{
    bound_stage *stage = context;
    const ts_records *records = stage->records;
    const int32_t *id_of_slot = records->contact_store.table.id_of_slot;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, stage->count, &begin, &end);
    int32_t over = 0;
    for (int32_t slot = begin; slot < end; ++slot) {
        const ts_contact *c = records->contacts + id_of_slot[slot];
        if (c->color < 0 && may_overflow(stage->degrees, records, c->edges[0].body, c->edges[1].body)) {
            over += 1;
        }
    }
    stage->over[worker] += over;
}

int32_t ts_graph_overflow_bound(ts_constraint_graph *graph, const ts_records *records, ts_pair_keys pairs,
                                ts_parallel *parallel)
{
    int32_t bodies = records->body_ids.next_index;
    if (!ts_array_reserve(&records->allocator, (void **)&graph->degrees, &graph->degree_capacity, bodies,
                          sizeof(int32_t))) {
        return -1;
    }
    int32_t *degrees = graph->degrees;
    bound_stage stage = {records, degrees, bodies, ts_block_size(bodies, TS_BOUND_BLOCK), {0}};
    ts_parallel_for(parallel, degree_block, &stage, ts_block_count(bodies, stage.block_size));
    for (int i = 0; i < pairs.buffers; ++i) {
        for (int32_t k = 0; k < pairs.counts[i]; ++k) {
            uint64_t key = pairs.keys[i][k];
            degrees[records->shapes[(int32_t)(key >> 32)].body] += 1;
            degrees[records->shapes[(int32_t)(key & 0xffffffffu)].body] += 1;
        }
    }
    int32_t slots = records->contact_store.table.count;
    stage.count = slots;
    stage.block_size = ts_block_size(slots, TS_BOUND_BLOCK);
    ts_parallel_for(parallel, contact_block, &stage, ts_block_count(slots, stage.block_size));
    int32_t over = 0;
    for (int w = 0; w < parallel->worker_count; ++w) {
        over += stage.over[w];
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

/* The colouring bounds of graph_bound.h.
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
 * and a contact with no dynamic body is counted as reaching it. A pyramid's
 * boxes touch 5 to 10 others, far from C = 24: none is counted, where
 * "every new contact a bundle of its own" reserved 11 KB a contact at
 * width 16.
 *
 * What a step can colour: a contact that begins touching (one of the awake
 * range not touching, or a new pair's), and the touching contacts of a
 * sleeping island that such a touch wakes (sleep.c colours them then). A
 * sleeping island's part is taken when it falls asleep and kept in the
 * island (island.h); while it sleeps its touching contacts only go (one
 * that begins touching wakes it) and its bodies' counts only grow by new
 * pairs, which the step's reserve gives to the islands they reach (step.c)
 * so that the part stays a bound. */
#include "islands/graph_bound.h"

#include "base/array.h"

#include <string.h>

static int32_t degree(const ts_records *records, const int32_t *extra, int32_t body)
{
    const ts_body *b = records->bodies + body;
    return b->contact_count + b->joint_count + (extra != NULL ? extra[body] : 0);
}

static bool may_overflow(const ts_records *records, const int32_t *extra, int32_t a, int32_t b)
{
    bool dynamic_a = records->bodies[a].type == TS_BODY_DYNAMIC;
    bool dynamic_b = records->bodies[b].type == TS_BODY_DYNAMIC;
    if (!dynamic_a && !dynamic_b) {
        return true;
    }
    if (!dynamic_a || !dynamic_b) {
        return degree(records, extra, dynamic_a ? a : b) - 1 >= TS_GRAPH_COLOR_COUNT;
    }
    return (degree(records, extra, a) - 1) + (degree(records, extra, b) - 1) >= TS_GRAPH_COLOR_COUNT;
}

static int32_t pair_body(const ts_records *records, uint64_t key, int side)
{
    return records->shapes[side == 0 ? (int32_t)(key >> 32) : (int32_t)(key & 0xffffffffu)].body;
}

bool ts_graph_bound_reserve(ts_constraint_graph *graph, const ts_allocator *allocator, int32_t bodies)
{
    int32_t old = graph->degree_capacity;
    if (!ts_array_reserve(allocator, (void **)&graph->degrees, &graph->degree_capacity, bodies, sizeof(int32_t))) {
        return false;
    }
    if (graph->degree_capacity > old) { /* (a world of no bodies has no array: NULL + 0 is undefined) */
        memset(graph->degrees + old, 0, (size_t)(graph->degree_capacity - old) * sizeof(int32_t));
    }
    return true;
}

void ts_graph_count_pairs(ts_constraint_graph *graph, const ts_records *records, ts_pair_keys pairs, int32_t sign)
{
    for (int i = 0; i < pairs.buffers; ++i) {
        for (int32_t k = 0; k < pairs.counts[i]; ++k) {
            graph->degrees[pair_body(records, pairs.keys[i][k], 0)] += sign;
            graph->degrees[pair_body(records, pairs.keys[i][k], 1)] += sign;
        }
    }
}

/* Contacts per block of the pass over the awake range: its reads of the
 * bodies' records are scattered, and a pile asks for the bound every step
 * while it falls (15-30k contacts: 0.1-0.5 ms on one worker). */
#define TS_BOUND_BLOCK 512

typedef struct awake_bound {
    const ts_constraint_graph *graph;
    const ts_records *records;
    int32_t count; /* the awake range's contacts */
    int32_t block_size;
    int32_t over[TS_MAX_THREADS]; /* per worker: a sum, the same total whoever ran what */
} awake_bound;

static void awake_bound_block(void *context, int32_t block, int worker)
{
    awake_bound *b = context;
    const ts_contact_store *s = &b->records->contact_store;
    int32_t begin, end, over = 0;
    ts_block_range(block, b->block_size, b->count, &begin, &end);
    for (int32_t i = begin; i < end; ++i) {
        bool may_begin = (s->flags[i] & TS_CONTACT_TOUCHING) == 0;
        over += may_begin && may_overflow(b->records, b->graph->degrees, s->body_a[i], s->body_b[i]) ? 1 : 0;
    }
    b->over[worker] += over;
}

int32_t ts_graph_awake_overflow_bound(const ts_constraint_graph *graph, const ts_records *records, ts_pair_keys pairs,
                                      ts_parallel *parallel)
{
    awake_bound pass = {.graph = graph, .records = records,
                        .count = records->contact_store.table.end[TS_CONTACT_RANGE_AWAKE]};
    pass.block_size = ts_block_size(pass.count, TS_BOUND_BLOCK);
    ts_parallel_for(parallel, awake_bound_block, &pass, ts_block_count(pass.count, pass.block_size));
    int32_t over = 0;
    for (int w = 0; w < TS_MAX_THREADS; ++w) {
        over += pass.over[w];
    }
    for (int i = 0; i < pairs.buffers; ++i) {
        for (int32_t k = 0; k < pairs.counts[i]; ++k) {
            int32_t a = pair_body(records, pairs.keys[i][k], 0), b = pair_body(records, pairs.keys[i][k], 1);
            over += may_overflow(records, graph->degrees, a, b) ? 1 : 0;
        }
    }
    return over;
}

ts_wake_bound ts_island_wake_bound(const ts_records *records, const ts_island_set *set, int32_t island,
                                   const int32_t *extra)
{
    const ts_contact_store *s = &records->contact_store;
    ts_wake_bound bound = {0, 0};
    for (int32_t body = set->islands[island].head_body; body != -1; body = records->bodies[body].island_next) {
        for (int32_t key = records->bodies[body].contact_head; key != -1;) {
            const ts_contact *c = records->contacts + (key >> 1);
            int32_t other = c->edges[(key & 1) ^ 1].body;
            /* a contact of two of the island's bodies counts once, from side 0 */
            bool once = (key & 1) == 0 || records->bodies[other].island != island;
            if (once && (s->flags[s->table.slot_of_id[key >> 1]] & TS_CONTACT_TOUCHING) != 0) {
                bound.contacts += 1;
                bound.over += may_overflow(records, extra, body, other) ? 1 : 0;
            }
            key = c->edges[key & 1].next_key;
        }
    }
    return bound;
}

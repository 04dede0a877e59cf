/* The broadphase's pair update: the moved shapes query both trees in
 * parallel for shapes whose fat bounds they overlap, and the new pairs
 * become contacts in key order (see broadphase.h). */
#include "collide/broadphase.h"

#include "base/array.h"
#include "base/error.h"
#include "base/parallel.h"
#include "base/radix_sort.h"
#include "collide/collision.h"
#include "collide/contact.h"
#include "soa/joint_edges.h"

/* A worker's query of one block. The worker's buffer is copied in at the
 * block's start and back at its end: the buffers of all workers share a
 * cache line (broadphase.h), and a count written there for every pair found
 * sent that line between the cores (the pile's steps with ~2,000 new pairs
 * queried about as fast on two workers as on one, those with few pairs
 * twice as fast). */
typedef struct pair_query {
    ts_records *records;
    const ts_key_map *pairs;
    int32_t shape;         /* the moved shape that queries */
    ts_pair_buffer buffer; /* the worker's, copied */
    bool grow;             /* worker 0 (the calling thread) may allocate; helpers only count past capacity */
    bool failed;           /* out of memory */
} pair_query;

/* Whether two shapes may touch at all: different bodies, neither a sensor,
 * at least one of them dynamic, no joint between them that forbids it, and each one's
 * category in the other's mask. */
static bool should_collide(const ts_records *records, const ts_shape *a, const ts_shape *b)
{
    if (a->body == b->body || a->is_sensor || b->is_sensor) {
        return false; /* sensors see others through collide/sensor.c, never through contacts */
    }
    if (records->bodies[a->body].type != TS_BODY_DYNAMIC && records->bodies[b->body].type != TS_BODY_DYNAMIC) {
        return false;
    }
    if ((a->filter.category_bits & b->filter.mask_bits) == 0 || (b->filter.category_bits & a->filter.mask_bits) == 0) {
        return false;
    }
    return ts_joint_allows_collision(records, a->body, b->body); /* walks the shorter joint list */
}

static bool collect_pair(int proxy, int32_t other, void *context)
{
    (void)proxy;
    pair_query *q = context;
    const ts_records *records = q->records;
    if (other == q->shape) {
        return true;
    }
    const ts_shape *a = records->shapes + q->shape;
    const ts_shape *b = records->shapes + other;
    /* Both moved: only the lower index reports the pair. */
    if (b->in_move_buffer && other < q->shape) {
        return true;
    }
    if (!should_collide(records, a, b)) {
        return true;
    }
    uint64_t key = ts_pair_key(q->shape, other);
    if (ts_key_map_find(q->pairs, key) >= 0) {
        return true;
    }
    ts_pair_buffer *buffer = &q->buffer;
    if (q->grow && !ts_array_reserve(&records->allocator, (void **)&buffer->keys, &buffer->capacity, buffer->count + 1,
                                     sizeof(uint64_t))) {
        q->failed = true;
        return false;
    }
    if (buffer->count < buffer->capacity) {
        buffer->keys[buffer->count] = key;
    }
    buffer->count += 1;
    return true;
}

/* Moved shapes per block of the parallel query. */
#define TS_MOVE_BLOCK 16

typedef struct pair_stage {
    ts_records *records;
    ts_collision *collision;
    ts_parallel *parallel;
    int32_t block_size;
    int32_t queries;      /* the query's blocks; blocks past them are beside's */
    ts_stage_def beside; /* blocks of the caller's, in the first run only */
    bool failed;          /* worker 0 ran out of memory */
} pair_stage;

static void query_block(void *context, int32_t block, int worker)
{
    pair_stage *stage = context;
    if (block >= stage->queries) {
        stage->beside.run(stage->beside.context, block - stage->queries, worker);
        return;
    }
    ts_broadphase *bp = &stage->collision->broadphase;
    pair_query q = {stage->records, &stage->collision->pairs, -1, bp->worker_pairs[worker], worker == 0, false};
    int32_t begin, end;
    ts_block_range(block, stage->block_size, bp->move_count, &begin, &end);
    for (int32_t m = begin; m < end && !q.failed; ++m) {
        int32_t shape = bp->move_buffer[m];
        if (shape < 0) {
            continue;
        }
        const ts_shape *s = stage->records->shapes + shape;
        q.shape = shape;
        ts_tree_query(&bp->trees[TS_TREE_MOVABLE], s->fat_aabb, s->filter.mask_bits, collect_pair, &q);
        if (s->tree == TS_TREE_MOVABLE) {
            ts_tree_query(&bp->trees[TS_TREE_STATIC], s->fat_aabb, s->filter.mask_bits, collect_pair, &q);
        }
    }
    bp->worker_pairs[worker] = q.buffer;
    if (q.failed) {
        stage->failed = true; /* worker 0 only */
    }
}

/* The query stage, run again with larger buffers when a helper's filled up
 * (the keys are sorted afterwards, so which worker found a pair, and in
 * which run, does not matter). Returns the keys found, or -1 when out of memory. */
static int32_t find_pairs(ts_records *records, ts_collision *collision, ts_parallel *parallel,
                          const ts_stage_def *beside)
{
    ts_broadphase *bp = &collision->broadphase;
    int workers = parallel->worker_count;
    int32_t block_size = ts_block_size(bp->move_count, TS_MOVE_BLOCK);
    int32_t queries = ts_block_count(bp->move_count, block_size);
    pair_stage stage = {records, collision, parallel, block_size, queries, {NULL, NULL, 0}, false};
    if (beside != NULL && beside->block_count > 0) {
        stage.beside = *beside;
        if (queries + beside->block_count > TS_MAX_STAGE_BLOCKS) { /* a stage of their own */
            ts_parallel_for(parallel, beside->run, beside->context, beside->block_count);
            stage.beside.block_count = 0;
        }
    }
    for (;;) {
        for (int w = 0; w < workers; ++w) {
            bp->worker_pairs[w].count = 0;
        }
        ts_parallel_for(parallel, query_block, &stage, queries + stage.beside.block_count);
        stage.beside.block_count = 0; /* done */
        if (stage.failed) {
            return -1;
        }
        int32_t total = 0;
        bool overflowed = false;
        for (int w = 0; w < workers; ++w) {
            total += bp->worker_pairs[w].count;
            overflowed |= bp->worker_pairs[w].count > bp->worker_pairs[w].capacity;
        }
        if (!overflowed) {
            /* Which worker finds how many pairs depends on who claimed which
             * blocks, so every buffer gets room for all of them: a later
             * step with no more pairs than this one then allocates nothing,
             * whatever the claims. */
            for (int w = 0; w < workers; ++w) {
                ts_pair_buffer *buffer = bp->worker_pairs + w;
                if (!ts_array_reserve(&records->allocator, (void **)&buffer->keys, &buffer->capacity, total,
                                      sizeof(uint64_t))) {
                    return -1;
                }
            }
            return total;
        }
        for (int w = 1; w < workers; ++w) {
            ts_pair_buffer *buffer = bp->worker_pairs + w;
            if (!ts_array_reserve(&records->allocator, (void **)&buffer->keys, &buffer->capacity, total,
                                  sizeof(uint64_t))) {
                return -1;
            }
        }
    }
}

ts_result ts_broadphase_find_pairs(ts_records *records, ts_collision *collision, ts_parallel *parallel,
                                   const ts_stage_def *beside)
{
    ts_broadphase *bp = &collision->broadphase;
    int32_t found = find_pairs(records, collision, parallel, beside);
    /* Room for every key found (repeats included): the registration may then
     * run next to the narrowphase, which must see no array move. */
    if (found < 0 ||
        !ts_array_reserve(&records->allocator, (void **)&bp->new_pairs, &bp->new_pair_capacity, found,
                          sizeof(uint64_t)) ||
        !ts_array_reserve(&records->allocator, (void **)&bp->pair_scratch, &bp->pair_scratch_capacity, found,
                          sizeof(uint64_t)) ||
        !ts_array_reserve(&records->allocator, (void **)&bp->new_ids, &bp->new_id_capacity, found, sizeof(int32_t)) ||
        !ts_contacts_reserve(records, collision, found)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL while finding pairs");
    }
    return TS_OK;
}

int32_t ts_broadphase_found_count(const ts_collision *collision, const ts_parallel *parallel)
{
    int32_t found = 0;
    for (int w = 0; w < parallel->worker_count; ++w) {
        found += collision->broadphase.worker_pairs[w].count;
    }
    return found;
}

void ts_broadphase_take_pairs(ts_records *records, ts_collision *collision, const ts_parallel *parallel)
{
    ts_broadphase *bp = &collision->broadphase;
    for (int32_t m = 0; m < bp->move_count; ++m) {
        if (bp->move_buffer[m] >= 0) {
            records->shapes[bp->move_buffer[m]].in_move_buffer = false;
        }
    }
    bp->move_count = 0;
    bp->new_pair_count = 0;
    for (int w = 0; w < parallel->worker_count; ++w) {
        const ts_pair_buffer *buffer = bp->worker_pairs + w;
        for (int32_t i = 0; i < buffer->count; ++i) {
            bp->new_pairs[bp->new_pair_count++] = buffer->keys[i];
        }
    }
}

void ts_broadphase_register_pairs(ts_records *records, ts_collision *collision)
{
    ts_broadphase *bp = &collision->broadphase;
    /* A pair can be found twice (two queries of one moved shape, static and
     * movable); sort and drop repeats. */
    ts_sort_keys(bp->new_pairs, bp->pair_scratch, bp->new_pair_count);
    int32_t unique = 0;
    for (int32_t i = 0; i < bp->new_pair_count; ++i) {
        if (unique == 0 || bp->new_pairs[i] != bp->new_pairs[unique - 1]) {
            bp->new_pairs[unique++] = bp->new_pairs[i];
        }
    }
    bp->new_pair_count = unique;
    /* In key order: ids, the pair map, the body lists and the store slots
     * (cheap bookkeeping). The awake ones take the slots right after the
     * awake range's, in the same order. */
    int32_t *ids = bp->new_ids;
    const ts_soa_table *table = &records->contact_store.table;
    for (int32_t i = 0; i < unique; ++i) {
        uint64_t key = bp->new_pairs[i];
        ids[i] = ts_contact_register(records, collision, (int32_t)(key >> 32), (int32_t)(key & 0xffffffffu));
    }
    /* Those of resting bodies went to the sleeping range (rare): fill them
     * here, the narrowphase fills the others. */
    for (int32_t i = 0; i < unique; ++i) {
        if (table->slot_of_id[ids[i]] >= table->end[TS_CONTACT_RANGE_AWAKE]) {
            ts_contacts_fill(records, ids, i, i + 1);
        }
    }
}

/* New contacts per block of the parallel fill. */
#define TS_FILL_BLOCK 64

typedef struct fill_stage {
    ts_records *records;
    int32_t first; /* the first new awake slot */
    int32_t count;
    int32_t block_size;
} fill_stage;

static void fill_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const fill_stage *stage = context;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, stage->count, &begin, &end);
    ts_contacts_fill_slots(stage->records, stage->first + begin, stage->first + end);
}

ts_result ts_broadphase_update_pairs(ts_records *records, ts_collision *collision, ts_parallel *parallel)
{
    int32_t first = records->contact_store.table.end[TS_CONTACT_RANGE_AWAKE];
    TS_TRY(ts_broadphase_find_pairs(records, collision, parallel, NULL));
    ts_broadphase_take_pairs(records, collision, parallel);
    ts_broadphase_register_pairs(records, collision);
    int32_t count = records->contact_store.table.end[TS_CONTACT_RANGE_AWAKE] - first;
    fill_stage stage = {records, first, count, ts_block_size(count, TS_FILL_BLOCK)};
    ts_parallel_for(parallel, fill_block, &stage, ts_block_count(count, stage.block_size));
    return TS_OK;
}

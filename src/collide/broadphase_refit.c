/* The tree after the bounds update: the proxies whose shapes left their fat
 * bounds are enlarged in place and queued for the next pair update, then
 * the enlarged part of the movable tree is refitted, and rebuilt when it
 * has drifted (see broadphase.h). */
#include "collide/broadphase.h"

#include "base/array.h"
#include "base/error.h"
#include "base/parallel.h"

#include <string.h>

static ts_aabb load_fat_box(const ts_body_store *s, int32_t i)
{
    return (ts_aabb){{s->fat_lx[i], s->fat_ly[i], s->fat_lz[i]}, {s->fat_ux[i], s->fat_uy[i], s->fat_uz[i]}};
}
/* The marked slots of the bounds update, in order. */
static int32_t list_marked_slots(const ts_broadphase *bp, int32_t awake)
{
    const uint8_t *flags = bp->enlarged_slots;
    int32_t *list = bp->enlarged_list;
    int32_t count = 0;
    for (int32_t i = 0; i < awake; ++i) {
        /* Skip eight quiet slots at a time (most bodies stay in their fat bounds). */
        if ((i & 7) == 0 && i + 8 <= awake) {
            uint64_t word;
            memcpy(&word, flags + i, sizeof(word));
            if (word == 0) {
                i += 7;
                continue;
            }
        }
        if (flags[i] != 0) {
            list[count++] = i;
        }
    }
    return count;
}

/* How far ahead in its block the walk below asks for what it will read:
 * a shape, then (once that arrived) its leaf, then the leaf's parent. Each
 * proxy's reads are scattered, so without this the walk waits on memory
 * for nearly every one. */
#define TS_ENLARGE_AHEAD 12

/* Listed slots per block of the enlarge stage (at least).
 *
 * The enlarge and the refit run on several workers only past
 * bp->parallel_enlarge_min listed slots (TS_PARALLEL_ENLARGE): both walk
 * chains of dependent reads of tree nodes that other proxies' walks share,
 * and a node one worker wrote costs the other a cache-line transfer. So
 * each worker enlarges the listed slots of its share (the list is in slot
 * order, as the body passes' shares are: the bodies whose bounds it just
 * wrote, which sit mostly in one part of the tree) and notes itself in the
 * nodes it marks first; the refit then hands each worker the parts it
 * marked (order_parts). With the list cut in halves but the parts dealt
 * out in tree order, joint_grid's 300-2,300 proxies took 1.4-1.5x longer
 * on two workers than on one. */
#define TS_ENLARGE_BLOCK 64

typedef struct enlarge_stage {
    ts_records *records;
    ts_broadphase *bp;
    int32_t count;      /* listed slots */
    int32_t move_first; /* listed slot k queues its shape at move_buffer[move_first + k] */
    int32_t block_size;
    bool shared;        /* several workers mark the tree at once */
    bool others[TS_MAX_THREADS]; /* per worker: met a listed body that is not a fast path's */
} enlarge_stage;

/* A listed slot whose body has one fast-path shape (a centred sphere or
 * box): its new fat box waits in the store's columns. */
TS_FORCE_INLINE bool fast_path(const ts_body_store *store, int32_t i)
{
    return store->sphere_radius[i] > 0.0f || store->box_hx[i] > 0.0f;
}

/* Gives a fast-path shape its new fat box, marks its proxy and queues it in
 * the listed slot's place of the move buffer; a body of other shapes
 * leaves its place empty (-1) for queue_shapes. */
static void enlarge_block(void *context, int32_t block, int worker)
{
    enlarge_stage *stage = context;
    const ts_body_store *store = &stage->records->store;
    ts_broadphase *bp = stage->bp;
    ts_dynamic_tree *tree = &bp->trees[TS_TREE_MOVABLE];
    const int32_t *list = bp->enlarged_list;
    const int32_t *first_shape = store->first_shape;
    ts_shape *shapes = stage->records->shapes;
    int32_t *queue = bp->move_buffer + stage->move_first;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, stage->count, &begin, &end);
    for (int32_t k = begin; k < end; ++k) {
        if (k + TS_ENLARGE_AHEAD < end) {
            TS_PREFETCH(shapes + first_shape[list[k + TS_ENLARGE_AHEAD]]);
        }
        if (k + 2 * TS_ENLARGE_AHEAD / 3 < end) {
            ts_tree_prefetch_proxy(tree, shapes[first_shape[list[k + 2 * TS_ENLARGE_AHEAD / 3]]].proxy);
        }
        if (k + TS_ENLARGE_AHEAD / 3 < end) {
            ts_tree_prefetch_parent(tree, shapes[first_shape[list[k + TS_ENLARGE_AHEAD / 3]]].proxy);
        }
        int32_t i = list[k];
        queue[k] = -1;
        if (!fast_path(store, i)) {
            stage->others[worker] = true; /* written only then: the workers' entries share a line */
            continue;
        }
        int32_t shape = first_shape[i];
        ts_shape *s = shapes + shape;
        s->fat_aabb = load_fat_box(store, i);
        if (stage->shared) {
            ts_tree_enlarge_proxy_shared(tree, s->proxy, s->fat_aabb, worker);
        } else {
            ts_tree_enlarge_proxy_deferred(tree, s->proxy, s->fat_aabb, false);
        }
        if (!s->in_move_buffer) { /* (the pair update emptied the buffer: always) */
            s->in_move_buffer = true;
            queue[k] = shape;
        }
    }
}

/* The listed bodies of other shapes (with all_bodies, every listed body):
 * their moved shapes marked and queued, in list order. */
static ts_result queue_shapes(ts_records *records, ts_broadphase *bp, int32_t count, bool all_bodies)
{
    const ts_body_store *store = &records->store;
    const int32_t *list = bp->enlarged_list;
    ts_dynamic_tree *tree = &bp->trees[TS_TREE_MOVABLE];
    ts_shape *shapes = records->shapes;
    ts_result result = TS_OK;
    for (int32_t k = 0; k < count; ++k) {
        int32_t i = list[k];
        if (fast_path(store, i)) {
            if (all_bodies) {
                ts_shape *s = shapes + store->first_shape[i];
                s->fat_aabb = load_fat_box(store, i);
                ts_tree_enlarge_proxy_deferred(tree, s->proxy, s->fat_aabb, false);
                ts_result r = ts_shape_buffer_move(records, bp, store->first_shape[i], "ts_world_step");
                result = result == TS_OK ? r : result;
            }
            continue;
        }
        for (int32_t sh = store->first_shape[i]; sh != -1; sh = shapes[sh].next) {
            ts_shape *s = shapes + sh;
            if (!s->enlarged) {
                continue;
            }
            s->enlarged = false;
            ts_tree_enlarge_proxy_deferred(tree, s->proxy, s->fat_aabb, false);
            ts_result r = ts_shape_buffer_move(records, bp, sh, "ts_world_step");
            result = result == TS_OK ? r : result;
        }
    }
    return result;
}

ts_result ts_broadphase_enlarge_proxies(ts_records *records, ts_broadphase *bp, ts_parallel *parallel)
{
    int32_t count = list_marked_slots(bp, records->store.table.end[TS_RANGE_AWAKE]);
    if (count == 0) {
        return TS_OK;
    }
    /* A place in the move buffer per listed slot, which the blocks fill.
     * Without room, one by one: every proxy is still marked (the refit must
     * follow), and those the buffer cannot take report the failure. */
    if (!ts_array_reserve(&records->allocator, (void **)&bp->move_buffer, &bp->move_capacity, bp->move_count + count,
                          sizeof(int32_t))) {
        return queue_shapes(records, bp, count, true);
    }
    bool shared = parallel->worker_count > 1 && count >= bp->parallel_enlarge_min;
    int32_t block_size = shared ? ts_block_size(count, TS_ENLARGE_BLOCK) : count;
    int32_t blocks = ts_block_count(count, block_size);
    enlarge_stage stage = {records, bp, count, bp->move_count, block_size, shared, {false}};
    ts_parallel_for(parallel, enlarge_block, &stage, blocks);
    bp->move_count += count;
    bool others = false;
    for (int w = 0; w < parallel->worker_count; ++w) {
        others |= stage.others[w];
    }
    return others ? queue_shapes(records, bp, count, false) : TS_OK;
}

typedef struct rebuild_stage {
    ts_dynamic_tree *tree;
    int level;
    int order[TS_TREE_REFIT_PARTS]; /* the refit's block k runs part order[k] */
} rebuild_stage;

static void split_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const rebuild_stage *stage = context;
    ts_tree_rebuild_split(stage->tree, stage->level, block);
}

static void refit_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const rebuild_stage *stage = context;
    ts_tree_refit_part(stage->tree, stage->order[block]);
}

static void finish_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const rebuild_stage *stage = context;
    ts_tree_rebuild_finish(stage->tree, block);
}

/* The refit's parts in the order of the workers that marked them (stable;
 * parts marked otherwise in the middle), so that the ring split of the
 * stage (parallel.h) hands each worker the parts it marked. False: the
 * enlarge ran on one worker, and so does the refit. */
static bool order_parts(const ts_dynamic_tree *tree, int parts, int workers, int *order)
{
    int keys[TS_TREE_REFIT_PARTS];
    int next[9] = {0};
    bool shared = false;
    for (int k = 0; k < parts; ++k) {
        int marker = ts_tree_refit_marker(tree, k);
        shared |= marker >= 0;
        /* unmarked (-1) between workers 0 and 1; one of them is late anyway */
        keys[k] = marker < 0 ? 1 : marker == 0 ? 0 : marker + 1;
        ++next[keys[k]];
    }
    if (!shared || workers < 2 || parts < 2) {
        return false;
    }
    int start = 0;
    for (int key = 0; key < 9; ++key) {
        int size = next[key];
        next[key] = start;
        start += size;
    }
    for (int k = 0; k < parts; ++k) {
        order[next[keys[k]]++] = k;
    }
    return true;
}

bool ts_broadphase_rebuild_tree(ts_broadphase *bp, ts_parallel *parallel)
{
    rebuild_stage stage = {&bp->trees[TS_TREE_MOVABLE], 0, {0}};
    /* The refit: the subtrees below the top of the enlarged part in one
     * stage, then the top (the answer does not depend on who ran what). */
    int parts = ts_tree_refit_begin(stage.tree);
    if (parts < 0) {
        return true; /* nothing grew */
    }
    if (order_parts(stage.tree, parts, parallel->worker_count, stage.order)) {
        ts_parallel_for(parallel, refit_block, &stage, parts);
    } else {
        for (int32_t part = 0; part < parts; ++part) {
            ts_tree_refit_part(stage.tree, part);
        }
    }
    if (!ts_tree_refit_end(stage.tree)) {
        return true; /* refitted in shape: good enough until it drifts */
    }
    int levels = ts_tree_rebuild_begin(stage.tree, false);
    if (levels < 0) {
        return levels == -1;
    }
    /* One stage per breadth-first level (its ranges are independent), then
     * one for the ranges left; the tree does not depend on who ran what. */
    for (stage.level = 0; stage.level < levels; ++stage.level) {
        ts_parallel_for(parallel, split_block, &stage, 1 << stage.level);
    }
    ts_parallel_for(parallel, finish_block, &stage, 1 << levels);
    ts_tree_rebuild_end(stage.tree);
    return true;
}

/* tree_bench: speed of the broadphase tree (src/collide/dynamic_tree.c).
 *
 * Inserts N random boxes (default 10,000; first argument overrides), finds
 * every overlapping pair by querying each proxy's box, and compares time and
 * pair count with an O(N^2) brute force. Then: a full rebuild, 10,000 moves,
 * and an enlarge + partial rebuild round, each followed by pair finding.
 *
 * Built by CMake as tessera-tree-bench; by hand: gcc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc \
 *        src/base/alloc.c src/collide/dynamic_tree.c src/collide/dynamic_tree_query.c bench/tree_bench.c \
 *        -lm -o tree_bench */

#include "base/alloc.h"
#include "base/aabb.h"
#include "collide/dynamic_tree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static uint32_t rng_state = 0x9E3779B9u;

static float rnd(float lo, float hi)
{
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rng_state = x;
    return lo + (hi - lo) * ((float)(x >> 8) * (1.0f / 16777216.0f));
}

/* Half extents 0.2..1 m (plus the margin), centres in a cube holding 125
 * boxes per 1000 m^3: about 2.5 overlapping neighbours per box. */
static ts_aabb random_box(float side)
{
    ts_vec3 c = {rnd(0.0f, side), rnd(0.0f, side), rnd(0.0f, side)};
    ts_vec3 h = {rnd(0.2f, 1.0f), rnd(0.2f, 1.0f), rnd(0.2f, 1.0f)};
    return ts_aabb_enlarge((ts_aabb){ts_sub(c, h), ts_add(c, h)}, TS_AABB_MARGIN);
}

typedef struct pair_counter {
    int32_t self;
    long pairs;
} pair_counter;

static bool count_pair(int proxy, int32_t user_id, void *context)
{
    (void)proxy;
    pair_counter *pc = context;
    pc->pairs += user_id > pc->self;
    return true;
}

/* All pairs through the tree; best of `reps` runs. */
static long tree_pairs(const ts_dynamic_tree *tree, const int *proxies, int n, int reps, double *best_ms)
{
    long pairs = 0;
    *best_ms = 1e30;
    for (int rep = 0; rep < reps; ++rep) {
        double t0 = now_ms();
        pairs = 0;
        for (int i = 0; i < n; ++i) {
            pair_counter pc = {i, 0};
            ts_tree_query(tree, ts_tree_get_fat_aabb(tree, proxies[i]), UINT64_MAX, count_pair, &pc);
            pairs += pc.pairs;
        }
        double t = now_ms() - t0;
        if (t < *best_ms) {
            *best_ms = t;
        }
    }
    return pairs;
}

static long brute_pairs(const ts_aabb *boxes, int n)
{
    long pairs = 0;
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
            pairs += ts_aabb_overlaps(boxes[i], boxes[j]);
        }
    }
    return pairs;
}

static void report(const char *what, const ts_dynamic_tree *tree, long pairs, double ms, long expected)
{
    printf("  %-28s pairs %7ld (%s)  %8.2f ms  height %2d  area ratio %5.1f\n", what, pairs,
           pairs == expected ? "= brute" : "MISMATCH", ms, ts_tree_height(tree), (double)ts_tree_area_ratio(tree));
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000;
    if (n < 2) {
        n = 2;
    }
    const float side = 10.0f * cbrtf((float)n / 125.0f);
    const int reps = 5;

    ts_aabb *boxes = malloc((size_t)n * sizeof(ts_aabb));
    int *proxies = malloc((size_t)n * sizeof(int));
    if (boxes == NULL || proxies == NULL) {
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        boxes[i] = random_box(side);
    }

    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    if (!ts_tree_init(&tree, &allocator, 0)) {
        return 1;
    }

    printf("tree_bench: %d boxes in a %.1f m cube, node %zu bytes\n", n, (double)side, sizeof(ts_tree_node));

    double t0 = now_ms();
    for (int i = 0; i < n; ++i) {
        proxies[i] = ts_tree_create_proxy(&tree, boxes[i], 1, i);
    }
    double insert_ms = now_ms() - t0;
    printf("  insert %d proxies: %.2f ms (%.0f ns each)\n", n, insert_ms, insert_ms * 1e6 / n);

    double best_brute = 1e30;
    long brute = 0;
    for (int rep = 0; rep < 3; ++rep) {
        t0 = now_ms();
        brute = brute_pairs(boxes, n);
        double t = now_ms() - t0;
        if (t < best_brute) {
            best_brute = t;
        }
    }
    printf("  %-28s pairs %7ld            %8.2f ms\n", "brute force O(n^2)", brute, best_brute);

    double ms;
    long pairs = tree_pairs(&tree, proxies, n, reps, &ms);
    report("tree query (incremental)", &tree, pairs, ms, brute);

    t0 = now_ms();
    ts_tree_rebuild(&tree, true);
    double rebuild_ms = now_ms() - t0;
    printf("  full rebuild (binned SAH): %.2f ms\n", rebuild_ms);
    pairs = tree_pairs(&tree, proxies, n, reps, &ms);
    report("tree query (rebuilt)", &tree, pairs, ms, brute);

    /* 10,000 moves: small steps, one in eight a teleport. */
    const int moves = 10000;
    t0 = now_ms();
    for (int k = 0; k < moves; ++k) {
        int i = (int)(rnd(0.0f, (float)n)) % n;
        if (k % 8 == 0) {
            boxes[i] = random_box(side);
        } else {
            ts_vec3 d = {rnd(-0.3f, 0.3f), rnd(-0.3f, 0.3f), rnd(-0.3f, 0.3f)};
            boxes[i] = (ts_aabb){ts_add(boxes[i].lower, d), ts_add(boxes[i].upper, d)};
        }
        ts_tree_move_proxy(&tree, proxies[i], boxes[i]);
    }
    double move_ms = now_ms() - t0;
    printf("  %d moves: %.2f ms (%.0f ns each)\n", moves, move_ms, move_ms * 1e6 / moves);
    brute = brute_pairs(boxes, n);
    pairs = tree_pairs(&tree, proxies, n, reps, &ms);
    report("tree query (after moves)", &tree, pairs, ms, brute);

    /* Box2D v3's per-step scheme: grow 10% of the proxies in place, then
     * rebuild only the enlarged part. */
    int grown = n / 10;
    t0 = now_ms();
    for (int k = 0; k < grown; ++k) {
        int i = (int)(rnd(0.0f, (float)n)) % n;
        ts_vec3 d = {rnd(-0.3f, 0.3f), rnd(-0.3f, 0.3f), rnd(-0.3f, 0.3f)};
        ts_aabb moved = {ts_add(boxes[i].lower, d), ts_add(boxes[i].upper, d)};
        boxes[i] = ts_aabb_union(boxes[i], moved);
        ts_tree_enlarge_proxy(&tree, proxies[i], boxes[i]);
    }
    double enlarge_ms = now_ms() - t0;
    t0 = now_ms();
    ts_tree_rebuild(&tree, false);
    double partial_ms = now_ms() - t0;
    printf("  enlarge %d proxies: %.2f ms, partial rebuild: %.2f ms\n", grown, enlarge_ms, partial_ms);
    brute = brute_pairs(boxes, n);
    pairs = tree_pairs(&tree, proxies, n, reps, &ms);
    report("tree query (partial rebuild)", &tree, pairs, ms, brute);

    int ok = ts_tree_validate(&tree);
    printf("  validate: %s\n", ok ? "ok" : "FAILED");
    ts_tree_destroy(&tree);
    free(boxes);
    free(proxies);
    return ok ? 0 : 1;
}

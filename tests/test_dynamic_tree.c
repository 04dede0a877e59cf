/* Tests of the broadphase's dynamic AABB tree (src/collide/dynamic_tree.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/aabb.h"
#include "collide/dynamic_tree.h"
#include "test_common.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

/* xorshift32 with a fixed seed: the same boxes on every run and machine. */
typedef struct rng {
    uint32_t state;
} rng;

static uint32_t rng_next(rng *r)
{
    uint32_t x = r->state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    r->state = x;
    return x;
}

/* Uniform in [lo, hi). */
static float rng_range(rng *r, float lo, float hi)
{
    float u = (float)(rng_next(r) >> 8) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

/* A box of half extents 0.2..1 centred in [0, side)^3, grown by the default margin. */
static ts_aabb random_box(rng *r, float side)
{
    ts_vec3 c = {rng_range(r, 0.0f, side), rng_range(r, 0.0f, side), rng_range(r, 0.0f, side)};
    ts_vec3 h = {rng_range(r, 0.2f, 1.0f), rng_range(r, 0.2f, 1.0f), rng_range(r, 0.2f, 1.0f)};
    return ts_aabb_enlarge((ts_aabb){ts_sub(c, h), ts_add(c, h)}, TS_AABB_MARGIN);
}

static ts_aabb translate_box(ts_aabb b, ts_vec3 d) { return (ts_aabb){ts_add(b.lower, d), ts_add(b.upper, d)}; }

/* A growable list of 64-bit keys (pairs a << 32 | b, or proxy ids). */
typedef struct key_list {
    uint64_t *keys;
    int count;
    int capacity;
} key_list;

static void key_push(key_list *list, uint64_t key)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? 2 * list->capacity : 1024;
        list->keys = realloc(list->keys, (size_t)list->capacity * sizeof(uint64_t));
        assert_non_null(list->keys);
    }
    list->keys[list->count++] = key;
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

static uint64_t pair_key(int32_t a, int32_t b) { return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b; }

/* Pair finding through the tree: every live proxy queries its own box and
 * keeps the partners with a larger user id. */
typedef struct pair_context {
    int32_t self;
    key_list *pairs;
} pair_context;

static bool collect_pair(int proxy, int32_t user_id, void *context)
{
    (void)proxy;
    pair_context *pc = context;
    if (user_id > pc->self) {
        key_push(pc->pairs, pair_key(pc->self, user_id));
    }
    return true;
}

/* A scene: boxes[i] is user id i, proxies[i] its proxy (or TS_NULL_PROXY). */
typedef struct scene {
    int n;
    ts_aabb *boxes;
    int *proxies;
    uint64_t *masks; /* query mask of each proxy (all ones unless a test sets it) */
} scene;

static scene scene_make(int n)
{
    scene s = {n, calloc((size_t)n, sizeof(ts_aabb)), calloc((size_t)n, sizeof(int)), calloc((size_t)n, sizeof(uint64_t))};
    assert_non_null(s.boxes);
    assert_non_null(s.proxies);
    assert_non_null(s.masks);
    for (int i = 0; i < n; ++i) {
        s.proxies[i] = TS_NULL_PROXY;
        s.masks[i] = UINT64_MAX;
    }
    return s;
}

static void scene_free(scene *s)
{
    free(s->boxes);
    free(s->proxies);
    free(s->masks);
}

static key_list tree_pairs(const ts_dynamic_tree *tree, const scene *s)
{
    key_list pairs = {0};
    for (int i = 0; i < s->n; ++i) {
        if (s->proxies[i] == TS_NULL_PROXY) {
            continue;
        }
        pair_context pc = {i, &pairs};
        ts_tree_query(tree, ts_tree_get_fat_aabb(tree, s->proxies[i]), s->masks[i], collect_pair, &pc);
    }
    qsort(pairs.keys, (size_t)pairs.count, sizeof(uint64_t), compare_keys);
    return pairs;
}

/* The reference pairs, found without the tree: every live (i, j), i < j,
 * whose boxes overlap and whose category bits pass i's mask. Sweep and
 * prune on x (sort by lower x; a box meets only the boxes that start before
 * it ends), so the 20,000-proxy tests stay fast under the sanitizers; the
 * overlap test itself is the plain ts_aabb_overlaps of every candidate. */
static const scene *sweep_scene;
static int compare_lower_x(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    float xi = sweep_scene->boxes[i].lower.x, xj = sweep_scene->boxes[j].lower.x;
    return xi < xj ? -1 : xi > xj ? 1 : (i > j) - (i < j);
}

static key_list brute_pairs(const scene *s, const uint64_t *categories)
{
    key_list pairs = {0};
    int *order = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(int));
    assert_non_null(order);
    int live = 0;
    for (int i = 0; i < s->n; ++i) {
        if (s->proxies[i] != TS_NULL_PROXY) {
            order[live++] = i;
        }
    }
    sweep_scene = s;
    qsort(order, (size_t)live, sizeof(int), compare_lower_x);
    for (int a = 0; a < live; ++a) {
        for (int b = a + 1; b < live && s->boxes[order[b]].lower.x <= s->boxes[order[a]].upper.x; ++b) {
            int i = order[a] < order[b] ? order[a] : order[b];
            int j = order[a] < order[b] ? order[b] : order[a];
            if (!ts_aabb_overlaps(s->boxes[i], s->boxes[j])) {
                continue;
            }
            if (categories != NULL && (categories[j] & s->masks[i]) == 0) {
                continue;
            }
            key_push(&pairs, pair_key(i, j));
        }
    }
    free(order);
    qsort(pairs.keys, (size_t)pairs.count, sizeof(uint64_t), compare_keys);
    return pairs;
}

static void assert_same_pairs(key_list a, key_list b)
{
    assert_int_equal(a.count, b.count);
    if (a.count > 0) {
        assert_memory_equal(a.keys, b.keys, (size_t)a.count * sizeof(uint64_t));
    }
    free(a.keys);
    free(b.keys);
}

static void assert_pairs_match_brute_force(const ts_dynamic_tree *tree, const scene *s)
{
    key_list from_tree = tree_pairs(tree, s);
    key_list brute = brute_pairs(s, NULL);
    assert_true(brute.count > 0);
    assert_same_pairs(from_tree, brute);
}

static void fill_tree(ts_dynamic_tree *tree, scene *s, rng *r, float side)
{
    for (int i = 0; i < s->n; ++i) {
        s->boxes[i] = random_box(r, side);
        s->proxies[i] = ts_tree_create_proxy(tree, s->boxes[i], 1, i);
        assert_int_not_equal(s->proxies[i], TS_NULL_PROXY);
    }
}

static int log2_ceil(int n)
{
    int k = 0;
    while ((1 << k) < n) {
        ++k;
    }
    return k;
}

/* ---- tests ---- */

/* The aabb.h helpers: overlap (touching counts), union, contains, area, enlarge. */
static void test_aabb_helpers(void **state)
{
    (void)state;
    ts_aabb a = {{0, 0, 0}, {1, 2, 3}};
    ts_aabb b = {{1, 2, 3}, {4, 4, 4}};
    ts_aabb c = {{1.5f, 0, 0}, {2, 1, 1}};
    assert_true(ts_aabb_overlaps(a, b));
    assert_false(ts_aabb_overlaps(a, c));
    ts_aabb u = ts_aabb_union(a, c);
    assert_true(ts_aabb_contains(u, a) && ts_aabb_contains(u, c));
    assert_false(ts_aabb_contains(a, u));
    assert_true(ts_aabb_area(a) == 2.0f * (2.0f + 6.0f + 3.0f));
    assert_true(ts_aabb_perimeter(a) == 6.0f);
    ts_aabb e = ts_aabb_enlarge(a, TS_AABB_MARGIN);
    assert_true(ts_aabb_contains(e, a));
    assert_true(e.lower.x == -TS_AABB_MARGIN && e.upper.z == 3.0f + TS_AABB_MARGIN);
    ts_aabb g = a;
    assert_false(ts_aabb_enlarge_to_contain(&g, a));
    assert_true(ts_aabb_enlarge_to_contain(&g, c));
    assert_true(ts_aabb_contains(g, c));
    assert_true(ts_aabb_is_valid(a));
    assert_false(ts_aabb_is_valid((ts_aabb){{1, 0, 0}, {0, 1, 1}}));
}

static bool count_hit(int proxy, int32_t user_id, void *context)
{
    (void)proxy;
    (void)user_id;
    *(int *)context += 1;
    return true;
}

/* An empty tree and a one-leaf tree answer queries and report height 0. */
static void test_empty_and_single(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    assert_true(ts_tree_validate(&tree));
    assert_int_equal(ts_tree_height(&tree), 0);
    int hits = 0;
    ts_aabb everything = {{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
    ts_tree_query(&tree, everything, UINT64_MAX, count_hit, &hits);
    assert_int_equal(hits, 0);
    assert_true(ts_tree_rebuild(&tree, true));

    int p = ts_tree_create_proxy(&tree, (ts_aabb){{0, 0, 0}, {1, 1, 1}}, 1, 42);
    assert_int_not_equal(p, TS_NULL_PROXY);
    assert_int_equal(ts_tree_get_user_id(&tree, p), 42);
    assert_int_equal(ts_tree_height(&tree), 0);
    assert_true(ts_tree_validate(&tree));
    ts_tree_query(&tree, everything, UINT64_MAX, count_hit, &hits);
    assert_int_equal(hits, 1);
    ts_tree_move_proxy(&tree, p, (ts_aabb){{5, 5, 5}, {6, 6, 6}});
    assert_true(ts_tree_validate(&tree));
    assert_true(ts_tree_get_fat_aabb(&tree, p).lower.x == 5.0f);
    ts_tree_destroy_proxy(&tree, p);
    assert_true(ts_tree_validate(&tree));
    assert_int_equal(ts_tree_proxy_count(&tree), 0);
    ts_tree_destroy(&tree);
}

/* Every create, move and destroy leaves ts_tree_validate true. */
static void test_insert_remove_move_validate(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 8));
    rng r = {12345u};
    scene s = scene_make(600);
    for (int i = 0; i < s.n; ++i) {
        s.boxes[i] = random_box(&r, 30.0f);
        s.proxies[i] = ts_tree_create_proxy(&tree, s.boxes[i], 1, i);
        assert_true(ts_tree_validate(&tree));
    }
    for (int k = 0; k < 1500; ++k) {
        int i = (int)(rng_next(&r) % (uint32_t)s.n);
        uint32_t op = rng_next(&r) % 3;
        if (s.proxies[i] == TS_NULL_PROXY) {
            s.boxes[i] = random_box(&r, 30.0f);
            s.proxies[i] = ts_tree_create_proxy(&tree, s.boxes[i], 1, i);
        } else if (op == 0) {
            ts_tree_destroy_proxy(&tree, s.proxies[i]);
            s.proxies[i] = TS_NULL_PROXY;
        } else {
            s.boxes[i] = random_box(&r, 30.0f);
            ts_tree_move_proxy(&tree, s.proxies[i], s.boxes[i]);
        }
        assert_true(ts_tree_validate(&tree));
    }
    for (int i = 0; i < s.n; ++i) {
        if (s.proxies[i] != TS_NULL_PROXY) {
            assert_int_equal(ts_tree_get_user_id(&tree, s.proxies[i]), i);
            assert_memory_equal(&s.boxes[i], &tree.nodes[s.proxies[i]].aabb, sizeof(ts_aabb));
        }
    }
    assert_pairs_match_brute_force(&tree, &s);
    for (int i = 0; i < s.n; ++i) {
        if (s.proxies[i] != TS_NULL_PROXY) {
            ts_tree_destroy_proxy(&tree, s.proxies[i]);
            s.proxies[i] = TS_NULL_PROXY;
            assert_true(ts_tree_validate(&tree));
        }
    }
    assert_int_equal(tree.node_count, 0);
    assert_int_equal(tree.root, TS_NULL_PROXY);
    scene_free(&s);
    ts_tree_destroy(&tree);
}

/* 2000 random boxes: the pairs found by querying each proxy equal brute force. */
static void test_pairs_match_brute_force(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 16));
    rng r = {777u};
    scene s = scene_make(2000);
    fill_tree(&tree, &s, &r, 40.0f);
    assert_true(ts_tree_validate(&tree));
    assert_int_equal(ts_tree_proxy_count(&tree), 2000);
    assert_pairs_match_brute_force(&tree, &s);
    assert_true(ts_tree_height(&tree) <= 4 * log2_ceil(s.n));
    scene_free(&s);
    ts_tree_destroy(&tree);
}

/* 10,000 random moves (small steps and teleports): pairs still equal brute
 * force and the height stays <= 4 log2(n) (44 for n = 2000). */
static void test_random_moves(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 2000));
    rng r = {4242u};
    scene s = scene_make(2000);
    fill_tree(&tree, &s, &r, 40.0f);
    int bound = 4 * log2_ceil(s.n);
    for (int k = 0; k < 10000; ++k) {
        int i = (int)(rng_next(&r) % (uint32_t)s.n);
        if (rng_next(&r) % 8 == 0) {
            s.boxes[i] = random_box(&r, 40.0f);
        } else {
            ts_vec3 d = {rng_range(&r, -1.0f, 1.0f), rng_range(&r, -1.0f, 1.0f), rng_range(&r, -1.0f, 1.0f)};
            s.boxes[i] = translate_box(s.boxes[i], d);
        }
        ts_tree_move_proxy(&tree, s.proxies[i], s.boxes[i]);
        assert_true(ts_tree_height(&tree) <= bound);
        if (k % 1000 == 0) {
            assert_true(ts_tree_validate(&tree));
        }
    }
    assert_true(ts_tree_validate(&tree));
    assert_pairs_match_brute_force(&tree, &s);
    print_message("      n = 2000, after 10000 moves: height %d (bound %d), area ratio %.1f\n", ts_tree_height(&tree),
                  bound, (double)ts_tree_area_ratio(&tree));
    scene_free(&s);
    ts_tree_destroy(&tree);
}

/* Boxes inserted in sorted order along a line (the classic worst case of
 * naive insertion) keep the height <= 4 log2(n) thanks to rotations. */
static void test_sorted_insertion_height(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    const int n = 4096;
    for (int i = 0; i < n; ++i) {
        float x = (float)i;
        ts_aabb box = {{x, 0, 0}, {x + 0.5f, 1, 1}};
        assert_int_not_equal(ts_tree_create_proxy(&tree, box, 1, i), TS_NULL_PROXY);
    }
    assert_true(ts_tree_validate(&tree));
    print_message("      sorted line of %d: height %d\n", n, ts_tree_height(&tree));
    assert_true(ts_tree_height(&tree) <= 4 * log2_ceil(n));
    ts_tree_destroy(&tree);
}

/* Category bits and the query mask: a leaf is reported only when they share
 * a bit; set_category_bits updates the ancestors; pairs equal filtered brute force. */
static void test_category_mask_filtering(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    rng r = {99u};
    scene s = scene_make(800);
    uint64_t *categories = calloc((size_t)s.n, sizeof(uint64_t));
    assert_non_null(categories);
    for (int i = 0; i < s.n; ++i) {
        s.boxes[i] = random_box(&r, 20.0f);
        categories[i] = (uint64_t)1 << (rng_next(&r) % 4);
        s.masks[i] = (rng_next(&r) & 0xF) | ((uint64_t)1 << 63);
        s.proxies[i] = ts_tree_create_proxy(&tree, s.boxes[i], categories[i], i);
    }
    assert_true(ts_tree_validate(&tree));
    key_list from_tree = tree_pairs(&tree, &s);
    /* tree_pairs keeps (i, j) with j > i found by i's query: filter by i's mask only. */
    key_list brute = brute_pairs(&s, categories);
    assert_true(brute.count > 0);
    assert_same_pairs(from_tree, brute);

    /* A mask with no category of any leaf finds nothing. */
    int hits = 0;
    ts_aabb everything = {{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
    ts_tree_query(&tree, everything, (uint64_t)1 << 40, count_hit, &hits);
    assert_int_equal(hits, 0);

    /* Moving one proxy into category 40 makes it the only hit. */
    ts_tree_set_category_bits(&tree, s.proxies[17], (uint64_t)1 << 40);
    assert_true(ts_tree_get_category_bits(&tree, s.proxies[17]) == (uint64_t)1 << 40);
    assert_true(ts_tree_validate(&tree));
    ts_tree_query(&tree, everything, (uint64_t)1 << 40, count_hit, &hits);
    assert_int_equal(hits, 1);
    assert_true((tree.nodes[tree.root].category_bits & ((uint64_t)1 << 40)) != 0);

    free(categories);
    scene_free(&s);
    ts_tree_destroy(&tree);
}

/* Destroying all proxies and creating as many again reuses the freed nodes:
 * the pool does not grow and every id is one of the old node slots. */
static void test_node_reuse(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    rng r = {5u};
    enum { N = 300 };
    int proxies[N];
    for (int i = 0; i < N; ++i) {
        proxies[i] = ts_tree_create_proxy(&tree, random_box(&r, 10.0f), 1, i);
    }
    int capacity = tree.node_capacity;
    int node_count = tree.node_count;
    ts_tree_node *pool = tree.nodes;
    for (int i = 0; i < N; ++i) {
        ts_tree_destroy_proxy(&tree, proxies[i]);
    }
    assert_int_equal(tree.node_count, 0);
    assert_true(ts_tree_validate(&tree));
    /* The last node freed is the first one handed out. */
    int last_freed = proxies[N - 1];
    for (int i = 0; i < N; ++i) {
        proxies[i] = ts_tree_create_proxy(&tree, random_box(&r, 10.0f), 1, i);
        assert_true(proxies[i] >= 0 && proxies[i] < capacity);
    }
    assert_int_equal(proxies[0], last_freed);
    assert_int_equal(tree.node_capacity, capacity);
    assert_int_equal(tree.node_count, node_count);
    assert_ptr_equal(tree.nodes, pool);
    assert_true(ts_tree_validate(&tree));
    ts_tree_destroy(&tree);
}

/* An allocator that fails after a budget of successful allocations. */
typedef struct budget {
    int remaining;
    int failures;
} budget;

static void *budget_alloc(size_t size, size_t alignment, void *context)
{
    budget *b = context;
    if (b->remaining <= 0) {
        b->failures += 1;
        return NULL;
    }
    b->remaining -= 1;
    return aligned_alloc(alignment, size);
}

static void budget_free(void *memory, size_t size, void *context)
{
    (void)size;
    (void)context;
    free(memory);
}

/* When the pool cannot grow, create_proxy returns -1 and the tree is unchanged
 * and valid; a failed rebuild changes nothing; a failed init is safe to destroy. */
static void test_failing_allocator(void **state)
{
    (void)state;
    budget b = {0, 0};
    ts_allocator allocator = {budget_alloc, budget_free, &b};
    ts_dynamic_tree tree;
    assert_false(ts_tree_init(&tree, &allocator, 4));
    ts_tree_destroy(&tree);
    b.failures = 0;

    b.remaining = 1; /* the initial pool only */
    assert_true(ts_tree_init(&tree, &allocator, 4));
    rng r = {31u};
    scene s = scene_make(64);
    int created = 0;
    for (int i = 0; i < s.n; ++i) {
        s.boxes[i] = random_box(&r, 3.0f);
        int before_count = tree.node_count;
        int p = ts_tree_create_proxy(&tree, s.boxes[i], 1, i);
        if (p == TS_NULL_PROXY) {
            assert_int_equal(tree.node_count, before_count);
            assert_true(ts_tree_validate(&tree));
            break;
        }
        s.proxies[i] = p;
        created += 1;
    }
    assert_int_equal(b.failures, 1);
    assert_true(created > 0 && created < s.n);
    assert_int_equal(ts_tree_proxy_count(&tree), created);
    assert_true(ts_tree_validate(&tree));
    assert_pairs_match_brute_force(&tree, &s);

    /* Rebuild scratch cannot be allocated either: false, tree untouched. */
    ts_tree_node *copy = malloc((size_t)tree.node_capacity * sizeof(ts_tree_node));
    assert_non_null(copy);
    memcpy(copy, tree.nodes, (size_t)tree.node_capacity * sizeof(ts_tree_node));
    int root = tree.root;
    assert_false(ts_tree_rebuild(&tree, true));
    assert_int_equal(tree.root, root);
    assert_memory_equal(copy, tree.nodes, (size_t)tree.node_capacity * sizeof(ts_tree_node));
    free(copy);

    /* Moves never allocate. */
    for (int i = 0; i < created; ++i) {
        s.boxes[i] = random_box(&r, 3.0f);
        ts_tree_move_proxy(&tree, s.proxies[i], s.boxes[i]);
    }
    assert_true(ts_tree_validate(&tree));

    /* Once memory is back, creation goes on. */
    b.remaining = 100;
    for (int i = created; i < s.n; ++i) {
        s.boxes[i] = random_box(&r, 3.0f);
        s.proxies[i] = ts_tree_create_proxy(&tree, s.boxes[i], 1, i);
        assert_int_not_equal(s.proxies[i], TS_NULL_PROXY);
    }
    assert_true(ts_tree_validate(&tree));
    assert_pairs_match_brute_force(&tree, &s);
    scene_free(&s);
    ts_tree_destroy(&tree);
}

static bool record_order(int proxy, int32_t user_id, void *context)
{
    (void)user_id;
    key_push(context, (uint64_t)(uint32_t)proxy);
    return true;
}

/* One fixed sequence of creates, moves, enlarges, rebuilds and destroys, then
 * the query order of many boxes. */
static key_list run_sequence(ts_dynamic_tree *tree)
{
    ts_allocator *allocator = malloc(sizeof(ts_allocator)); /* owned by the caller's tree */
    assert_non_null(allocator);
    *allocator = ts_default_allocator();
    assert_true(ts_tree_init(tree, allocator, 0));
    rng r = {2024u};
    scene s = scene_make(1000);
    fill_tree(tree, &s, &r, 25.0f);
    for (int k = 0; k < 3000; ++k) {
        int i = (int)(rng_next(&r) % (uint32_t)s.n);
        uint32_t op = rng_next(&r) % 4;
        if (s.proxies[i] == TS_NULL_PROXY) {
            s.boxes[i] = random_box(&r, 25.0f);
            s.proxies[i] = ts_tree_create_proxy(tree, s.boxes[i], 1, i);
        } else if (op == 0) {
            ts_tree_destroy_proxy(tree, s.proxies[i]);
            s.proxies[i] = TS_NULL_PROXY;
        } else if (op == 1) {
            s.boxes[i] = ts_aabb_enlarge(s.boxes[i], 0.3f);
            ts_tree_enlarge_proxy(tree, s.proxies[i], s.boxes[i]);
        } else {
            s.boxes[i] = random_box(&r, 25.0f);
            ts_tree_move_proxy(tree, s.proxies[i], s.boxes[i]);
        }
        if (k % 500 == 499) {
            assert_true(ts_tree_rebuild(tree, k % 1000 == 999));
        }
    }
    key_list order = {0};
    for (int q = 0; q < 500; ++q) {
        ts_aabb box = random_box(&r, 25.0f);
        ts_tree_query(tree, ts_aabb_enlarge(box, 2.0f), UINT64_MAX, record_order, &order);
        key_push(&order, UINT64_MAX); /* separator */
    }
    scene_free(&s);
    return order;
}

/* The same call sequence twice gives identical nodes and identical query order. */
static void test_determinism(void **state)
{
    (void)state;
    ts_dynamic_tree t1, t2;
    key_list o1 = run_sequence(&t1);
    key_list o2 = run_sequence(&t2);
    assert_true(o1.count > 1000);
    assert_int_equal(t1.node_capacity, t2.node_capacity);
    assert_int_equal(t1.root, t2.root);
    assert_memory_equal(t1.nodes, t2.nodes, (size_t)t1.node_capacity * sizeof(ts_tree_node));
    assert_true(ts_tree_validate(&t1));
    const ts_allocator *a1 = t1.allocator;
    const ts_allocator *a2 = t2.allocator;
    ts_tree_destroy(&t1);
    ts_tree_destroy(&t2);
    free((void *)a1);
    free((void *)a2);
    assert_same_pairs(o1, o2);
}

/* The stackless walk (the fallback for deep trees) reports the same leaves in
 * the same order as the stack query. */
static void test_stackless_query_same_order(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    rng r = {8u};
    scene s = scene_make(1500);
    fill_tree(&tree, &s, &r, 30.0f);
    for (int q = 0; q < 300; ++q) {
        ts_aabb box = ts_aabb_enlarge(random_box(&r, 30.0f), rng_range(&r, 0.0f, 5.0f));
        key_list a = {0}, b = {0};
        ts_tree_query(&tree, box, UINT64_MAX, record_order, &a);
        ts_tree_query_stackless(&tree, box, UINT64_MAX, record_order, &b);
        assert_int_equal(a.count, b.count);
        if (a.count > 0) {
            assert_memory_equal(a.keys, b.keys, (size_t)a.count * sizeof(uint64_t));
        }
        free(a.keys);
        free(b.keys);
    }
    scene_free(&s);
    ts_tree_destroy(&tree);
}

static bool stop_after_one(int proxy, int32_t user_id, void *context)
{
    (void)proxy;
    (void)user_id;
    *(int *)context += 1;
    return false;
}

/* A callback returning false ends the query at once (both walks). */
static void test_query_early_stop(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    rng r = {3u};
    scene s = scene_make(200);
    fill_tree(&tree, &s, &r, 5.0f);
    ts_aabb everything = {{-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 1e30f}};
    int hits = 0;
    ts_tree_query(&tree, everything, UINT64_MAX, stop_after_one, &hits);
    assert_int_equal(hits, 1);
    hits = 0;
    ts_tree_query_stackless(&tree, everything, UINT64_MAX, stop_after_one, &hits);
    assert_int_equal(hits, 1);
    hits = 0;
    ts_tree_query(&tree, everything, UINT64_MAX, count_hit, &hits);
    assert_int_equal(hits, 200);
    scene_free(&s);
    ts_tree_destroy(&tree);
}

/* Enlarging proxies in place keeps the tree valid and queries exact; a
 * partial rebuild then clears every enlarged flag and keeps the pairs. */
static void test_enlarge_and_partial_rebuild(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    rng r = {1001u};
    scene s = scene_make(2000);
    fill_tree(&tree, &s, &r, 40.0f);
    for (int round = 0; round < 5; ++round) {
        for (int k = 0; k < 200; ++k) {
            int i = (int)(rng_next(&r) % (uint32_t)s.n);
            ts_vec3 d = {rng_range(&r, -0.5f, 0.5f), rng_range(&r, -0.5f, 0.5f), rng_range(&r, -0.5f, 0.5f)};
            ts_aabb moved = translate_box(s.boxes[i], d);
            s.boxes[i] = ts_aabb_union(s.boxes[i], moved);
            ts_tree_enlarge_proxy(&tree, s.proxies[i], s.boxes[i]);
        }
        assert_true(ts_tree_validate(&tree));
        assert_true((tree.nodes[tree.root].flags & TS_TREE_NODE_ENLARGED) != 0);
        assert_pairs_match_brute_force(&tree, &s);

        assert_true(ts_tree_rebuild(&tree, false));
        assert_true(ts_tree_validate(&tree));
        for (int i = 0; i < tree.node_capacity; ++i) {
            assert_int_equal(tree.nodes[i].flags & TS_TREE_NODE_ENLARGED, 0);
        }
        assert_pairs_match_brute_force(&tree, &s);
        assert_true(ts_tree_height(&tree) <= 4 * log2_ceil(s.n));
    }
    /* Nothing enlarged: a partial rebuild changes nothing. */
    ts_tree_node *copy = malloc((size_t)tree.node_capacity * sizeof(ts_tree_node));
    assert_non_null(copy);
    memcpy(copy, tree.nodes, (size_t)tree.node_capacity * sizeof(ts_tree_node));
    assert_true(ts_tree_rebuild(&tree, false));
    assert_memory_equal(copy, tree.nodes, (size_t)tree.node_capacity * sizeof(ts_tree_node));
    free(copy);
    scene_free(&s);
    ts_tree_destroy(&tree);
}

/* A full binned-SAH rebuild keeps the pairs, and gives a shallow tree no
 * worse in area than incremental insertion, even with coincident centres. */
static void test_full_rebuild(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    rng r = {77u};
    scene s = scene_make(2000);
    fill_tree(&tree, &s, &r, 40.0f);
    float ratio_incremental = ts_tree_area_ratio(&tree);
    int height_incremental = ts_tree_height(&tree);
    assert_true(ts_tree_rebuild(&tree, true));
    assert_true(ts_tree_validate(&tree));
    assert_pairs_match_brute_force(&tree, &s);
    float ratio_rebuilt = ts_tree_area_ratio(&tree);
    print_message("      n = 2000: incremental height %d area ratio %.1f; rebuilt height %d area ratio %.1f\n",
                  height_incremental, (double)ratio_incremental, ts_tree_height(&tree), (double)ratio_rebuilt);
    assert_true(ts_tree_height(&tree) <= 3 * log2_ceil(s.n));
    assert_true(ratio_rebuilt <= 1.1f * ratio_incremental);

    /* Many boxes with the same centre: the build falls back to halving. */
    ts_dynamic_tree same;
    assert_true(ts_tree_init(&same, &allocator, 0));
    for (int i = 0; i < 1000; ++i) {
        float h = 1.0f + 0.001f * (float)i;
        assert_int_not_equal(ts_tree_create_proxy(&same, (ts_aabb){{-h, -h, -h}, {h, h, h}}, 1, i), TS_NULL_PROXY);
    }
    assert_true(ts_tree_rebuild(&same, true));
    assert_true(ts_tree_validate(&same));
    assert_int_equal(ts_tree_height(&same), log2_ceil(1000));
    int hits = 0;
    ts_tree_query(&same, (ts_aabb){{0, 0, 0}, {0, 0, 0}}, UINT64_MAX, count_hit, &hits);
    assert_int_equal(hits, 1000);
    ts_tree_destroy(&same);
    scene_free(&s);
    ts_tree_destroy(&tree);
}

/* Grows `count` random proxies (each by a random drift), in place or
 * deferred (ts_tree_enlarge_proxy_deferred). */
static void enlarge_some_as(ts_dynamic_tree *tree, scene *s, rng *r, int count, float drift, bool deferred)
{
    for (int k = 0; k < count; ++k) {
        int i = (int)(rng_next(r) % (uint32_t)s->n);
        ts_vec3 d = {rng_range(r, -drift, drift), rng_range(r, -drift, drift), rng_range(r, -drift, drift)};
        s->boxes[i] = ts_aabb_union(s->boxes[i], translate_box(s->boxes[i], d));
        if (deferred) {
            ts_tree_enlarge_proxy_deferred(tree, s->proxies[i], s->boxes[i], false);
        } else {
            ts_tree_enlarge_proxy(tree, s->proxies[i], s->boxes[i]);
        }
    }
}

static void enlarge_some(ts_dynamic_tree *tree, scene *s, rng *r, int count, float drift)
{
    enlarge_some_as(tree, s, r, count, drift, false);
}

/* Appends the internal nodes below `index` that `chosen` marks, in order
 * (left subtree, node, right subtree). */
static void in_order_nodes(const ts_dynamic_tree *tree, int index, const bool *chosen, int32_t *out, int *count)
{
    const ts_tree_node *node = tree->nodes + index;
    if ((node->flags & TS_TREE_NODE_LEAF) != 0) {
        return;
    }
    in_order_nodes(tree, node->children.child1, chosen, out, count);
    if (chosen[index]) {
        out[(*count)++] = index;
    }
    in_order_nodes(tree, node->children.child2, chosen, out, count);
}

/* Asserts that the nodes `chosen` marks come in ascending index order when
 * the tree is walked in order, and returns how many there are. */
static int assert_in_order_layout(const ts_dynamic_tree *tree, const bool *chosen)
{
    int32_t *seen = malloc((size_t)tree->node_capacity * sizeof(int32_t));
    assert_non_null(seen);
    int count = 0;
    in_order_nodes(tree, tree->root, chosen, seen, &count);
    for (int i = 1; i < count; ++i) {
        assert_true(seen[i - 1] < seen[i]);
    }
    free(seen);
    return count;
}

/* A rebuild lays the nodes it makes out in order (a node's index between
 * those of its two subtrees' nodes), so that a refit walking a subtree
 * stays in one stretch of the pool (free_fall's refit and enlarge are a
 * third faster for it). Checked on a full rebuild of 40,000 proxies (node
 * indices past 65,535, so the sort's third byte counts) and on partial
 * rebuilds, whose reused nodes are those flagged enlarged before. A tree
 * built by insertion has no such order, so the check fails if the rebuild
 * hands its nodes out unsorted. */
static void test_rebuild_lays_nodes_in_order(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    rng r = {4242u};
    scene s = scene_make(40000);
    fill_tree(&tree, &s, &r, 400.0f);
    assert_true(tree.node_capacity > 65536);
    bool *chosen = calloc((size_t)tree.node_capacity, sizeof(bool));
    assert_non_null(chosen);

    assert_true(ts_tree_rebuild(&tree, true));
    for (int i = 0; i < tree.node_capacity; ++i) {
        chosen[i] = tree.nodes[i].flags == TS_TREE_NODE_ALLOCATED; /* internal */
    }
    assert_int_equal(assert_in_order_layout(&tree, chosen), s.n - 1);

    for (int round = 0; round < 4; ++round) {
        enlarge_some(&tree, &s, &r, 300, 2.0f);
        int reused = 0;
        for (int i = 0; i < tree.node_capacity; ++i) {
            chosen[i] = (tree.nodes[i].flags & TS_TREE_NODE_ENLARGED) != 0;
            reused += chosen[i];
        }
        assert_true(reused > 0 && reused < s.n - 1);
        assert_true(ts_tree_rebuild(&tree, false));
        assert_true(ts_tree_validate(&tree));
        assert_int_equal(assert_in_order_layout(&tree, chosen), reused);
    }
    free(chosen);
    scene_free(&s);
    ts_tree_destroy(&tree);
}

/* The rebuild in parts (as the step runs it on several workers) gives the
 * same tree, byte for byte, as ts_tree_rebuild on one thread, whatever order
 * the parts of one level run in: the nodes a range uses depend only on its
 * items. 20,000 proxies, so that the breadth-first levels are used. */
static void test_parallel_rebuild_same_tree(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree serial, parts;
    assert_true(ts_tree_init(&serial, &allocator, 0));
    assert_true(ts_tree_init(&parts, &allocator, 0));
    rng r1 = {4242u}, r2 = {4242u};
    scene s1 = scene_make(20000), s2 = scene_make(20000);
    fill_tree(&serial, &s1, &r1, 200.0f);
    fill_tree(&parts, &s2, &r2, 200.0f);
    for (int round = 0; round < 3; ++round) {
        bool full = round == 0;
        if (!full) {
            enlarge_some(&serial, &s1, &r1, 2000, 1.0f);
            enlarge_some(&parts, &s2, &r2, 2000, 1.0f);
        }
        assert_true(ts_tree_rebuild(&serial, full));
        int levels = ts_tree_rebuild_begin(&parts, full);
        assert_true(levels >= 1 && levels <= TS_TREE_BUILD_LEVELS);
        for (int level = 0; level < levels; ++level) {
            for (int k = (1 << level) - 1; k >= 0; --k) { /* backwards: another worker's order */
                ts_tree_rebuild_split(&parts, level, k);
            }
        }
        for (int k = (1 << levels) - 1; k >= 0; --k) {
            ts_tree_rebuild_finish(&parts, k);
        }
        ts_tree_rebuild_end(&parts);
        assert_true(ts_tree_validate(&parts));
        assert_int_equal(serial.root, parts.root);
        assert_memory_equal(serial.nodes, parts.nodes, (size_t)serial.node_capacity * sizeof(ts_tree_node));
    }
    assert_pairs_match_brute_force(&parts, &s2);
    scene_free(&s1);
    scene_free(&s2);
    ts_tree_destroy(&serial);
    ts_tree_destroy(&parts);
}

/* What it checks: enlarging without growing the ancestors
 * (ts_tree_enlarge_proxy_deferred, the step's way) and refitting leaves the
 * tree byte for byte as enlarging in place and refitting does, with the
 * same refit answer and bookkeeping, over rounds that end in refits and in
 * rebuilds. 20,000 proxies, a tenth of them grown per round, as in a
 * falling crowd. */
static void test_deferred_enlarge_same_tree(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree grown, deferred;
    assert_true(ts_tree_init(&grown, &allocator, 0));
    assert_true(ts_tree_init(&deferred, &allocator, 0));
    rng r1 = {99u}, r2 = {99u};
    scene s1 = scene_make(20000), s2 = scene_make(20000);
    fill_tree(&grown, &s1, &r1, 200.0f);
    fill_tree(&deferred, &s2, &r2, 200.0f);
    assert_true(ts_tree_rebuild(&grown, true));
    assert_true(ts_tree_rebuild(&deferred, true));
    int rebuilds = 0;
    for (int round = 0; round < 12; ++round) {
        enlarge_some_as(&grown, &s1, &r1, 2000, 0.5f + 0.2f * (float)round, false);
        enlarge_some_as(&deferred, &s2, &r2, 2000, 0.5f + 0.2f * (float)round, true);
        bool asked = ts_tree_refit_enlarged(&grown);
        assert_int_equal(asked, ts_tree_refit_enlarged(&deferred));
        assert_true(grown.enlarged_area == deferred.enlarged_area);
        assert_true(grown.enlarged_built_area == deferred.enlarged_built_area);
        assert_memory_equal(grown.nodes, deferred.nodes, (size_t)grown.node_capacity * sizeof(ts_tree_node));
        if (asked) {
            rebuilds += 1;
            assert_true(ts_tree_rebuild(&grown, false));
            assert_true(ts_tree_rebuild(&deferred, false));
            assert_memory_equal(grown.nodes, deferred.nodes, (size_t)grown.node_capacity * sizeof(ts_tree_node));
        }
        assert_true(ts_tree_validate(&deferred));
    }
    assert_true(rebuilds > 0);
    assert_pairs_match_brute_force(&deferred, &s2);
    scene_free(&s1);
    scene_free(&s2);
    ts_tree_destroy(&grown);
    ts_tree_destroy(&deferred);
}

/* Marks from several threads (ts_tree_enlarge_proxy_deferred shared, and
 * ts_tree_enlarge_proxy_shared on odd threads: the step's enlarge stage on
 * several workers). */
typedef struct marker {
    ts_dynamic_tree *tree;
    const int *proxies;
    const ts_aabb *boxes;
    int count, first, stride;
} marker;

static void *mark_proxies(void *context)
{
    const marker *m = context;
    for (int k = m->first; k < m->count; k += m->stride) {
        if (m->first % 2 == 1) {
            ts_tree_enlarge_proxy_shared(m->tree, m->proxies[k], m->boxes[k], m->first);
        } else {
            ts_tree_enlarge_proxy_deferred(m->tree, m->proxies[k], m->boxes[k], true);
        }
    }
    return NULL;
}

/* The deferred marks made by four threads at once (each a quarter of the
 * moved proxies, interleaved, so that their walks meet on shared
 * ancestors) leave, after the refit, the same nodes byte for byte and the
 * same area bookkeeping as the marks made by one thread: the marked set is
 * every ancestor of a moved proxy, whoever marked it, and the first walk
 * to reach a node alone notes the area it owes. The workers noted in the
 * parts' top nodes (ts_tree_refit_marker) are odd ones (those that noted
 * themselves), or none, and the refit clears them. Several rounds, with the rebuilds the
 * refit asks for. Run under ThreadSanitizer in CI (the marks are atomic
 * ORs). */
static void test_shared_marks_same_tree(void **state)
{
    (void)state;
    enum { THREADS = 4, MOVED = 3000 };
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree serial, shared;
    assert_true(ts_tree_init(&serial, &allocator, 0));
    assert_true(ts_tree_init(&shared, &allocator, 0));
    rng r1 = {4711u}, r2 = {4711u};
    scene s1 = scene_make(20000), s2 = scene_make(20000);
    fill_tree(&serial, &s1, &r1, 200.0f);
    fill_tree(&shared, &s2, &r2, 200.0f);
    assert_true(ts_tree_rebuild(&serial, true));
    assert_true(ts_tree_rebuild(&shared, true));
    int *proxies = malloc(MOVED * sizeof(int));
    ts_aabb *boxes = malloc(MOVED * sizeof(ts_aabb));
    bool *picked = calloc((size_t)s1.n, sizeof(bool));
    assert_true(proxies != NULL && boxes != NULL && picked != NULL);
    int rebuilds = 0;
    for (int round = 0; round < 12; ++round) {
        /* distinct proxies, each grown by a random drift */
        memset(picked, 0, (size_t)s1.n * sizeof(bool));
        int count = 0;
        float drift = 0.5f + 0.5f * (float)round;
        while (count < MOVED) {
            int i = (int)(rng_next(&r1) % (uint32_t)s1.n);
            if (picked[i]) {
                continue;
            }
            picked[i] = true;
            ts_vec3 d = {rng_range(&r1, -drift, drift), rng_range(&r1, -drift, drift), rng_range(&r1, -drift, drift)};
            s1.boxes[i] = ts_aabb_union(s1.boxes[i], translate_box(s1.boxes[i], d));
            s2.boxes[i] = s1.boxes[i];
            proxies[count] = s1.proxies[i];
            boxes[count] = s1.boxes[i];
            count += 1;
        }
        for (int k = 0; k < count; ++k) {
            ts_tree_enlarge_proxy_deferred(&serial, proxies[k], boxes[k], false);
        }
        pthread_t threads[THREADS];
        marker markers[THREADS];
        for (int t = 0; t < THREADS; ++t) {
            markers[t] = (marker){&shared, proxies, boxes, count, t, THREADS};
            assert_int_equal(pthread_create(threads + t, NULL, mark_proxies, markers + t), 0);
        }
        for (int t = 0; t < THREADS; ++t) {
            assert_int_equal(pthread_join(threads[t], NULL), 0);
        }
        bool asked = ts_tree_refit_enlarged(&serial);
        int parts = ts_tree_refit_begin(&shared);
        assert_true(parts > 0);
        for (int k = 0; k < parts; ++k) {
            int worker = ts_tree_refit_marker(&shared, k);
            assert_true(worker == -1 || (worker % 2 == 1 && worker < THREADS));
        }
        for (int k = parts - 1; k >= 0; --k) { /* any order */
            ts_tree_refit_part(&shared, k);
        }
        assert_int_equal(asked, ts_tree_refit_end(&shared));
        assert_true(serial.enlarged_area == shared.enlarged_area);
        assert_true(serial.enlarged_built_area == shared.enlarged_built_area);
        assert_memory_equal(serial.nodes, shared.nodes, (size_t)serial.node_capacity * sizeof(ts_tree_node));
        assert_true(ts_tree_validate(&shared));
        if (asked) {
            rebuilds += 1;
            assert_true(ts_tree_rebuild(&serial, false));
            assert_true(ts_tree_rebuild(&shared, false));
            assert_memory_equal(serial.nodes, shared.nodes, (size_t)serial.node_capacity * sizeof(ts_tree_node));
        }
    }
    assert_true(rebuilds > 0);
    free(proxies);
    free(boxes);
    free(picked);
    scene_free(&s1);
    scene_free(&s2);
    ts_tree_destroy(&serial);
    ts_tree_destroy(&shared);
}

/* The worker a shared enlarge notes is what ts_tree_refit_marker reports
 * for every part it marked (workers past 7 as 7), and the refit leaves the
 * nodes byte for byte as after the unshared marks. */
static void test_refit_markers(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    for (int worker = 0; worker < 10; worker += 3) {
        ts_dynamic_tree plain, noted;
        assert_true(ts_tree_init(&plain, &allocator, 0));
        assert_true(ts_tree_init(&noted, &allocator, 0));
        rng r1 = {99u}, r2 = {99u};
        scene s1 = scene_make(20000), s2 = scene_make(20000);
        fill_tree(&plain, &s1, &r1, 200.0f);
        fill_tree(&noted, &s2, &r2, 200.0f);
        assert_true(ts_tree_rebuild(&plain, true));
        assert_true(ts_tree_rebuild(&noted, true));
        for (int i = 0; i < s1.n; i += 7) {
            ts_aabb grown = ts_aabb_enlarge(s1.boxes[i], 0.5f);
            ts_tree_enlarge_proxy_deferred(&plain, s1.proxies[i], grown, false);
            ts_tree_enlarge_proxy_shared(&noted, s2.proxies[i], grown, worker);
        }
        int parts = ts_tree_refit_begin(&noted);
        assert_true(parts > 1);
        for (int k = 0; k < parts; ++k) {
            assert_int_equal(ts_tree_refit_marker(&noted, k), worker < 7 ? worker : 7);
            ts_tree_refit_part(&noted, k);
        }
        bool asked = ts_tree_refit_end(&noted);
        assert_int_equal(asked, ts_tree_refit_enlarged(&plain));
        assert_memory_equal(plain.nodes, noted.nodes, (size_t)plain.node_capacity * sizeof(ts_tree_node));
        scene_free(&s1);
        scene_free(&s2);
        ts_tree_destroy(&plain);
        ts_tree_destroy(&noted);
    }
}

/* The refit in parts (as the step runs it on several workers) gives the
 * same nodes, byte for byte, and the same answer as ts_tree_refit_enlarged,
 * whatever order the parts run in: each part writes only its own subtree
 * and its own area, and the areas are summed in part order. 20,000 proxies,
 * so that the enlarged part reaches the split depth and has parts. */
static void test_parallel_refit_same_tree(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree serial, parts;
    assert_true(ts_tree_init(&serial, &allocator, 0));
    assert_true(ts_tree_init(&parts, &allocator, 0));
    rng r1 = {777u}, r2 = {777u};
    /* The sanitizer jobs (test_short_run) take a quarter of the proxies and
     * of the moves: this test runs on one thread (the parts are refitted in
     * turn), so the sanitizers see the same code paths, 5,000 proxies still
     * split into all the parts, and the same share of moved proxies gives
     * both answers of the refit (the rebuild count is asserted below). */
    int proxies = test_short_run() ? 5000 : 20000;
    int moves = proxies * 3 / 20;
    scene s1 = scene_make(proxies), s2 = scene_make(proxies);
    fill_tree(&serial, &s1, &r1, 200.0f);
    fill_tree(&parts, &s2, &r2, 200.0f);
    assert_true(ts_tree_rebuild(&serial, true));
    assert_true(ts_tree_rebuild(&parts, true));
    int rebuilds = 0;
    for (int round = 0; round < 8; ++round) {
        float drift = round < 4 ? 2.0f : 60.0f; /* small moves keep the shape, large ones stale it */
        enlarge_some(&serial, &s1, &r1, moves, drift);
        enlarge_some(&parts, &s2, &r2, moves, drift);
        bool serial_asks = ts_tree_refit_enlarged(&serial);
        int count = ts_tree_refit_begin(&parts);
        assert_true(count > 1 && count <= TS_TREE_REFIT_PARTS);
        for (int k = count - 1; k >= 0; --k) { /* backwards: another worker's order */
            ts_tree_refit_part(&parts, k);
        }
        bool parts_asks = ts_tree_refit_end(&parts);
        assert_true(serial_asks == parts_asks);
        assert_true(ts_tree_validate(&parts));
        assert_memory_equal(serial.nodes, parts.nodes, (size_t)serial.node_capacity * sizeof(ts_tree_node));
        if (parts_asks) { /* as the step does: rebuild the enlarged part */
            rebuilds += 1;
            assert_true(ts_tree_rebuild(&serial, false));
            assert_true(ts_tree_rebuild(&parts, false));
        }
    }
    assert_true(rebuilds > 0 && rebuilds < 8); /* both answers were exercised */
    assert_pairs_match_brute_force(&parts, &s2);
    scene_free(&s1);
    scene_free(&s2);
    ts_tree_destroy(&serial);
    ts_tree_destroy(&parts);
}

/* The summed area of the enlarged nodes, afresh (what the refit keeps as a running sum). */
static double enlarged_area_now(const ts_dynamic_tree *tree)
{
    double sum = 0.0;
    for (int i = 0; i < tree->node_capacity; ++i) {
        const ts_tree_node *node = tree->nodes + i;
        if ((node->flags & TS_TREE_NODE_ALLOCATED) != 0 && (node->flags & TS_TREE_NODE_ENLARGED) != 0) {
            sum += (double)ts_aabb_area(node->aabb);
        }
    }
    return sum;
}

/* The refit visits only the nodes enlarged since the last refit, yet leaves
 * what a refit of every enlarged node would: after each refit no node is
 * left flagged to refit, every internal node is exactly its children's
 * union (ts_tree_validate checks that of every unflagged node), the root is
 * the union of all proxies, and the running sum of the enlarged nodes' area
 * matches the sum afresh (relative 1e-9: the same float areas summed in
 * double in another order). Proxies move (their new box need not hold the
 * old one, as a body's new fat box), in rounds of none, a few and many,
 * without a rebuild between them unless the refit asks for one. */
static void test_refit_visits_only_new_growth(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    rng r = {2024u};
    scene s = scene_make(5000);
    fill_tree(&tree, &s, &r, 100.0f);
    assert_true(ts_tree_rebuild(&tree, true));
    const int moves[] = {0, 30, 400, 0, 0, 5, 1500, 60, 0, 3000, 10, 0};
    for (int round = 0; round < (int)(sizeof(moves) / sizeof(moves[0])); ++round) {
        for (int k = 0; k < moves[round]; ++k) {
            int i = (int)(rng_next(&r) % (uint32_t)s.n);
            ts_vec3 d = {rng_range(&r, -1.0f, 1.0f), rng_range(&r, -1.0f, 1.0f), rng_range(&r, -1.0f, 1.0f)};
            s.boxes[i] = translate_box(s.boxes[i], d);
            ts_tree_enlarge_proxy(&tree, s.proxies[i], s.boxes[i]);
        }
        bool asked = ts_tree_refit_enlarged(&tree);
        assert_true(ts_tree_validate(&tree));
        for (int i = 0; i < tree.node_capacity; ++i) {
            assert_int_equal(tree.nodes[i].flags & TS_TREE_NODE_REFIT, 0);
        }
        ts_aabb all = s.boxes[0];
        for (int i = 1; i < s.n; ++i) {
            all = ts_aabb_union(all, s.boxes[i]);
        }
        assert_memory_equal(&all, &tree.nodes[tree.root].aabb, sizeof(ts_aabb));
        double fresh = enlarged_area_now(&tree);
        assert_true(fabs(tree.enlarged_area - fresh) <= 1e-9 * fresh);
        if (asked) {
            assert_true(ts_tree_rebuild(&tree, false));
            assert_true(ts_tree_validate(&tree));
            assert_true(tree.enlarged_area == 0.0 && enlarged_area_now(&tree) == 0.0);
        }
    }
    assert_pairs_match_brute_force(&tree, &s);
    scene_free(&s);
    ts_tree_destroy(&tree);
}

/* Refit: after proxies grow in place, every enlarged node shrinks back to
 * its children's union (ts_tree_validate checks that every box holds its
 * children, so every leaf is inside all its ancestors) and every proxy is
 * still found by a query of its own box. A rigid move of every proxy asks
 * for no rebuild (the SAH cost is unchanged, up to float rounding); bodies
 * scattering far from where they were built do ask for one. */
static void test_refit_and_when_to_rebuild(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    rng r = {99u};
    scene s = scene_make(3000);
    fill_tree(&tree, &s, &r, 60.0f);
    assert_true(ts_tree_refit_enlarged(&tree) == false); /* nothing enlarged */
    assert_true(ts_tree_rebuild(&tree, true));           /* the cost is known from here */

    /* Every proxy shifted by the same amount, a few times. */
    for (int step = 0; step < 5; ++step) {
        ts_vec3 d = {0.3f, -0.7f, 0.2f};
        for (int i = 0; i < s.n; ++i) {
            s.boxes[i] = translate_box(s.boxes[i], d);
            ts_tree_enlarge_proxy(&tree, s.proxies[i], s.boxes[i]);
        }
        assert_false(ts_tree_refit_enlarged(&tree));
        assert_true(ts_tree_validate(&tree));
        /* Refitted: the root box is exactly the union of the proxies. */
        ts_aabb all = s.boxes[0];
        for (int i = 1; i < s.n; ++i) {
            all = ts_aabb_union(all, s.boxes[i]);
        }
        assert_memory_equal(&all, &tree.nodes[tree.root].aabb, sizeof(ts_aabb));
        assert_pairs_match_brute_force(&tree, &s); /* every proxy found by the others' queries */
    }

    /* Every proxy thrown to a random place: the shape is stale. */
    bool asked = false;
    for (int step = 0; step < 5 && !asked; ++step) {
        for (int i = 0; i < s.n; ++i) {
            s.boxes[i] = random_box(&r, 60.0f);
            ts_tree_enlarge_proxy(&tree, s.proxies[i], s.boxes[i]);
        }
        asked = ts_tree_refit_enlarged(&tree);
        assert_true(ts_tree_validate(&tree));
        assert_pairs_match_brute_force(&tree, &s);
    }
    assert_true(asked);
    assert_true(ts_tree_rebuild(&tree, false));
    assert_true(ts_tree_validate(&tree));
    assert_pairs_match_brute_force(&tree, &s);
    scene_free(&s);
    ts_tree_destroy(&tree);
}

/* ts_tree_validate itself catches broken trees: a child sticking out of its
 * parent's box, a wrong height, wrong category bits, a broken parent link,
 * a missing enlarged flag, a cycle in the free list. */
static void test_validate_detects_corruption(void **state)
{
    (void)state;
    ts_allocator allocator = ts_default_allocator();
    ts_dynamic_tree tree;
    assert_true(ts_tree_init(&tree, &allocator, 0));
    rng r = {55u};
    scene s = scene_make(100);
    fill_tree(&tree, &s, &r, 10.0f);
    assert_true(ts_tree_validate(&tree));
    int leaf = s.proxies[50];
    int parent = tree.nodes[leaf].parent;
    ts_tree_node saved = tree.nodes[leaf];
    ts_tree_node saved_parent = tree.nodes[parent];

    tree.nodes[leaf].aabb.upper.x = tree.nodes[parent].aabb.upper.x + 1.0f;
    assert_false(ts_tree_validate(&tree));
    tree.nodes[leaf] = saved;

    tree.nodes[parent].height += 1;
    assert_false(ts_tree_validate(&tree));
    tree.nodes[parent] = saved_parent;

    tree.nodes[leaf].category_bits = 2;
    assert_false(ts_tree_validate(&tree));
    tree.nodes[leaf] = saved;

    tree.nodes[leaf].parent = tree.root == parent ? s.proxies[0] : tree.root;
    assert_false(ts_tree_validate(&tree));
    tree.nodes[leaf] = saved;

    assert_int_not_equal(parent, tree.root);
    tree.nodes[parent].flags |= TS_TREE_NODE_ENLARGED; /* its ancestors are not flagged */
    assert_false(ts_tree_validate(&tree));
    tree.nodes[parent] = saved_parent;

    int f = tree.free_list;
    assert_int_not_equal(f, TS_NULL_PROXY);
    int next = tree.nodes[f].next;
    tree.nodes[f].next = f;
    assert_false(ts_tree_validate(&tree));
    tree.nodes[f].next = next;

    assert_true(ts_tree_validate(&tree));
    scene_free(&s);
    ts_tree_destroy(&tree);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aabb_helpers),
        cmocka_unit_test(test_empty_and_single),
        cmocka_unit_test(test_insert_remove_move_validate),
        cmocka_unit_test(test_pairs_match_brute_force),
        cmocka_unit_test(test_random_moves),
        cmocka_unit_test(test_sorted_insertion_height),
        cmocka_unit_test(test_category_mask_filtering),
        cmocka_unit_test(test_node_reuse),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_stackless_query_same_order),
        cmocka_unit_test(test_query_early_stop),
        cmocka_unit_test(test_enlarge_and_partial_rebuild),
        cmocka_unit_test(test_full_rebuild),
        cmocka_unit_test(test_parallel_rebuild_same_tree),
        cmocka_unit_test(test_refit_and_when_to_rebuild),
        cmocka_unit_test(test_refit_visits_only_new_growth),
        cmocka_unit_test(test_parallel_refit_same_tree),
        cmocka_unit_test(test_deferred_enlarge_same_tree),
        cmocka_unit_test(test_rebuild_lays_nodes_in_order),
        cmocka_unit_test(test_shared_marks_same_tree),
        cmocka_unit_test(test_refit_markers),
        cmocka_unit_test(test_validate_detects_corruption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

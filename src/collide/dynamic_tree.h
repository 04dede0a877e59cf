/* Dynamic bounding volume hierarchy of fat AABBs (the broadphase tree).
 *
 * A binary tree whose leaves are proxies (one fat box, category bits and a
 * user id each) and whose internal nodes hold the union of their children.
 * Leaves are inserted next to the sibling that adds the least surface area
 * (a greedy branch-and-bound descent under the surface-area heuristic), and
 * every node on the way back up is refitted and, when it lowers the area,
 * rotated (a child swapped with a grandchild). ts_tree_rebuild rebuilds the
 * whole tree, or only the part above proxies grown by ts_tree_enlarge_proxy,
 * top down with a binned SAH, on one thread or several.
 *
 * Nodes live in one pool addressed by index (a proxy id is its leaf's index),
 * freed nodes go on a free list, and the pool grows through the allocator only
 * in ts_tree_create_proxy. Moving, enlarging and destroying never allocate;
 * queries never allocate and never recurse.
 *
 * Deterministic: the same sequence of calls gives the same nodes, bit for bit,
 * and the same query order. Nothing depends on pointers, time or threads.
 * Not thread safe for writes; any number of threads may query at once while
 * nobody writes. */
#ifndef TS_COLLIDE_DYNAMIC_TREE_H
#define TS_COLLIDE_DYNAMIC_TREE_H

#include "base/aabb.h"
#include "base/core.h"
#include "tessera/types.h"

#include <stdbool.h>
#include <stdint.h>

#define TS_NULL_PROXY (-1)

/* Entries of the fixed traversal stack of a query. A depth-first walk needs at
 * most height + 1 entries, so this covers any tree of height < 1000; a query
 * that would overflow it walks that subtree by parent links instead (same
 * result, same order, no allocation). */
#ifndef TS_TREE_STACK_SIZE
#define TS_TREE_STACK_SIZE 1024 /* (overridable at build time; tests shrink it to exercise the fallback) */
#endif

/* Node flags. */
enum {
    TS_TREE_NODE_ALLOCATED = 1, /* in the tree (not on the free list) */
    TS_TREE_NODE_LEAF = 2,      /* a proxy */
    TS_TREE_NODE_ENLARGED = 4,  /* internal node grown in place by ts_tree_enlarge_proxy; rebuilt by ts_tree_rebuild */
    TS_TREE_NODE_REFIT = 8,     /* enlarged since the last refit: its box may be looser than its children's union */
    /* Marked by ts_tree_enlarge_proxy_deferred: the next refit takes the
     * node's area (unchanged since the last refit or rebuild) out of the
     * area bookkeeping, as the rebuild's area when AREA_BUILT is set too. */
    TS_TREE_NODE_AREA_OWED = 16,
    TS_TREE_NODE_AREA_BUILT = 32,
    /* Who marked the node (ts_tree_enlarge_proxy_shared): bit 8 + worker,
     * the workers past 7 on bit 15. Cleared by the refit; only where a
     * refit's parts run hangs on them, never the tree. */
    TS_TREE_NODE_MARKERS = 0xff00,
};
#define TS_TREE_NODE_MARKER_SHIFT 8

/* 48 bytes. */
typedef struct ts_tree_node {
    ts_aabb aabb;           /* leaf: the fat box; internal: holds both children */
    uint64_t category_bits; /* leaf: the proxy's bits; internal: OR of the children */
    union {
        struct {
            int32_t child1, child2;
        } children;      /* internal nodes */
        int32_t user_id; /* leaves */
    };
    union {
        int32_t parent; /* allocated nodes: TS_NULL_PROXY at the root */
        int32_t next;   /* free nodes: next free node or TS_NULL_PROXY */
    };
    uint16_t height; /* leaf 0, internal 1 + max(children) */
    uint16_t flags;  /* TS_TREE_NODE_* */
} ts_tree_node;

/* Ranges split breadth first by a parallel rebuild: levels 0 .. 5 of a heap
 * (range i splits into 2i + 1 and 2i + 2), so at most 32 ranges are left
 * to build depth first. */
#define TS_TREE_BUILD_LEVELS 5
#define TS_TREE_BUILD_RANGES ((2 << TS_TREE_BUILD_LEVELS) - 1)

/* A refit in parts (ts_tree_refit_begin) splits the enlarged part at this
 * depth: up to 2^TS_TREE_REFIT_LEVELS subtrees refitted independently, and
 * the enlarged nodes above them refitted last. */
#define TS_TREE_REFIT_LEVELS 5
#define TS_TREE_REFIT_PARTS (1 << TS_TREE_REFIT_LEVELS)

/* Items [begin, end) of a rebuild, to hang below `parent` as child `slot`
 * (0: child1, 1: child2; parent TS_NULL_PROXY: the root); `node` is the
 * internal node the split made, or TS_NULL_PROXY. */
typedef struct ts_tree_build_range {
    int32_t begin, end;
    int32_t parent, slot;
    int32_t node;
} ts_tree_build_range;

typedef struct ts_dynamic_tree {
    ts_tree_node *nodes;
    int32_t root;          /* TS_NULL_PROXY when empty */
    int32_t node_count;    /* allocated nodes (leaves + internal) */
    int32_t node_capacity; /* nodes in the pool */
    int32_t free_list;     /* first free node or TS_NULL_PROXY */
    int32_t proxy_count;   /* leaves */
    const ts_allocator *allocator; /* must outlive the tree */

    /* Scratch of the rebuild (dynamic_tree_build.c), kept between calls so
     * that a rebuild each step allocates only when the proxy count grows. */
    int32_t *rebuild_items;   /* leaves and kept subtrees to place */
    ts_aabb *rebuild_boxes;   /* their boxes */
    ts_vec3 *rebuild_centers; /* their box centres */
    int32_t *rebuild_nodes;   /* the freed internal nodes, reused by the build */
    int32_t *rebuild_order;   /* nodes in the order made, per range, for the refit */
    int32_t rebuild_capacity;
    int32_t rebuild_levels;   /* levels split breadth first (ts_tree_rebuild_split) */
    /* The SAH cost bookkeeping of ts_tree_refit_enlarged (dynamic_tree_build.c). */
    double built_area;          /* summed internal area after the last rebuild */
    double built_cost;          /* built_area over the root's area then; 0: unknown (changed since) */
    double enlarged_built_area; /* the part of built_area that enlarged nodes had when first enlarged */
    double enlarged_area;       /* the enlarged nodes' summed area now, less that of those to refit */
    ts_tree_build_range rebuild_ranges[TS_TREE_BUILD_RANGES];
    /* The refit in parts: the enlarged nodes above the split depth (breadth
     * first), the subtree roots at it, and each subtree's summed area. */
    int32_t refit_top[TS_TREE_REFIT_PARTS - 1];
    int32_t refit_roots[TS_TREE_REFIT_PARTS];
    double refit_areas[TS_TREE_REFIT_PARTS];       /* refitted less taken-out enlarged area */
    double refit_built_areas[TS_TREE_REFIT_PARTS]; /* taken-out built area */
    int refit_top_count;
    int refit_root_count;
} ts_dynamic_tree;

/* Returns false (and leaves *tree empty, safe to destroy) when the allocator
 * fails. initial_capacity is a proxy-count hint (>= 0). */
bool ts_tree_init(ts_dynamic_tree *tree, const ts_allocator *allocator, int initial_capacity);
void ts_tree_destroy(ts_dynamic_tree *tree);

/* Adds a leaf; returns its proxy id, or TS_NULL_PROXY when the pool had to
 * grow and the allocator failed (the tree is then unchanged). */
int ts_tree_create_proxy(ts_dynamic_tree *tree, ts_aabb fat_aabb, uint64_t category_bits, int32_t user_id);
void ts_tree_destroy_proxy(ts_dynamic_tree *tree, int proxy);

/* Removes the leaf and inserts it again with a new box (never allocates). */
void ts_tree_move_proxy(ts_dynamic_tree *tree, int proxy, ts_aabb fat_aabb);

/* Sets the leaf's box and grows its ancestors in place, marking them enlarged
 * and to refit (TS_TREE_NODE_REFIT, up to the first one already marked);
 * O(depth) and cheap, but the tree's quality decays until ts_tree_rebuild(tree,
 * false) re-places the enlarged part (Box2D v3's per-step scheme). */
void ts_tree_enlarge_proxy(ts_dynamic_tree *tree, int proxy, ts_aabb fat_aabb);

/* The same marks, without growing the ancestors: the walk stops at the
 * first ancestor already marked to refit, so many proxies enlarged at once
 * cost O(marked nodes) instead of O(proxies x depth). The tree is not fit
 * for queries, or for any other change, until the next refit
 * (ts_tree_refit_begin .. _end, or ts_tree_refit_enlarged), which then
 * makes it as ts_tree_enlarge_proxy would have (a refit recomputes every
 * marked node from its children; the area bookkeeping may differ in its
 * last bits, being summed in another order). The step enlarges its moved
 * proxies so and refits right after.
 *
 * With shared, several threads may mark distinct proxies at once: the
 * marks are atomic ORs, the node that a walk finds unmarked is that walk's
 * alone, and the marked set (every ancestor of a marked proxy) does not
 * depend on who marked what. */
void ts_tree_enlarge_proxy_deferred(ts_dynamic_tree *tree, int proxy, ts_aabb fat_aabb, bool shared);

/* ts_tree_enlarge_proxy_deferred with shared, by worker `worker` (>= 0),
 * who is noted in the nodes its walk marks first (TS_TREE_NODE_MARKERS),
 * for ts_tree_refit_marker. */
void ts_tree_enlarge_proxy_shared(ts_dynamic_tree *tree, int proxy, ts_aabb fat_aabb, int worker);

/* Rebuilds top down with a binned SAH: every internal node when full_build,
 * otherwise only the enlarged nodes (the subtrees below them that were not
 * enlarged are kept whole). Returns false when scratch memory could not be
 * allocated; the tree is then unchanged. */
bool ts_tree_rebuild(ts_dynamic_tree *tree, bool full_build);

/* The same rebuild in parts that may run on several threads (ts_tree_rebuild
 * is these on one thread; the tree comes out the same node for node):
 *
 *   levels = ts_tree_rebuild_begin(tree, full_build)         one thread
 *   for level in [0, levels):                                 in order
 *       ts_tree_rebuild_split(tree, level, k), k in [0, 2^level)    any threads
 *   ts_tree_rebuild_finish(tree, k), k in [0, 2^levels)              any threads
 *   ts_tree_rebuild_end(tree)                                 one thread
 *
 * begin returns -1 when nothing needs rebuilding (then call nothing else),
 * -2 when scratch memory could not be allocated (tree unchanged). Queries
 * and other writes must wait for ts_tree_rebuild_end. */
int ts_tree_rebuild_begin(ts_dynamic_tree *tree, bool full_build);
void ts_tree_rebuild_split(ts_dynamic_tree *tree, int level, int k);
void ts_tree_rebuild_finish(ts_dynamic_tree *tree, int k);
void ts_tree_rebuild_end(ts_dynamic_tree *tree);

/* Shrinks every enlarged node to its children's union, bottom up, keeping
 * the tree's shape and the enlarged flags (so that a later partial rebuild
 * still re-places everything that grew). Only the nodes enlarged since the
 * last refit (TS_TREE_NODE_REFIT) are visited: the others hold their
 * children's union already. O(nodes enlarged since then). Returns true
 * when the enlarged part has drifted from the shape a rebuild would give
 * (dynamic_tree_build.c says how that is measured): then call
 * ts_tree_rebuild(tree, false) or its parallel parts. */
bool ts_tree_refit_enlarged(ts_dynamic_tree *tree);

/* The same refit in parts that may run on several threads (ts_tree_refit_enlarged
 * is these on one thread; the nodes and the answer come out the same):
 *
 *   parts = ts_tree_refit_begin(tree)                 one thread
 *   ts_tree_refit_part(tree, k), k in [0, parts)       any threads
 *   rebuild = ts_tree_refit_end(tree)                  one thread
 *
 * begin returns -1 when nothing is enlarged (then call nothing else and no
 * rebuild is needed); parts may be 0 (a small enlarged part: end does it all). */
int ts_tree_refit_begin(ts_dynamic_tree *tree);
void ts_tree_refit_part(ts_dynamic_tree *tree, int k);
bool ts_tree_refit_end(ts_dynamic_tree *tree);

/* Between ts_tree_refit_begin and the parts: the lowest worker whose
 * shared enlarge (ts_tree_enlarge_proxy_shared) marked part k's top node,
 * or -1 (marked otherwise). Running each part on that worker keeps its
 * nodes in the cache that marked them. */
int ts_tree_refit_marker(const ts_dynamic_tree *tree, int k);

/* Makes the rebuild's scratch room for the current proxies, so that a later
 * rebuild with no more proxies allocates nothing; false when out of memory. */
bool ts_tree_reserve_rebuild(ts_dynamic_tree *tree);

/* Frees the rebuild scratch (ts_tree_destroy calls it). */
void ts_tree_free_rebuild_scratch(ts_dynamic_tree *tree);

/* Asks for a leaf's node (what ts_tree_enlarge_proxy reads first), and for
 * its parent once the leaf has arrived: for a caller that walks many
 * proxies and knows which come next. */
static inline void ts_tree_prefetch_proxy(const ts_dynamic_tree *tree, int proxy) { TS_PREFETCH(tree->nodes + proxy); }
static inline void ts_tree_prefetch_parent(const ts_dynamic_tree *tree, int proxy)
{
    TS_PREFETCH(tree->nodes + tree->nodes[proxy].parent);
}

void ts_tree_set_category_bits(ts_dynamic_tree *tree, int proxy, uint64_t category_bits);
uint64_t ts_tree_get_category_bits(const ts_dynamic_tree *tree, int proxy);
ts_aabb ts_tree_get_fat_aabb(const ts_dynamic_tree *tree, int proxy);
int32_t ts_tree_get_user_id(const ts_dynamic_tree *tree, int proxy);
int ts_tree_proxy_count(const ts_dynamic_tree *tree);

/* Called for each leaf whose box overlaps the query box and whose category
 * bits share a bit with the mask; return false to stop the query. */
typedef bool ts_tree_query_fn(int proxy, int32_t user_id, void *context);

/* Depth-first, child1 before child2: the order depends only on the tree. */
void ts_tree_query(const ts_dynamic_tree *tree, ts_aabb aabb, uint64_t mask_bits, ts_tree_query_fn *fn,
                   void *context);

/* The same query walked by parent links without a stack (what ts_tree_query
 * falls back to for subtrees deeper than its stack). Same leaves, same order. */
void ts_tree_query_stackless(const ts_dynamic_tree *tree, ts_aabb aabb, uint64_t mask_bits, ts_tree_query_fn *fn,
                             void *context);

/* Height of the root (0 for an empty tree or a single leaf). */
int ts_tree_height(const ts_dynamic_tree *tree);

/* Sum of the internal nodes' areas over the root's area (quality: lower is better). */
float ts_tree_area_ratio(const ts_dynamic_tree *tree);

/* Checks every invariant (links, heights, boxes hold children, category bits,
 * enlarged flags, counts, free list) without asserting; for tests. */
bool ts_tree_validate(const ts_dynamic_tree *tree);

#endif

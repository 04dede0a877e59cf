/* Rebuilding a dynamic tree top down with a binned SAH (see dynamic_tree.h),
 * in parts that several threads can share.
 *
 * What is rebuilt: every internal node on a full build, else the nodes that
 * ts_tree_enlarge_proxy grew (an enlarged node's ancestors are all enlarged,
 * so they form one subtree at the root). Everything hanging below that part
 * (leaves, and subtrees nobody enlarged) becomes an item of the build.
 *
 * Nodes: a build over n items needs n - 1 internal nodes, exactly the number
 * of nodes it takes apart, so it reuses them (rebuild_nodes) and never
 * touches the free list. A range of items [b, e) owns the reused nodes
 * [b, e - 1): when it splits at m, its left part [b, m) owns [b, m - 1), its
 * right part [m, e) owns [m, e - 1), and the node it makes is number m - 1.
 * So which node goes where depends only on the items, never on which thread
 * built which range or in what order: the tree is the same node for node on
 * one thread or many.
 *
 * Split (partition_items): the cheapest of 16 bins (fewer for fewer items)
 * of item centres on each of the three axes, cost = area(left) * count(left) + area(right) *
 * count(right) (the surface-area heuristic; the parent's area is common to
 * every candidate and drops out). When every centre coincides, halve.
 *
 * Parallel shape: the first levels split breadth first (a range's split is
 * O(its items), and the ranges of one level are independent), then each of
 * the up to 2^TS_TREE_BUILD_LEVELS ranges left is built depth first on its
 * own, and the nodes of the breadth-first levels are refitted last. */
#include "collide/dynamic_tree.h"

#include "base/alloc.h"
#include "base/math3.h"

#include <assert.h>
#include <float.h>
#include <string.h>

#define TS_TREE_BINS 16
#define TS_TREE_BUILD_STACK 64

/* A range this small is built depth first even on a breadth-first level:
 * splitting it further in parallel would not pay for the stage. */
#define TS_TREE_SPLIT_MIN 64

/* Items per range left after the breadth-first levels (at least). */
#define TS_TREE_ITEMS_PER_RANGE 512

static inline bool is_leaf(const ts_tree_node *node) { return (node->flags & TS_TREE_NODE_LEAF) != 0; }

static inline uint16_t height_of(int h)
{
    assert(h <= UINT16_MAX);
    return (uint16_t)h;
}

/* ---- scratch ---- */

static void free_scratch(const ts_allocator *allocator, int32_t *items, ts_aabb *boxes, ts_vec3 *centers,
                         int32_t *nodes, int32_t *order, int capacity)
{
    ts_free(allocator, items, (size_t)capacity * sizeof(int32_t));
    ts_free(allocator, boxes, (size_t)capacity * sizeof(ts_aabb));
    ts_free(allocator, centers, (size_t)capacity * sizeof(ts_vec3));
    ts_free(allocator, nodes, (size_t)capacity * sizeof(int32_t));
    ts_free(allocator, order, (size_t)capacity * sizeof(int32_t));
}

void ts_tree_free_rebuild_scratch(ts_dynamic_tree *tree)
{
    free_scratch(tree->allocator, tree->rebuild_items, tree->rebuild_boxes, tree->rebuild_centers, tree->rebuild_nodes,
                 tree->rebuild_order, tree->rebuild_capacity);
    tree->rebuild_items = NULL;
    tree->rebuild_boxes = NULL;
    tree->rebuild_centers = NULL;
    tree->rebuild_nodes = NULL;
    tree->rebuild_order = NULL;
    tree->rebuild_capacity = 0;
}

bool ts_tree_reserve_rebuild(ts_dynamic_tree *tree)
{
    int count = tree->proxy_count;
    if (count <= tree->rebuild_capacity) {
        return true;
    }
    const ts_allocator *allocator = tree->allocator;
    int capacity = count + count / 2;
    if (capacity < count) {
        capacity = count;
    }
    int32_t *items = ts_alloc(allocator, (size_t)capacity * sizeof(int32_t));
    ts_aabb *boxes = ts_alloc(allocator, (size_t)capacity * sizeof(ts_aabb));
    ts_vec3 *centers = ts_alloc(allocator, (size_t)capacity * sizeof(ts_vec3));
    int32_t *nodes = ts_alloc(allocator, (size_t)capacity * sizeof(int32_t));
    int32_t *order = ts_alloc(allocator, (size_t)capacity * sizeof(int32_t));
    if (items == NULL || boxes == NULL || centers == NULL || nodes == NULL || order == NULL) {
        free_scratch(allocator, items, boxes, centers, nodes, order, capacity);
        return false;
    }
    ts_tree_free_rebuild_scratch(tree);
    tree->rebuild_items = items;
    tree->rebuild_boxes = boxes;
    tree->rebuild_centers = centers;
    tree->rebuild_nodes = nodes;
    tree->rebuild_order = order;
    tree->rebuild_capacity = capacity;
    return true;
}

/* Sorts count node indices ascending: a radix sort on bytes (indices are
 * >= 0), through temp, skipping the bytes all of them share. */
static void sort_node_indices(int32_t *keys, int32_t *temp, int count)
{
    int32_t *from = keys;
    int32_t *to = temp;
    for (int shift = 0; shift < 32; shift += 8) {
        int32_t start[256] = {0};
        for (int i = 0; i < count; ++i) {
            start[((uint32_t)from[i] >> shift) & 255u] += 1;
        }
        if (count == 0 || start[((uint32_t)from[0] >> shift) & 255u] == count) {
            continue; /* one bucket: this byte leaves the order as it is */
        }
        int32_t sum = 0;
        for (int b = 0; b < 256; ++b) {
            int32_t n = start[b];
            start[b] = sum;
            sum += n;
        }
        for (int i = 0; i < count; ++i) {
            to[start[((uint32_t)from[i] >> shift) & 255u]++] = from[i];
        }
        int32_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != keys) {
        memcpy(keys, from, (size_t)count * sizeof(int32_t));
    }
}

/* ---- the split ---- */

/* Bin of a centre coordinate; the same arithmetic when binning and partitioning. */
static inline int bin_of(float c, float lo, float scale, int bins)
{
    float f = (c - lo) * scale;
    if (f >= (float)(bins - 1)) {
        return bins - 1;
    }
    return f > 0.0f ? (int)f : 0;
}

/* Reorders items[begin, end) (with their boxes and centres) into two
 * non-empty groups by the cheapest binned SAH split; returns where the second
 * group starts. One pass bins every item on all three axes; the boxes are a
 * copy in item order, so the pass reads memory in order. */
static int partition_items(int32_t *items, ts_aabb *boxes, ts_vec3 *centers, int begin, int end)
{
    int count = end - begin;
    if (count == 2) {
        return begin + 1; /* either way the same two children */
    }
    /* Fewer bins for a few items: as good a split, much less work per call
     * (most calls of a build are near the leaves). */
    const int bins = count < TS_TREE_BINS ? count : TS_TREE_BINS;
    ts_vec3 cmin = centers[begin];
    ts_vec3 cmax = centers[begin];
    for (int i = begin + 1; i < end; ++i) {
        cmin = ts_min3(cmin, centers[i]);
        cmax = ts_max3(cmax, centers[i]);
    }

    float lo[3], scale[3];
    bool usable[3];
    for (int axis = 0; axis < 3; ++axis) {
        lo[axis] = ts_component(cmin, axis);
        float extent = ts_component(cmax, axis) - lo[axis];
        scale[axis] = extent > 0.0f ? (float)bins / extent : 0.0f;
        usable[axis] = extent > 0.0f && ts_is_finite(scale[axis]);
        if (!usable[axis]) {
            scale[axis] = 0.0f; /* every item lands in bin 0; the axis is skipped below */
        }
    }

    /* Empty bins hold the inverted box, which a union replaces exactly. */
    const ts_aabb empty = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    ts_aabb bin_box[3][TS_TREE_BINS];
    int bin_count[3][TS_TREE_BINS];
    for (int axis = 0; axis < 3; ++axis) {
        for (int b = 0; b < bins; ++b) {
            bin_box[axis][b] = empty;
            bin_count[axis][b] = 0;
        }
    }
    for (int i = begin; i < end; ++i) {
        ts_aabb box = boxes[i];
        ts_vec3 c = centers[i];
        int bx = bin_of(c.x, lo[0], scale[0], bins);
        int by = bin_of(c.y, lo[1], scale[1], bins);
        int bz = bin_of(c.z, lo[2], scale[2], bins);
        bin_box[0][bx] = ts_aabb_union(bin_box[0][bx], box);
        bin_box[1][by] = ts_aabb_union(bin_box[1][by], box);
        bin_box[2][bz] = ts_aabb_union(bin_box[2][bz], box);
        bin_count[0][bx] += 1;
        bin_count[1][by] += 1;
        bin_count[2][bz] += 1;
    }

    float best_cost = FLT_MAX;
    int best_axis = -1;
    int best_split = 0;
    for (int axis = 0; axis < 3; ++axis) {
        if (!usable[axis]) {
            continue;
        }
        const ts_aabb *bb = bin_box[axis];
        const int *bc = bin_count[axis];
        /* right_cost[s]: area * count of bins s.. (split s puts bins < s left). */
        float right_cost[TS_TREE_BINS];
        int right_count[TS_TREE_BINS];
        ts_aabb acc = empty;
        int n = 0;
        for (int s = bins - 1; s >= 1; --s) {
            acc = ts_aabb_union(acc, bb[s]);
            n += bc[s];
            right_count[s] = n;
            right_cost[s] = n > 0 ? ts_aabb_area(acc) * (float)n : 0.0f;
        }
        acc = empty;
        n = 0;
        for (int s = 1; s < bins; ++s) {
            acc = ts_aabb_union(acc, bb[s - 1]);
            n += bc[s - 1];
            if (n == 0 || right_count[s] == 0) {
                continue;
            }
            float cost = ts_aabb_area(acc) * (float)n + right_cost[s];
            if (cost < best_cost) {
                best_cost = cost;
                best_axis = axis;
                best_split = s;
            }
        }
    }

    int half = begin + count / 2;
    if (best_axis < 0) {
        return half; /* every centre is the same point */
    }

    float best_lo = lo[best_axis], best_scale = scale[best_axis];
    int i = begin;
    int j = end - 1;
    while (i <= j) {
        if (bin_of(ts_component(centers[i], best_axis), best_lo, best_scale, bins) < best_split) {
            ++i;
        } else {
            int32_t t = items[i];
            items[i] = items[j];
            items[j] = t;
            ts_aabb box = boxes[i];
            boxes[i] = boxes[j];
            boxes[j] = box;
            ts_vec3 c = centers[i];
            centers[i] = centers[j];
            centers[j] = c;
            --j;
        }
    }
    return (i == begin || i == end) ? half : i;
}

/* ---- building ranges ---- */

/* Hangs node below parent as child `slot` (or makes it the root). */
static void attach(ts_dynamic_tree *tree, int node, int parent, int slot)
{
    ts_tree_node *nodes = tree->nodes;
    nodes[node].parent = parent;
    if (parent == TS_NULL_PROXY) {
        tree->root = node;
    } else if (slot == 0) {
        nodes[parent].children.child1 = node;
    } else {
        nodes[parent].children.child2 = node;
    }
}

static void refit(ts_tree_node *nodes, int index)
{
    ts_tree_node *node = nodes + index;
    const ts_tree_node *c1 = nodes + node->children.child1;
    const ts_tree_node *c2 = nodes + node->children.child2;
    node->aabb = ts_aabb_union(c1->aabb, c2->aabb);
    node->category_bits = c1->category_bits | c2->category_bits;
    node->height = height_of(1 + (c1->height > c2->height ? c1->height : c2->height));
    node->flags &= (uint16_t)~(TS_TREE_NODE_REFIT | TS_TREE_NODE_MARKERS);
}

/* Splits range r (of two or more items) once: makes its node, hangs it in
 * place and returns it; *mid is where the right part starts. */
static int split_range(ts_dynamic_tree *tree, ts_tree_build_range r, int *mid)
{
    *mid = partition_items(tree->rebuild_items, tree->rebuild_boxes, tree->rebuild_centers, r.begin, r.end);
    int node = tree->rebuild_nodes[*mid - 1];
    ts_tree_node *n = tree->nodes + node;
    n->flags = TS_TREE_NODE_ALLOCATED; /* internal, no longer enlarged */
    attach(tree, node, r.parent, r.slot);
    return node;
}

/* Builds range r whole, depth first, and refits what it made. Writes only
 * r's items, centres, nodes and order entries, and r's link into its parent. */
static void build_range(ts_dynamic_tree *tree, ts_tree_build_range r)
{
    if (r.end - r.begin <= 0) {
        return;
    }
    int32_t *order = tree->rebuild_order + r.begin;
    int made = 0;

    /* The larger part is pushed first and the smaller built next, so the stack
     * holds at most one pending range per halving: <= log2(count) + 2 entries. */
    ts_tree_build_range stack[TS_TREE_BUILD_STACK];
    int top = 0;
    stack[top++] = r;
    while (top > 0) {
        ts_tree_build_range q = stack[--top];
        if (q.end - q.begin == 1) {
            attach(tree, tree->rebuild_items[q.begin], q.parent, q.slot);
            continue;
        }
        int mid;
        int node = split_range(tree, q, &mid);
        order[made++] = node;
        ts_tree_build_range left = {q.begin, mid, node, 0, TS_NULL_PROXY};
        ts_tree_build_range right = {mid, q.end, node, 1, TS_NULL_PROXY};
        assert(top + 2 <= TS_TREE_BUILD_STACK);
        if (mid - q.begin >= q.end - mid) {
            stack[top++] = left;
            stack[top++] = right;
        } else {
            stack[top++] = right;
            stack[top++] = left;
        }
    }
    /* A node was made before its children: refit in reverse order. */
    for (int i = made - 1; i >= 0; --i) {
        refit(tree->nodes, order[i]);
    }
}

/* ---- refit ---- */

/* Refit (no rebuild) keeps the tree's shape and shrinks every enlarged node
 * back to the union of its children: exact for bodies that move together
 * (a falling crowd), and O(enlarged nodes) instead of O(n log n). What a
 * refit cannot fix is the shape going stale as bodies move relative to each
 * other. The measure of that is the SAH cost itself, the summed area of the
 * internal nodes over the root's area (what a query expects to visit; the
 * same for a tree that only moved rigidly). The rebuild leaves that sum;
 * each refit updates it as
 *
 *   sum = sum at the rebuild - (those nodes' areas when first enlarged,
 *         summed by ts_tree_enlarge_proxy) + (their areas now)
 *
 * and asks for a rebuild when the cost has grown by TS_TREE_REFIT_SLACK
 * (or is unknown: other calls changed the tree since).
 *
 * Enlarged nodes stay enlarged until the rebuild, but only those enlarged
 * since the last refit (flagged TS_TREE_NODE_REFIT, a subtree at the root
 * too) can be looser than their children's union: the others were refitted
 * and nothing below them changed since. So the refit visits those alone,
 * and the third term, the enlarged nodes' area now, is kept as a running
 * sum (enlarged_area): ts_tree_enlarge_proxy takes out a node's area when
 * it first flags it (the deferred enlarge leaves that to the refit, which
 * finds the node's box unchanged), the refit adds the node's new area. A
 * swinging crowd whose tree never drifts enough to be rebuilt then pays for
 * the proxies it moved this step, not for every node it ever moved. */
#define TS_TREE_REFIT_SLACK 1.15

static inline bool needs_refit(const ts_tree_node *node)
{
    return !is_leaf(node) && (node->flags & TS_TREE_NODE_REFIT) != 0;
}

/* What a refit adds to the area bookkeeping: the refitted nodes' areas,
 * less the areas that nodes marked by the deferred enlarge owe (taken out
 * of the enlarged area, or of the rebuild's: built). */
typedef struct refit_sums {
    double enlarged;
    double built;
} refit_sums;

/* Refits a marked node, first settling the area it owes (its box is still
 * the one of the last refit or rebuild). */
TS_FORCE_INLINE void refit_marked(ts_tree_node *nodes, int index, refit_sums *sums)
{
    ts_tree_node *node = nodes + index;
    uint16_t flags = node->flags;
    if ((flags & TS_TREE_NODE_AREA_OWED) != 0) {
        double owed = (double)ts_aabb_area(node->aabb);
        if ((flags & TS_TREE_NODE_AREA_BUILT) != 0) {
            sums->built += owed;
        } else {
            sums->enlarged -= owed;
        }
        node->flags = (uint16_t)(flags & ~(TS_TREE_NODE_AREA_OWED | TS_TREE_NODE_AREA_BUILT));
    }
    refit(nodes, index);
    sums->enlarged += (double)ts_aabb_area(node->aabb);
}

/* Refits the flagged nodes of the subtree at `top` (a flagged internal
 * node), children first, by a post-order walk along parent links (no stack):
 * a node is refitted when the walk comes back up from its second child. */
static refit_sums refit_subtree(ts_tree_node *nodes, int top)
{
    refit_sums sums = {0.0, 0.0};
    int index = top;
    for (;;) {
        if (needs_refit(nodes + index)) {
            /* the walk reaches child2 after child1's subtree: ask for it now */
            TS_PREFETCH(nodes + nodes[index].children.child2);
            index = nodes[index].children.child1;
            continue;
        }
        for (;;) {
            if (index == top) {
                return sums;
            }
            int parent = nodes[index].parent;
            if (nodes[parent].children.child1 == index) {
                index = nodes[parent].children.child2;
                break;
            }
            index = parent;
            refit_marked(nodes, index, &sums);
        }
    }
}

/* Breadth first through the flagged nodes down to TS_TREE_REFIT_LEVELS:
 * those above it go to refit_top (parents before children), those at it
 * become the parts. Depends only on the tree. */
int ts_tree_refit_begin(ts_dynamic_tree *tree)
{
    int root = tree->root;
    tree->refit_top_count = 0;
    tree->refit_root_count = 0;
    if (root == TS_NULL_PROXY || is_leaf(tree->nodes + root) ||
        (tree->nodes[root].flags & TS_TREE_NODE_ENLARGED) == 0) {
        return -1;
    }
    if (!needs_refit(tree->nodes + root)) {
        return 0; /* nothing grew since the last refit: only the cost is asked */
    }
    const ts_tree_node *nodes = tree->nodes;
    int32_t *top = tree->refit_top;
    int count = 0;
    int level_begin = 0;
    top[count++] = root;
    for (int level = 1; level <= TS_TREE_REFIT_LEVELS; ++level) {
        int level_end = count;
        for (int i = level_begin; i < level_end; ++i) {
            const int32_t children[2] = {nodes[top[i]].children.child1, nodes[top[i]].children.child2};
            for (int c = 0; c < 2; ++c) {
                if (!needs_refit(nodes + children[c])) {
                    continue;
                }
                if (level < TS_TREE_REFIT_LEVELS) {
                    top[count++] = children[c];
                } else {
                    tree->refit_roots[tree->refit_root_count++] = children[c];
                }
            }
        }
        level_begin = level_end;
    }
    tree->refit_top_count = count;
    return tree->refit_root_count;
}

void ts_tree_refit_part(ts_dynamic_tree *tree, int k)
{
    assert(k < tree->refit_root_count);
    refit_sums sums = refit_subtree(tree->nodes, tree->refit_roots[k]);
    tree->refit_areas[k] = sums.enlarged;
    tree->refit_built_areas[k] = sums.built;
}

bool ts_tree_refit_end(ts_dynamic_tree *tree)
{
    ts_tree_node *nodes = tree->nodes;
    refit_sums sums = {tree->enlarged_area, tree->enlarged_built_area};
    for (int k = 0; k < tree->refit_root_count; ++k) {
        sums.enlarged += tree->refit_areas[k];
        sums.built += tree->refit_built_areas[k];
    }
    /* The top nodes children first (breadth-first order backwards). */
    for (int i = tree->refit_top_count - 1; i >= 0; --i) {
        refit_marked(nodes, tree->refit_top[i], &sums);
    }
    tree->enlarged_area = sums.enlarged;
    tree->enlarged_built_area = sums.built;
    if (!(tree->built_cost > 0.0)) {
        return true;
    }
    double sum = tree->built_area - tree->enlarged_built_area + tree->enlarged_area;
    double cost = sum / (double)ts_aabb_area(nodes[tree->root].aabb);
    return !(cost <= TS_TREE_REFIT_SLACK * tree->built_cost);
}

int ts_tree_refit_marker(const ts_dynamic_tree *tree, int k)
{
    assert(k < tree->refit_root_count);
    uint32_t markers = (uint32_t)(tree->nodes[tree->refit_roots[k]].flags & TS_TREE_NODE_MARKERS);
    return markers != 0 ? ts_ctz32(markers) - TS_TREE_NODE_MARKER_SHIFT : -1;
}

bool ts_tree_refit_enlarged(ts_dynamic_tree *tree)
{
    int parts = ts_tree_refit_begin(tree);
    if (parts < 0) {
        return false;
    }
    for (int k = 0; k < parts; ++k) {
        ts_tree_refit_part(tree, k);
    }
    return ts_tree_refit_end(tree);
}

/* The SAH cost of the whole tree, after a rebuild (one pass over the pool). */
static void measure_built_cost(ts_dynamic_tree *tree)
{
    const ts_tree_node *nodes = tree->nodes;
    double sum = 0.0;
    for (int i = 0; i < tree->node_capacity; ++i) {
        if (nodes[i].flags == TS_TREE_NODE_ALLOCATED) { /* internal, not enlarged */
            sum += (double)ts_aabb_area(nodes[i].aabb);
        }
    }
    double root_area = tree->root == TS_NULL_PROXY ? 0.0 : (double)ts_aabb_area(nodes[tree->root].aabb);
    tree->built_area = sum;
    tree->enlarged_built_area = 0.0;
    tree->enlarged_area = 0.0; /* no node is enlarged after a rebuild */
    tree->built_cost = root_area > 0.0 ? sum / root_area : 0.0;
}

/* ---- the rebuild in parts ---- */

int ts_tree_rebuild_begin(ts_dynamic_tree *tree, bool full_build)
{
    int root = tree->root;
    if (root == TS_NULL_PROXY || is_leaf(tree->nodes + root)) {
        return -1;
    }
    if (!full_build && (tree->nodes[root].flags & TS_TREE_NODE_ENLARGED) == 0) {
        return -1;
    }
    if (!ts_tree_reserve_rebuild(tree)) {
        return -2;
    }

    const ts_tree_node *nodes = tree->nodes;
    int32_t *items = tree->rebuild_items;
    ts_aabb *boxes = tree->rebuild_boxes;
    ts_vec3 *centers = tree->rebuild_centers;
    int32_t *reused = tree->rebuild_nodes;
    int item_count = 0;
    int reused_count = 0;

    /* Walk the part to rebuild by parent links (no stack): its internal nodes
     * are taken apart for reuse, and everything hanging below becomes an item. */
    int index = root;
    for (;;) {
        const ts_tree_node *node = nodes + index;
        if (!is_leaf(node) && (full_build || (node->flags & TS_TREE_NODE_ENLARGED) != 0)) {
            reused[reused_count++] = index;
            index = node->children.child1;
            continue;
        }
        items[item_count] = index;
        boxes[item_count] = node->aabb;
        centers[item_count] = ts_aabb_center(node->aabb);
        item_count += 1;
        for (;;) {
            if (index == root) {
                goto collected;
            }
            int parent = nodes[index].parent;
            if (nodes[parent].children.child1 == index) {
                index = nodes[parent].children.child2;
                break;
            }
            index = parent;
        }
    }
collected:
    assert(reused_count == item_count - 1);
    /* The range rule above hands the nodes out in item order, so ascending
     * indices give an in-order layout: a subtree's nodes lie together in
     * the pool, and the refits that walk it hit far fewer cold lines
     * (free_fall: the refit and the enlarge a third faster). rebuild_order
     * is free until the build. */
    sort_node_indices(reused, tree->rebuild_order, reused_count);

    /* Breadth-first levels while the ranges left keep TS_TREE_ITEMS_PER_RANGE items each. */
    int levels = 0;
    while (levels < TS_TREE_BUILD_LEVELS && (item_count >> (levels + 1)) >= TS_TREE_ITEMS_PER_RANGE) {
        levels += 1;
    }
    tree->rebuild_levels = levels;
    tree->rebuild_ranges[0] = (ts_tree_build_range){0, item_count, TS_NULL_PROXY, 0, TS_NULL_PROXY};
    return levels;
}

void ts_tree_rebuild_split(ts_dynamic_tree *tree, int level, int k)
{
    assert(level < tree->rebuild_levels && k < (1 << level));
    int i = (1 << level) - 1 + k;
    ts_tree_build_range *r = tree->rebuild_ranges + i;
    ts_tree_build_range *left = tree->rebuild_ranges + 2 * i + 1;
    ts_tree_build_range *right = tree->rebuild_ranges + 2 * i + 2;
    r->node = TS_NULL_PROXY;
    /* Empty children unless the range splits below. */
    *left = (ts_tree_build_range){r->begin, r->begin, TS_NULL_PROXY, 0, TS_NULL_PROXY};
    *right = *left;
    if (r->end - r->begin < TS_TREE_SPLIT_MIN) {
        build_range(tree, *r);
        return;
    }
    int mid;
    r->node = split_range(tree, *r, &mid);
    *left = (ts_tree_build_range){r->begin, mid, r->node, 0, TS_NULL_PROXY};
    *right = (ts_tree_build_range){mid, r->end, r->node, 1, TS_NULL_PROXY};
}

void ts_tree_rebuild_finish(ts_dynamic_tree *tree, int k)
{
    int levels = tree->rebuild_levels;
    assert(k < (1 << levels));
    build_range(tree, tree->rebuild_ranges[(1 << levels) - 1 + k]);
}

void ts_tree_rebuild_end(ts_dynamic_tree *tree)
{

    /* The nodes of the breadth-first levels, children (higher in the heap) first. */
    for (int i = (1 << tree->rebuild_levels) - 2; i >= 0; --i) {
        if (tree->rebuild_ranges[i].node != TS_NULL_PROXY) {
            refit(tree->nodes, tree->rebuild_ranges[i].node);
        }
    }
    assert(tree->nodes[tree->root].parent == TS_NULL_PROXY);
    measure_built_cost(tree);
}

bool ts_tree_rebuild(ts_dynamic_tree *tree, bool full_build)
{
    int levels = ts_tree_rebuild_begin(tree, full_build);
    if (levels < 0) {
        return levels == -1;
    }
    for (int level = 0; level < levels; ++level) {
        for (int k = 0; k < (1 << level); ++k) {
            ts_tree_rebuild_split(tree, level, k);
        }
    }
    for (int k = 0; k < (1 << levels); ++k) {
        ts_tree_rebuild_finish(tree, k);
    }
    ts_tree_rebuild_end(tree);
    return true;
}

/* Dynamic bounding volume hierarchy of fat AABBs (see dynamic_tree.h).
 *
 * Cost model: the surface-area heuristic. The expected cost of a query is
 * proportional to the summed surface area of the internal nodes it may
 * enter, so insertion, rotations and rebuilds all try to keep that sum small.
 *
 * Insertion (find_best_sibling): a new leaf L paired with an existing node X
 * creates a parent of area A(X u L) and grows every ancestor Y of X by
 * A(Y u L) - A(Y). We descend from the root along one path, keeping the best
 * candidate seen, and enter a child only if a lower bound on the cost of any
 * node below it beats that best: below child C the cost is at least the
 * growth inherited from C's ancestors, plus C's own growth A(C u L) - A(C),
 * plus A(L) for the new parent.
 *
 * Rotations (rotate_node): at every node A refitted on the way up, try
 * swapping one child of A with a grandchild under the other child; of the up
 * to four swaps, take the one that shrinks the changed node's area the most.
 * A's own box and leaf set do not change, so nothing above needs redoing.
 *
 * Rebuild: see dynamic_tree_build.c. */
#include "collide/dynamic_tree.h"

#include "base/alloc.h"

#include <assert.h>
#include <float.h>
#include <string.h>

#define TS_TREE_MIN_NODES 16

static inline bool is_leaf(const ts_tree_node *node) { return (node->flags & TS_TREE_NODE_LEAF) != 0; }

static inline int max_int(int a, int b) { return a > b ? a : b; }

static inline uint16_t height_of(int h)
{
    assert(h <= UINT16_MAX);
    return (uint16_t)h;
}

/* ---- node pool ---- */

/* Links nodes [first, end) into a chain ending in tail. */
static void link_free_nodes(ts_tree_node *nodes, int first, int end, int tail)
{
    for (int i = first; i < end - 1; ++i) {
        nodes[i].next = i + 1;
        nodes[i].flags = 0;
    }
    nodes[end - 1].next = tail;
    nodes[end - 1].flags = 0;
}

/* Makes room for `extra` more allocated nodes; false (tree unchanged) when the
 * allocator fails. */
static bool reserve_nodes(ts_dynamic_tree *tree, int extra)
{
    if (tree->node_count + extra <= tree->node_capacity) {
        return true;
    }
    int old_capacity = tree->node_capacity;
    if (old_capacity > (INT32_MAX / 2) - extra) {
        return false;
    }
    int new_capacity = old_capacity + old_capacity / 2;
    if (new_capacity < tree->node_count + extra) {
        new_capacity = tree->node_count + extra;
    }
    if (new_capacity < TS_TREE_MIN_NODES) {
        new_capacity = TS_TREE_MIN_NODES;
    }
    ts_tree_node *nodes = ts_realloc(tree->allocator, tree->nodes, (size_t)old_capacity * sizeof(ts_tree_node),
                                     (size_t)new_capacity * sizeof(ts_tree_node));
    if (nodes == NULL) {
        return false;
    }
    /* Zero the new nodes so that two trees built by the same calls are equal byte for byte. */
    memset(nodes + old_capacity, 0, (size_t)(new_capacity - old_capacity) * sizeof(ts_tree_node));
    link_free_nodes(nodes, old_capacity, new_capacity, tree->free_list);
    tree->nodes = nodes;
    tree->free_list = old_capacity;
    tree->node_capacity = new_capacity;
    return true;
}

/* Takes a node off the free list; the caller has reserved it. */
static int allocate_node(ts_dynamic_tree *tree)
{
    int index = tree->free_list;
    assert(index != TS_NULL_PROXY);
    ts_tree_node *node = tree->nodes + index;
    tree->free_list = node->next;
    *node = (ts_tree_node){
        .aabb = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}},
        .category_bits = 0,
        .children = {TS_NULL_PROXY, TS_NULL_PROXY},
        .parent = TS_NULL_PROXY,
        .height = 0,
        .flags = TS_TREE_NODE_ALLOCATED,
    };
    tree->node_count += 1;
    return index;
}

static void free_node(ts_dynamic_tree *tree, int index)
{
    assert(0 <= index && index < tree->node_capacity);
    assert(tree->node_count > 0);
    ts_tree_node *node = tree->nodes + index;
    node->next = tree->free_list;
    node->flags = 0;
    tree->free_list = index;
    tree->node_count -= 1;
}

/* ---- init / destroy ---- */

bool ts_tree_init(ts_dynamic_tree *tree, const ts_allocator *allocator, int initial_capacity)
{
    memset(tree, 0, sizeof(*tree));
    tree->root = TS_NULL_PROXY;
    tree->free_list = TS_NULL_PROXY;
    tree->allocator = allocator;

    int proxies = initial_capacity > 0 ? initial_capacity : 0;
    if (proxies > INT32_MAX / 4) {
        return false;
    }
    /* A tree of n leaves has 2n - 1 nodes. */
    int capacity = 2 * proxies - 1;
    if (capacity < TS_TREE_MIN_NODES) {
        capacity = TS_TREE_MIN_NODES;
    }
    return reserve_nodes(tree, capacity);
}

void ts_tree_destroy(ts_dynamic_tree *tree)
{
    const ts_allocator *allocator = tree->allocator;
    if (allocator != NULL) {
        ts_free(allocator, tree->nodes, (size_t)tree->node_capacity * sizeof(ts_tree_node));
        ts_tree_free_rebuild_scratch(tree);
    }
    memset(tree, 0, sizeof(*tree));
    tree->root = TS_NULL_PROXY;
    tree->free_list = TS_NULL_PROXY;
}

/* ---- insertion ---- */

static int find_best_sibling(const ts_dynamic_tree *tree, ts_aabb box)
{
    const ts_tree_node *nodes = tree->nodes;
    const float leaf_area = ts_aabb_area(box);
    const ts_vec3 leaf_center = ts_aabb_center(box);

    /* The node we stand on, with its area, the area of its union with the
     * leaf ("direct") and the growth of its ancestors ("inherited"). */
    int index = tree->root;
    float area = ts_aabb_area(nodes[index].aabb);
    float direct = ts_aabb_area(ts_aabb_union(nodes[index].aabb, box));
    float inherited = 0.0f;

    int best = index;
    float best_cost = direct;

    while (!is_leaf(nodes + index)) {
        /* Going below this node makes it grow. */
        float child_inherited = inherited + (direct - area);

        int child[2] = {nodes[index].children.child1, nodes[index].children.child2};
        float child_area[2] = {0.0f, 0.0f};
        float child_direct[2];
        float bound[2] = {FLT_MAX, FLT_MAX}; /* lower bound of any cost strictly below the child */

        for (int k = 0; k < 2; ++k) {
            const ts_tree_node *c = nodes + child[k];
            child_direct[k] = ts_aabb_area(ts_aabb_union(c->aabb, box));
            float cost = child_direct[k] + child_inherited; /* pair the leaf with this child */
            if (cost < best_cost) {
                best = child[k];
                best_cost = cost;
            }
            if (!is_leaf(c)) {
                child_area[k] = ts_aabb_area(c->aabb);
                bound[k] = child_inherited + (child_direct[k] - child_area[k]) + leaf_area;
            }
        }

        int next;
        if (bound[0] < bound[1]) {
            next = 0;
        } else if (bound[1] < bound[0]) {
            next = 1;
        } else if (bound[0] == FLT_MAX) {
            break; /* both children are leaves */
        } else {
            /* Equal bounds, typically when both children hold the leaf: take the
             * child whose centre is nearer. */
            ts_vec3 d0 = ts_sub(ts_aabb_center(nodes[child[0]].aabb), leaf_center);
            ts_vec3 d1 = ts_sub(ts_aabb_center(nodes[child[1]].aabb), leaf_center);
            next = ts_length_sq(d1) < ts_length_sq(d0) ? 1 : 0;
        }

        if (bound[next] >= best_cost) {
            break; /* nothing below can beat the best candidate */
        }
        index = child[next];
        area = child_area[next];
        direct = child_direct[next];
        inherited = child_inherited;
    }
    return best;
}

/* Swaps a child of ia with a grandchild when that lowers the summed area. */
static void rotate_node(ts_dynamic_tree *tree, int ia)
{
    ts_tree_node *nodes = tree->nodes;
    ts_tree_node *a = nodes + ia;
    assert(!is_leaf(a));

    int kids[2] = {a->children.child1, a->children.child2};
    float best_delta = 0.0f;
    int best_side = -1; /* the child of a whose child moves up */
    int best_grand = -1;
    ts_aabb best_box = a->aabb;

    for (int side = 0; side < 2; ++side) {
        const ts_tree_node *n = nodes + kids[side];
        if (is_leaf(n)) {
            continue;
        }
        const ts_tree_node *uncle = nodes + kids[1 - side];
        float area_n = ts_aabb_area(n->aabb);
        int grand[2] = {n->children.child1, n->children.child2};
        for (int g = 0; g < 2; ++g) {
            /* grand[g] moves up to a; the uncle moves down next to grand[1 - g]. */
            ts_aabb box = ts_aabb_union(uncle->aabb, nodes[grand[1 - g]].aabb);
            float delta = ts_aabb_area(box) - area_n;
            if (delta < best_delta) {
                best_delta = delta;
                best_side = side;
                best_grand = g;
                best_box = box;
            }
        }
    }
    if (best_side < 0) {
        return;
    }

    int in = kids[best_side];
    int iu = kids[1 - best_side];
    ts_tree_node *n = nodes + in;
    int moved = best_grand == 0 ? n->children.child1 : n->children.child2;
    int kept = best_grand == 0 ? n->children.child2 : n->children.child1;

    if (best_side == 0) {
        a->children.child2 = moved;
    } else {
        a->children.child1 = moved;
    }
    if (best_grand == 0) {
        n->children.child1 = iu;
    } else {
        n->children.child2 = iu;
    }
    nodes[iu].parent = in;
    nodes[moved].parent = ia;

    n->aabb = best_box;
    n->category_bits = nodes[iu].category_bits | nodes[kept].category_bits;
    n->height = height_of(1 + max_int(nodes[iu].height, nodes[kept].height));
    n->flags |= (uint16_t)((nodes[iu].flags | nodes[kept].flags) & (TS_TREE_NODE_ENLARGED | TS_TREE_NODE_REFIT));
    a->height = height_of(1 + max_int(n->height, nodes[moved].height));
    /* a's box, category bits and enlarged flag are unchanged: same leaves below. */
}

/* Recomputes boxes, bits and heights from index to the root, rotating each node. */
static void refit_to_root(ts_dynamic_tree *tree, int index)
{
    ts_tree_node *nodes = tree->nodes;
    while (index != TS_NULL_PROXY) {
        ts_tree_node *node = nodes + index;
        const ts_tree_node *c1 = nodes + node->children.child1;
        const ts_tree_node *c2 = nodes + node->children.child2;
        node->aabb = ts_aabb_union(c1->aabb, c2->aabb);
        node->category_bits = c1->category_bits | c2->category_bits;
        node->height = height_of(1 + max_int(c1->height, c2->height));
        node->flags |= (uint16_t)((c1->flags | c2->flags) & (TS_TREE_NODE_ENLARGED | TS_TREE_NODE_REFIT));
        rotate_node(tree, index);
        index = node->parent;
    }
}

/* Inserts an allocated leaf; needs one free node when the tree is not empty. */
static void insert_leaf(ts_dynamic_tree *tree, int leaf)
{
    if (tree->root == TS_NULL_PROXY) {
        tree->root = leaf;
        tree->nodes[leaf].parent = TS_NULL_PROXY;
        return;
    }

    ts_aabb box = tree->nodes[leaf].aabb;
    int sibling = find_best_sibling(tree, box);
    int parent = allocate_node(tree);

    ts_tree_node *nodes = tree->nodes;
    int grand = nodes[sibling].parent;
    nodes[parent].parent = grand;
    nodes[parent].children.child1 = sibling;
    nodes[parent].children.child2 = leaf;
    nodes[sibling].parent = parent;
    nodes[leaf].parent = parent;
    if (grand == TS_NULL_PROXY) {
        tree->root = parent;
    } else if (nodes[grand].children.child1 == sibling) {
        nodes[grand].children.child1 = parent;
    } else {
        nodes[grand].children.child2 = parent;
    }
    refit_to_root(tree, parent);
}

/* Detaches a leaf (which stays allocated) and frees its parent. */
static void remove_leaf(ts_dynamic_tree *tree, int leaf)
{
    if (leaf == tree->root) {
        tree->root = TS_NULL_PROXY;
        return;
    }
    ts_tree_node *nodes = tree->nodes;
    int parent = nodes[leaf].parent;
    int grand = nodes[parent].parent;
    int sibling = nodes[parent].children.child1 == leaf ? nodes[parent].children.child2 : nodes[parent].children.child1;

    nodes[sibling].parent = grand;
    if (grand == TS_NULL_PROXY) {
        tree->root = sibling;
    } else if (nodes[grand].children.child1 == parent) {
        nodes[grand].children.child1 = sibling;
    } else {
        nodes[grand].children.child2 = sibling;
    }
    free_node(tree, parent);
    refit_to_root(tree, grand);
}

/* ---- proxies ---- */

int ts_tree_create_proxy(ts_dynamic_tree *tree, ts_aabb fat_aabb, uint64_t category_bits, int32_t user_id)
{
    assert(ts_aabb_is_valid(fat_aabb));
    /* The leaf and, unless the tree is empty, its new parent. Reserve both
     * before touching anything so that a failure changes nothing. */
    if (!reserve_nodes(tree, 2)) {
        return TS_NULL_PROXY;
    }
    int proxy = allocate_node(tree);
    ts_tree_node *node = tree->nodes + proxy;
    node->aabb = fat_aabb;
    node->category_bits = category_bits;
    node->user_id = user_id;
    node->flags = TS_TREE_NODE_ALLOCATED | TS_TREE_NODE_LEAF;
    insert_leaf(tree, proxy);
    tree->proxy_count += 1;
    tree->built_cost = 0.0; /* the refit's cost bookkeeping no longer holds */
    return proxy;
}

#ifndef NDEBUG /* for the asserts only */
static inline bool is_proxy(const ts_dynamic_tree *tree, int proxy)
{
    return 0 <= proxy && proxy < tree->node_capacity &&
           tree->nodes[proxy].flags == (TS_TREE_NODE_ALLOCATED | TS_TREE_NODE_LEAF);
}
#endif

void ts_tree_destroy_proxy(ts_dynamic_tree *tree, int proxy)
{
    assert(is_proxy(tree, proxy));
    remove_leaf(tree, proxy);
    free_node(tree, proxy);
    tree->proxy_count -= 1;
    tree->built_cost = 0.0;
}

void ts_tree_move_proxy(ts_dynamic_tree *tree, int proxy, ts_aabb fat_aabb)
{
    assert(is_proxy(tree, proxy));
    assert(ts_aabb_is_valid(fat_aabb));
    /* Removing frees one node and inserting takes one back: no allocation. */
    remove_leaf(tree, proxy);
    tree->nodes[proxy].aabb = fat_aabb;
    insert_leaf(tree, proxy);
    tree->built_cost = 0.0;
}

/* A node's first mark to refit since the last refit takes its area (as it
 * is now, before anything grows it) out of the refit's bookkeeping
 * (dynamic_tree_build.c), which puts the refitted area back: out of the
 * rebuild's area when the node was not enlarged since the rebuild, else out
 * of the enlarged nodes' area at the last refit. */
static void take_out_area(ts_dynamic_tree *tree, const ts_tree_node *node, bool built)
{
    double area = (double)ts_aabb_area(node->aabb);
    if (built) {
        tree->enlarged_built_area += area;
    } else {
        tree->enlarged_area -= area;
    }
}

void ts_tree_enlarge_proxy(ts_dynamic_tree *tree, int proxy, ts_aabb fat_aabb)
{
    assert(is_proxy(tree, proxy));
    assert(ts_aabb_is_valid(fat_aabb));
    ts_tree_node *nodes = tree->nodes;
    nodes[proxy].aabb = fat_aabb;

    /* Grow ancestors until one already holds the box (all above it do too),
     * and flag them to refit up to the first one already flagged (all above
     * it are): the leaf's old box may have been what set theirs. A node the
     * deferred enlarge marked still owes its area: it is taken out here,
     * before the box grows. */
    bool growing = true;
    int index = nodes[proxy].parent;
    while (index != TS_NULL_PROXY) {
        ts_tree_node *node = nodes + index;
        uint16_t flags = node->flags;
        if ((flags & TS_TREE_NODE_AREA_OWED) != 0) {
            take_out_area(tree, node, (flags & TS_TREE_NODE_AREA_BUILT) != 0);
            flags &= (uint16_t)~(TS_TREE_NODE_AREA_OWED | TS_TREE_NODE_AREA_BUILT);
        } else if ((flags & TS_TREE_NODE_REFIT) == 0) {
            take_out_area(tree, node, (flags & TS_TREE_NODE_ENLARGED) == 0);
        }
        if (growing) {
            growing = ts_aabb_enlarge_to_contain(&node->aabb, fat_aabb);
        }
        node->flags = (uint16_t)(flags | TS_TREE_NODE_ENLARGED | TS_TREE_NODE_REFIT);
        if (!growing && (flags & TS_TREE_NODE_REFIT) != 0) {
            break;
        }
        index = node->parent;
    }
}

/* The marks of a node a walk reaches first: to refit, enlarged, and owing
 * the area it had (the rebuild's when it was not enlarged before). */
static inline uint16_t first_marks(uint16_t old)
{
    uint16_t owed = (old & TS_TREE_NODE_ENLARGED) == 0 ? TS_TREE_NODE_AREA_OWED | TS_TREE_NODE_AREA_BUILT
                                                        : TS_TREE_NODE_AREA_OWED;
    return (uint16_t)(TS_TREE_NODE_ENLARGED | TS_TREE_NODE_REFIT | owed);
}

/* The deferred enlarge's marks from `index` up while other threads mark
 * too: atomic ORs (on one thread they made free_fall's finalize 0.5 ms
 * slower, so the unshared walk takes plain stores). The walk that sets
 * REFIT is the first here: the owed area is its to note, and `marker` its
 * worker's bit. A node seen marked ends the walk before any write, so the
 * nodes near the root, which every worker reaches, stay shared in the
 * caches instead of moving to each writer in turn. */
static void mark_shared(ts_tree_node *nodes, int index, uint16_t marker)
{
    while (index != TS_NULL_PROXY) {
        ts_tree_node *node = nodes + index;
        if ((ts_atomic_load16(&node->flags) & TS_TREE_NODE_REFIT) != 0) {
            break;
        }
        uint16_t old = ts_atomic_or16(&node->flags, TS_TREE_NODE_ENLARGED | TS_TREE_NODE_REFIT | marker);
        if ((old & TS_TREE_NODE_REFIT) != 0) {
            break;
        }
        ts_atomic_or16(&node->flags, first_marks(old));
        index = node->parent;
    }
}

void ts_tree_enlarge_proxy_deferred(ts_dynamic_tree *tree, int proxy, ts_aabb fat_aabb, bool shared)
{
    assert(is_proxy(tree, proxy));
    assert(ts_aabb_is_valid(fat_aabb));
    ts_tree_node *nodes = tree->nodes;
    nodes[proxy].aabb = fat_aabb;
    int index = nodes[proxy].parent;
    if (!shared) {
        while (index != TS_NULL_PROXY) {
            ts_tree_node *node = nodes + index;
            uint16_t old = node->flags;
            if ((old & TS_TREE_NODE_REFIT) != 0) {
                break; /* marked before, and so are all above */
            }
            node->flags = (uint16_t)(old | first_marks(old));
            index = node->parent;
        }
        return;
    }
    mark_shared(nodes, index, 0);
}

void ts_tree_enlarge_proxy_shared(ts_dynamic_tree *tree, int proxy, ts_aabb fat_aabb, int worker)
{
    assert(is_proxy(tree, proxy));
    assert(ts_aabb_is_valid(fat_aabb));
    assert(worker >= 0);
    tree->nodes[proxy].aabb = fat_aabb;
    int shift = TS_TREE_NODE_MARKER_SHIFT + (worker < 7 ? worker : 7);
    mark_shared(tree->nodes, tree->nodes[proxy].parent, (uint16_t)(1u << shift));
}

void ts_tree_set_category_bits(ts_dynamic_tree *tree, int proxy, uint64_t category_bits)
{
    assert(is_proxy(tree, proxy));
    ts_tree_node *nodes = tree->nodes;
    nodes[proxy].category_bits = category_bits;
    for (int index = nodes[proxy].parent; index != TS_NULL_PROXY; index = nodes[index].parent) {
        nodes[index].category_bits =
            nodes[nodes[index].children.child1].category_bits | nodes[nodes[index].children.child2].category_bits;
    }
}

uint64_t ts_tree_get_category_bits(const ts_dynamic_tree *tree, int proxy)
{
    assert(is_proxy(tree, proxy));
    return tree->nodes[proxy].category_bits;
}

ts_aabb ts_tree_get_fat_aabb(const ts_dynamic_tree *tree, int proxy)
{
    assert(is_proxy(tree, proxy));
    return tree->nodes[proxy].aabb;
}

int32_t ts_tree_get_user_id(const ts_dynamic_tree *tree, int proxy)
{
    assert(is_proxy(tree, proxy));
    return tree->nodes[proxy].user_id;
}

int ts_tree_proxy_count(const ts_dynamic_tree *tree) { return tree->proxy_count; }

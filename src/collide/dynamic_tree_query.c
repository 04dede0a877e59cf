/* Queries and checks over the dynamic AABB tree (see dynamic_tree.h): the
 * overlap query with a fixed stack (no recursion, no allocation), its
 * stackless fallback, and the height / area / structure checks for tests. */
#include "collide/dynamic_tree.h"

#include <float.h>
#include <stddef.h>

static inline bool is_leaf(const ts_tree_node *node) { return (node->flags & TS_TREE_NODE_LEAF) != 0; }

static inline int max_int(int a, int b) { return a > b ? a : b; }

/* ---- queries ---- */

static inline bool node_hit(const ts_tree_node *node, ts_aabb aabb, uint64_t mask_bits)
{
    return (node->category_bits & mask_bits) != 0 && ts_aabb_overlaps(node->aabb, aabb);
}

/* Preorder walk (child1 first) of the subtree at top by parent links. Returns
 * false when the callback stopped the query. */
static bool query_subtree_stackless(const ts_dynamic_tree *tree, int top, ts_aabb aabb, uint64_t mask_bits,
                                    ts_tree_query_fn *fn, void *context)
{
    const ts_tree_node *nodes = tree->nodes;
    int index = top;
    for (;;) {
        const ts_tree_node *node = nodes + index;
        if (node_hit(node, aabb, mask_bits)) {
            if (!is_leaf(node)) {
                index = node->children.child1;
                continue;
            }
            if (!fn(index, node->user_id, context)) {
                return false;
            }
        }
        /* Next node in preorder: the nearest unvisited second child above. */
        for (;;) {
            if (index == top) {
                return true;
            }
            int parent = nodes[index].parent;
            if (nodes[parent].children.child1 == index) {
                index = nodes[parent].children.child2;
                break;
            }
            index = parent;
        }
    }
}

void ts_tree_query(const ts_dynamic_tree *tree, ts_aabb aabb, uint64_t mask_bits, ts_tree_query_fn *fn,
                   void *context)
{
    if (tree->root == TS_NULL_PROXY || !node_hit(tree->nodes + tree->root, aabb, mask_bits)) {
        return;
    }
    /* Only nodes that passed the test are pushed: testing both children while
     * their parent is at hand saves stack traffic (~14% in bench/tree_bench). */
    const ts_tree_node *nodes = tree->nodes;
    int stack[TS_TREE_STACK_SIZE];
    int count = 0;
    stack[count++] = tree->root;

    while (count > 0) {
        int index = stack[--count];
        const ts_tree_node *node = nodes + index;
        if (is_leaf(node)) {
            if (!fn(index, node->user_id, context)) {
                return;
            }
            continue;
        }
        if (count + 2 > TS_TREE_STACK_SIZE) {
            /* Only for trees deeper than the stack: same order, no stack. */
            if (!query_subtree_stackless(tree, index, aabb, mask_bits, fn, context)) {
                return;
            }
            continue;
        }
        int child1 = node->children.child1;
        int child2 = node->children.child2;
        bool hit1 = node_hit(nodes + child1, aabb, mask_bits);
        bool hit2 = node_hit(nodes + child2, aabb, mask_bits);
        if (hit2) {
            stack[count++] = child2;
        }
        if (hit1) {
            stack[count++] = child1; /* popped first: child1's subtree comes first */
        }
    }
}

void ts_tree_query_stackless(const ts_dynamic_tree *tree, ts_aabb aabb, uint64_t mask_bits, ts_tree_query_fn *fn,
                             void *context)
{
    if (tree->root != TS_NULL_PROXY) {
        (void)query_subtree_stackless(tree, tree->root, aabb, mask_bits, fn, context);
    }
}

/* ---- statistics and validation ---- */

int ts_tree_height(const ts_dynamic_tree *tree)
{
    return tree->root == TS_NULL_PROXY ? 0 : tree->nodes[tree->root].height;
}

float ts_tree_area_ratio(const ts_dynamic_tree *tree)
{
    if (tree->root == TS_NULL_PROXY) {
        return 0.0f;
    }
    float root_area = ts_aabb_area(tree->nodes[tree->root].aabb);
    if (!(root_area > 0.0f)) {
        return 0.0f;
    }
    float total = 0.0f;
    for (int i = 0; i < tree->node_capacity; ++i) {
        const ts_tree_node *node = tree->nodes + i;
        if ((node->flags & TS_TREE_NODE_ALLOCATED) != 0 && !is_leaf(node) && i != tree->root) {
            total += ts_aabb_area(node->aabb);
        }
    }
    return total / root_area;
}

static bool aabb_equal(ts_aabb a, ts_aabb b)
{
    return a.lower.x == b.lower.x && a.lower.y == b.lower.y && a.lower.z == b.lower.z && a.upper.x == b.upper.x &&
           a.upper.y == b.upper.y && a.upper.z == b.upper.z;
}

bool ts_tree_validate(const ts_dynamic_tree *tree)
{
    const int capacity = tree->node_capacity;
    const ts_tree_node *nodes = tree->nodes;
    if (capacity < 0 || (capacity > 0 && nodes == NULL) || tree->node_count < 0 || tree->node_count > capacity ||
        tree->proxy_count < 0) {
        return false;
    }
    if (tree->root == TS_NULL_PROXY) {
        if (tree->node_count != 0 || tree->proxy_count != 0) {
            return false;
        }
    } else if (tree->root < 0 || tree->root >= capacity || (nodes[tree->root].flags & TS_TREE_NODE_ALLOCATED) == 0 ||
               nodes[tree->root].parent != TS_NULL_PROXY) {
        return false;
    }

    /* Local checks on every node. With heights strictly growing towards the
     * parent there can be no cycle, so every allocated node's parent chain ends
     * at the one node without a parent, the root: all of them are reachable. */
    int allocated = 0;
    int leaves = 0;
    for (int i = 0; i < capacity; ++i) {
        const ts_tree_node *node = nodes + i;
        if ((node->flags & TS_TREE_NODE_ALLOCATED) == 0) {
            if (node->flags != 0) {
                return false;
            }
            continue;
        }
        allocated += 1;
        if (!ts_aabb_is_valid(node->aabb)) {
            return false;
        }
        if (i != tree->root) {
            int p = node->parent;
            if (p < 0 || p >= capacity || (nodes[p].flags & TS_TREE_NODE_ALLOCATED) == 0 || is_leaf(nodes + p) ||
                (nodes[p].children.child1 != i && nodes[p].children.child2 != i)) {
                return false;
            }
        }
        if (is_leaf(node)) {
            leaves += 1;
            if (node->height != 0 || (node->flags & (TS_TREE_NODE_ENLARGED | TS_TREE_NODE_REFIT | TS_TREE_NODE_AREA_OWED |
                                                     TS_TREE_NODE_AREA_BUILT)) != 0) {
                return false;
            }
            continue;
        }
        int c1 = node->children.child1;
        int c2 = node->children.child2;
        if (c1 < 0 || c1 >= capacity || c2 < 0 || c2 >= capacity || c1 == c2 || c1 == i || c2 == i) {
            return false;
        }
        const ts_tree_node *n1 = nodes + c1;
        const ts_tree_node *n2 = nodes + c2;
        if ((n1->flags & TS_TREE_NODE_ALLOCATED) == 0 || (n2->flags & TS_TREE_NODE_ALLOCATED) == 0 ||
            n1->parent != i || n2->parent != i) {
            return false;
        }
        if (node->height != 1 + max_int(n1->height, n2->height)) {
            return false;
        }
        if (!ts_aabb_contains(node->aabb, n1->aabb) || !ts_aabb_contains(node->aabb, n2->aabb)) {
            return false;
        }
        if (node->category_bits != (n1->category_bits | n2->category_bits)) {
            return false;
        }
        if (((n1->flags | n2->flags) & TS_TREE_NODE_ENLARGED) != 0 && (node->flags & TS_TREE_NODE_ENLARGED) == 0) {
            return false;
        }
        /* To refit: only enlarged nodes, with their ancestors; the others hold
         * exactly their children's union (the refit skips them). */
        if ((node->flags & TS_TREE_NODE_REFIT) != 0 && (node->flags & TS_TREE_NODE_ENLARGED) == 0) {
            return false;
        }
        if (((n1->flags | n2->flags) & TS_TREE_NODE_REFIT) != 0 && (node->flags & TS_TREE_NODE_REFIT) == 0) {
            return false;
        }
        if ((node->flags & TS_TREE_NODE_REFIT) == 0 && !aabb_equal(node->aabb, ts_aabb_union(n1->aabb, n2->aabb))) {
            return false;
        }
        /* An owed area belongs to a node marked to refit. */
        if ((node->flags & TS_TREE_NODE_AREA_OWED) != 0 && (node->flags & TS_TREE_NODE_REFIT) == 0) {
            return false;
        }
        if ((node->flags & TS_TREE_NODE_AREA_BUILT) != 0 && (node->flags & TS_TREE_NODE_AREA_OWED) == 0) {
            return false;
        }
    }
    if (allocated != tree->node_count || leaves != tree->proxy_count || (leaves > 0 && allocated != 2 * leaves - 1)) {
        return false;
    }

    int free_count = 0;
    for (int f = tree->free_list; f != TS_NULL_PROXY; f = nodes[f].next) {
        if (f < 0 || f >= capacity || nodes[f].flags != 0 || free_count >= capacity) {
            return false;
        }
        free_count += 1;
    }
    return free_count == capacity - tree->node_count;
}

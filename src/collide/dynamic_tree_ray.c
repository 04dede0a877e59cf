/* Ray casts through the dynamic AABB tree (see dynamic_tree_ray.h): a
 * depth-first walk on a fixed stack that tests both children of a node
 * while it is at hand and goes to the nearer first, so that a closest-hit
 * query finds its hit early and cuts the rest of the tree. The slab test is
 * ray_lanes.h's at width 1, the same as the batched queries' node test. */
#include "collide/dynamic_tree_ray.h"

#include "collide/ray_lanes.h"

typedef struct ray_walk {
    const ts_dynamic_tree *tree;
    const ts_ray *ray;
    ts_ray_lanes lanes;
    ts_vec3 extent;
    uint64_t mask_bits;
    float max;
    ts_tree_ray_fn *fn;
    void *context;
} ray_walk;

/* Whether the ray passes the node's box grown by the extent over [0, max];
 * *enter is where (clipped to 0). */
static bool node_hit(const ray_walk *w, const ts_tree_node *node, float *enter)
{
    if ((node->category_bits & w->mask_bits) == 0) {
        return false;
    }
    ts_wv3 lo = {node->aabb.lower.x - w->extent.x, node->aabb.lower.y - w->extent.y, node->aabb.lower.z - w->extent.z};
    ts_wv3 hi = {node->aabb.upper.x + w->extent.x, node->aabb.upper.y + w->extent.y, node->aabb.upper.z + w->extent.z};
    return ts_ray_slab(w->ray, &w->lanes, lo, hi, w->max, enter);
}

static inline bool is_leaf(const ts_tree_node *node) { return (node->flags & TS_TREE_NODE_LEAF) != 0; }

/* Calls back for a leaf; false when the caller stopped the walk. */
static bool visit_leaf(ray_walk *w, int index)
{
    float max = w->fn(index, w->tree->nodes[index].user_id, w->context);
    if (max < 0.0f) {
        return false;
    }
    w->max = max;
    return true;
}

/* The subtree at top in preorder by parent links, without a stack (only
 * for trees deeper than the stack; no near-first order). */
static bool walk_stackless(ray_walk *w, int top)
{
    const ts_tree_node *nodes = w->tree->nodes;
    int index = top;
    for (;;) {
        float enter;
        const ts_tree_node *node = nodes + index;
        if (node_hit(w, node, &enter)) {
            if (!is_leaf(node)) {
                index = node->children.child1;
                continue;
            }
            if (!visit_leaf(w, index)) {
                return false;
            }
        }
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

void ts_tree_ray_cast(const ts_dynamic_tree *tree, const ts_ray *ray, ts_vec3 extent, uint64_t mask_bits, float max,
                      ts_tree_ray_fn *fn, void *context)
{
    ray_walk w = {tree, ray, ts_ray_lanes_of(ray), extent, mask_bits, max, fn, context};
    float enter;
    if (tree->root == TS_NULL_PROXY || !node_hit(&w, tree->nodes + tree->root, &enter)) {
        return;
    }
    const ts_tree_node *nodes = tree->nodes;
    int stack[TS_TREE_STACK_SIZE];
    float enters[TS_TREE_STACK_SIZE];
    int count = 0;
    stack[count] = tree->root;
    enters[count++] = enter;
    while (count > 0) {
        --count;
        int index = stack[count];
        if (enters[count] > w.max) {
            continue; /* the ray was cut short since this node was pushed */
        }
        const ts_tree_node *node = nodes + index;
        if (is_leaf(node)) {
            if (!visit_leaf(&w, index)) {
                return;
            }
            continue;
        }
        if (count + 2 > TS_TREE_STACK_SIZE) {
            if (!walk_stackless(&w, index)) {
                return;
            }
            continue;
        }
        int child1 = node->children.child1, child2 = node->children.child2;
        float enter1, enter2;
        bool hit1 = node_hit(&w, nodes + child1, &enter1);
        bool hit2 = node_hit(&w, nodes + child2, &enter2);
        /* the nearer on top of the stack (child1 on a tie) */
        bool second_first = hit1 && hit2 && enter2 < enter1;
        int near = second_first ? child2 : child1, far = second_first ? child1 : child2;
        float near_enter = second_first ? enter2 : enter1, far_enter = second_first ? enter1 : enter2;
        bool near_hit = second_first ? hit2 : hit1, far_hit = second_first ? hit1 : hit2;
        if (far_hit) {
            stack[count] = far;
            enters[count++] = far_enter;
        }
        if (near_hit) {
            stack[count] = near;
            enters[count++] = near_enter;
        }
    }
}

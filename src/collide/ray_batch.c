/* The wide tree of a ray batch (see ray_batch.h): the broadphase's binary
 * trees collapsed into 8-wide nodes with packets of up to 8 shapes at the
 * leaves, and the choice of kernel width.
 *
 * Collapse: a wide node starts from one binary node (the root: from both
 * trees' roots) and opens, while it has fewer than 8 children, its child of
 * largest area among those with more than 8 leaves (replacing it by its two
 * children), as a wide BVH built from a binary one usually is. Then each
 * child with at most 8 leaves becomes a packet (its leaves in the tree's
 * order), each other child a wide node of its own. Large boxes are opened
 * first because they are the ones a ray enters most often. */
#include "collide/ray_batch.h"

#include "base/array.h"
#include "collide/query_filter.h"

#include <math.h>
#include <string.h>

/* A node of one of the binary trees. */
typedef struct bin_ref {
    int32_t tree;
    int32_t node;
} bin_ref;

/* A wide child still to be made: the binary node and where it hangs. */
typedef struct pending {
    bin_ref ref;
    int32_t parent; /* wide node */
    int32_t lane;
    int32_t depth;  /* the parent's */
} pending;

typedef struct builder {
    ts_ray_bvh *bvh;
    const ts_records *records;
    const ts_broadphase *broadphase;
    const ts_query_filter *filter;
    const ts_allocator *allocator;
    pending *queue;
    int32_t queue_capacity;
    int32_t queue_head, queue_tail;
} builder;

static const ts_tree_node *bin_node(const builder *b, bin_ref ref)
{
    return b->broadphase->trees[ref.tree].nodes + ref.node;
}

static int32_t leaves_of(const builder *b, bin_ref ref) { return b->bvh->leaf_counts[ref.tree][ref.node]; }

/* A shape's box at its pose, grown by more than the rounding of any hit
 * point on it: 1e-4 m plus 8 units in the last place of its largest
 * coordinate. */
static ts_aabb padded(ts_aabb box)
{
    float m = fmaxf(fmaxf(fabsf(box.lower.x), fabsf(box.upper.x)),
                    fmaxf(fmaxf(fabsf(box.lower.y), fabsf(box.upper.y)),
                          fmaxf(fabsf(box.lower.z), fabsf(box.upper.z))));
    return ts_aabb_enlarge(box, 1e-4f + 1e-6f * m);
}

/* Leaves below every node of a tree and the tight box of each node (the
 * shapes at their poses: see ray_batch.h): nodes in preorder (a parent
 * before its children), then summed from the back. */
static bool count_leaves(ts_ray_bvh *bvh, const ts_records *records, const ts_dynamic_tree *tree, int k,
                         const ts_allocator *allocator)
{
    if (tree->root == TS_NULL_PROXY) {
        return true;
    }
    if (!ts_array_reserve(allocator, (void **)&bvh->leaf_counts[k], &bvh->leaf_count_capacity[k],
                          2 * tree->node_capacity, sizeof(int32_t)) ||
        !ts_array_reserve(allocator, (void **)&bvh->tight[k], &bvh->tight_capacity[k], tree->node_capacity,
                          sizeof(ts_aabb))) {
        return false;
    }
    ts_aabb *tight = bvh->tight[k];
    int32_t *counts = bvh->leaf_counts[k];
    int32_t *order = counts + tree->node_capacity; /* the preorder, in the second half */
    int32_t n = 0, stack_top = 0;
    order[n++] = tree->root; /* order doubles as the stack: what is not yet expanded follows stack_top */
    while (stack_top < n) {
        const ts_tree_node *node = tree->nodes + order[stack_top++];
        if ((node->flags & TS_TREE_NODE_LEAF) == 0) {
            order[n++] = node->children.child1;
            order[n++] = node->children.child2;
        }
    }
    for (int32_t i = n - 1; i >= 0; --i) {
        const ts_tree_node *node = tree->nodes + order[i];
        if ((node->flags & TS_TREE_NODE_LEAF) != 0) {
            counts[order[i]] = 1;
            tight[order[i]] = padded(ts_shape_compute_aabb(records, node->user_id));
        } else {
            counts[order[i]] = counts[node->children.child1] + counts[node->children.child2];
            tight[order[i]] = ts_aabb_union(tight[node->children.child1], tight[node->children.child2]);
        }
    }
    return true;
}

static void set_lane_box(float lower[3][TS_RAY_LANES], float upper[3][TS_RAY_LANES], int lane, ts_aabb box)
{
    lower[0][lane] = box.lower.x;
    lower[1][lane] = box.lower.y;
    lower[2][lane] = box.lower.z;
    upper[0][lane] = box.upper.x;
    upper[1][lane] = box.upper.y;
    upper[2][lane] = box.upper.z;
}

/* One shape into the next lane of a packet. */
static void add_shape(const builder *b, ts_ray_packet *packet, int32_t shape, ts_aabb box)
{
    ts_ray_target t;
    ts_ray_target_of(b->records, shape, box, &t);
    int l = packet->count++;
    float center[3] = {t.center.x, t.center.y, t.center.z};
    float size[3] = {t.half_extents.x, t.half_extents.y, t.half_extents.z};
    if (t.type != TS_SHAPE_BOX) {
        size[0] = t.size[0];
        size[1] = t.size[1];
        size[2] = 0.0f;
    }
    for (int i = 0; i < 3; ++i) {
        packet->center[i][l] = center[i];
        packet->size[i][l] = size[i];
        packet->axis[3 * i + 0][l] = t.axis[i].x;
        packet->axis[3 * i + 1][l] = t.axis[i].y;
        packet->axis[3 * i + 2][l] = t.axis[i].z;
    }
    set_lane_box(packet->lower, packet->upper, l, box);
    packet->shape[l] = shape;
    packet->type_lanes[t.type] = (uint8_t)(packet->type_lanes[t.type] | (1u << l));
    packet->types = (uint8_t)(packet->types | (1u << t.type));
    ts_ray_packet_ids *ids = b->bvh->ids + (packet - b->bvh->packets);
    ids->shape[l] = ts_shape_id_of(b->records, shape);
    ids->body[l] = ts_body_id_of(b->records, b->records->shapes[shape].body);
}

/* A packet of the (at most 8) leaves below ref whose shapes pass the
 * filter's bits, in the tree's order; returns its index or -1. */
static int32_t make_packet(builder *b, bin_ref ref)
{
    ts_ray_bvh *bvh = b->bvh;
    if (!ts_array_reserve(b->allocator, (void **)&bvh->packets, &bvh->packet_capacity, bvh->packet_count + 1,
                          sizeof(ts_ray_packet)) ||
        !ts_array_reserve(b->allocator, (void **)&bvh->ids, &bvh->ids_capacity, bvh->packet_count + 1,
                          sizeof(ts_ray_packet_ids))) {
        return -1;
    }
    int32_t index = bvh->packet_count++;
    ts_ray_packet *packet = bvh->packets + index;
    memset(packet, 0, sizeof *packet);
    const ts_tree_node *nodes = b->broadphase->trees[ref.tree].nodes;
    int32_t stack[2 * TS_RAY_LANES];
    int count = 0;
    stack[count++] = ref.node;
    while (count > 0) {
        const ts_tree_node *node = nodes + stack[--count];
        if ((node->flags & TS_TREE_NODE_LEAF) != 0) {
            if (ts_query_filter_passes(b->filter, b->records->shapes + node->user_id)) {
                add_shape(b, packet, node->user_id, node->aabb);
            }
            continue;
        }
        stack[count++] = node->children.child2;
        stack[count++] = node->children.child1;
    }
    return index;
}

/* A wide node from refs (n of them, room for 8), opened up to 8 children;
 * its packets are made now, its wide children queued. Returns its index or -1. */
static int32_t make_node(builder *b, bin_ref refs[TS_RAY_LANES], int n, int32_t depth)
{
    while (n < TS_RAY_LANES) {
        int best = -1;
        float best_area = -1.0f;
        for (int i = 0; i < n; ++i) {
            float area = ts_aabb_area(bin_node(b, refs[i])->aabb);
            if (leaves_of(b, refs[i]) > TS_RAY_LANES && area > best_area) {
                best = i;
                best_area = area;
            }
        }
        if (best < 0) {
            break;
        }
        const ts_tree_node *node = bin_node(b, refs[best]);
        refs[n++] = (bin_ref){refs[best].tree, node->children.child2};
        refs[best].node = node->children.child1;
    }
    ts_ray_bvh *bvh = b->bvh;
    if (!ts_array_reserve(b->allocator, (void **)&bvh->nodes, &bvh->node_capacity, bvh->node_count + 1,
                          sizeof(ts_ray_node)) ||
        !ts_array_reserve(b->allocator, (void **)&b->queue, &b->queue_capacity, b->queue_tail + n, sizeof(pending))) {
        return -1;
    }
    int32_t index = bvh->node_count++;
    memset(bvh->nodes + index, 0, sizeof(ts_ray_node));
    bvh->nodes[index].count = n;
    bvh->depth = depth > bvh->depth ? depth : bvh->depth;
    for (int l = 0; l < n; ++l) {
        set_lane_box(bvh->nodes[index].lower, bvh->nodes[index].upper, l, bvh->tight[refs[l].tree][refs[l].node]);
        if (leaves_of(b, refs[l]) <= TS_RAY_LANES) {
            int32_t packet = make_packet(b, refs[l]);
            if (packet < 0) {
                return -1;
            }
            bvh->nodes[index].child[l] = -1 - packet;
        } else {
            b->queue[b->queue_tail++] = (pending){refs[l], index, l, depth};
        }
    }
    return index;
}

bool ts_ray_bvh_build(ts_ray_bvh *bvh, const ts_records *records, const ts_broadphase *broadphase,
                      const ts_query_filter *filter, const ts_allocator *allocator)
{
    bvh->node_count = 0;
    bvh->packet_count = 0;
    bvh->root = -1;
    bvh->depth = 0;
    builder b = {bvh, records, broadphase, filter, allocator, NULL, 0, 0, 0};
    bin_ref roots[TS_RAY_LANES];
    int n = 0;
    for (int k = 0; k < TS_TREE_COUNT; ++k) {
        if (!count_leaves(bvh, records, broadphase->trees + k, k, allocator)) {
            return false;
        }
        if (broadphase->trees[k].root != TS_NULL_PROXY) {
            roots[n++] = (bin_ref){k, broadphase->trees[k].root};
        }
    }
    bool ok = true;
    if (n > 0) {
        bvh->root = make_node(&b, roots, n, 1);
        ok = bvh->root >= 0;
        /* breadth first: every queued child becomes a node of its own */
        while (ok && b.queue_head < b.queue_tail) {
            pending p = b.queue[b.queue_head++];
            bin_ref refs[TS_RAY_LANES] = {p.ref};
            int32_t child = make_node(&b, refs, 1, p.depth + 1);
            ok = child >= 0;
            if (ok) {
                bvh->nodes[p.parent].child[p.lane] = child;
            }
        }
    }
    ts_array_free(allocator, (void **)&b.queue, &b.queue_capacity, sizeof(pending));
    return ok;
}

void ts_ray_bvh_free(ts_ray_bvh *bvh, const ts_allocator *allocator)
{
    ts_array_free(allocator, (void **)&bvh->nodes, &bvh->node_capacity, sizeof(ts_ray_node));
    ts_array_free(allocator, (void **)&bvh->packets, &bvh->packet_capacity, sizeof(ts_ray_packet));
    ts_array_free(allocator, (void **)&bvh->ids, &bvh->ids_capacity, sizeof(ts_ray_packet_ids));
    for (int k = 0; k < TS_TREE_COUNT; ++k) {
        ts_array_free(allocator, (void **)&bvh->leaf_counts[k], &bvh->leaf_count_capacity[k], sizeof(int32_t));
        ts_array_free(allocator, (void **)&bvh->tight[k], &bvh->tight_capacity[k], sizeof(ts_aabb));
    }
}

void ts_ray_batch_cast(const ts_ray_batch *batch, int width, int32_t begin, int32_t end)
{
    switch (width) { /* 16 casts 8 rays at a time; every width gives the same hits */
#ifdef TS_BUILT_W4
    case 4: ts_ray_batch_cast_w4(batch, begin, end); break;
#endif
#ifdef TS_BUILT_W8
    case 8:
    case 16: ts_ray_batch_cast_w8(batch, begin, end); break;
#endif
    default: ts_ray_batch_cast_w1(batch, begin, end); break;
    }
}

/* Snapshots of the broadphase and the contact events (see collide_snapshot.h).
 *
 * A tree is written node for node, so that a loaded tree is the same tree
 * (the same queries in the same order, the same free nodes handed out
 * next, the same rebuild decisions from the same area bookkeeping). Of a
 * node only what does not follow is written: its flags, a leaf's proxy or
 * an internal node's children, and its box and category bits where they
 * differ from the prediction (a leaf's: its shape's fat box and category;
 * an internal node's: the union of its children's boxes and bits). Parents
 * and heights follow from the children. */
#include "collide/collide_snapshot.h"

#include "base/alloc.h"
#include "base/array.h"
#include "collide/contact.h"
#include "soa/snapshot_ranges.h"
#include "tessera/limits.h"

#include <string.h>

enum {
    NODE_BOX = 1,      /* the box is written */
    NODE_CATEGORY = 2, /* the category bits are written */
};

static void put_aabb(ts_writer *w, ts_aabb box)
{
    float v[6] = {box.lower.x, box.lower.y, box.lower.z, box.upper.x, box.upper.y, box.upper.z};
    ts_put_f32_array(w, v, 6);
}

static ts_aabb get_aabb(ts_reader *r)
{
    float v[6];
    ts_get_f32_array(r, v, 6);
    return (ts_aabb){{v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
}

static bool same_aabb(ts_aabb a, ts_aabb b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The box and bits a node has unless written. */
static void predict_node(const ts_records *records, const ts_dynamic_tree *tree, const ts_tree_node *node,
                         ts_aabb *box, uint64_t *category)
{
    if (node->flags & TS_TREE_NODE_LEAF) {
        const ts_shape *s = records->shapes + node->user_id;
        *box = s->fat_aabb;
        *category = s->filter.category_bits;
    } else {
        const ts_tree_node *a = tree->nodes + node->children.child1, *b = tree->nodes + node->children.child2;
        *box = ts_aabb_union(a->aabb, b->aabb);
        *category = a->category_bits | b->category_bits;
    }
}

static void save_tree(ts_writer *w, const ts_records *records, const ts_dynamic_tree *tree)
{
    ts_put_varint(w, (uint64_t)tree->node_capacity);
    ts_put_svarint(w, tree->root);
    ts_put_svarint(w, tree->free_list);
    ts_put_varint(w, (uint64_t)tree->node_count);
    ts_put_varint(w, (uint64_t)tree->proxy_count);
    ts_put_f64(w, tree->built_area);
    ts_put_f64(w, tree->built_cost);
    ts_put_f64(w, tree->enlarged_built_area);
    ts_put_f64(w, tree->enlarged_area);
    for (int32_t i = 0; i < tree->node_capacity; ++i) {
        const ts_tree_node *node = tree->nodes + i;
        ts_put_u8(w, (uint8_t)node->flags);
        if ((node->flags & TS_TREE_NODE_ALLOCATED) == 0) {
            ts_put_svarint(w, node->next);
            continue;
        }
        if (node->flags & TS_TREE_NODE_LEAF) {
            ts_put_varint(w, (uint64_t)node->user_id);
        } else {
            ts_put_varint(w, (uint64_t)node->children.child1);
            ts_put_varint(w, (uint64_t)node->children.child2);
        }
        ts_aabb box;
        uint64_t category;
        predict_node(records, tree, node, &box, &category);
        uint8_t extras = (!same_aabb(box, node->aabb) ? NODE_BOX : 0) | (category != node->category_bits ? NODE_CATEGORY : 0);
        ts_put_u8(w, extras);
        if (extras & NODE_BOX) put_aabb(w, node->aabb);
        if (extras & NODE_CATEGORY) ts_put_u64(w, node->category_bits);
    }
}

/* Parents, heights, and the predicted boxes and bits, children first: a
 * walk from the root that meets every allocated node once (a node met
 * twice, or one never met, is refused). */
static ts_load_status finish_tree(ts_reader *r, const ts_records *records, ts_dynamic_tree *tree, const uint8_t *extras)
{
    int32_t n = tree->node_count;
    if (tree->root == TS_NULL_PROXY) {
        return n == 0 ? TS_LOAD_OK : (ts_reader_fail(r, "a tree without a root has %d nodes", (int)n), TS_LOAD_INVALID);
    }
    int32_t *order = ts_alloc(tree->allocator, (size_t)n * sizeof(int32_t));
    if (order == NULL) {
        return TS_LOAD_NO_MEMORY;
    }
    int32_t count = 0;
    bool ok = (tree->nodes[tree->root].flags & TS_TREE_NODE_ALLOCATED) != 0;
    tree->nodes[tree->root].parent = TS_NULL_PROXY;
    if (ok) {
        order[count++] = tree->root;
        tree->nodes[tree->root].height = 0xFFFF; /* reached */
    }
    /* preorder by an explicit list: every node reached is appended once */
    for (int32_t k = 0; k < count && ok; ++k) {
        ts_tree_node *node = tree->nodes + order[k];
        if (node->flags & TS_TREE_NODE_LEAF) {
            continue;
        }
        int32_t kids[2] = {node->children.child1, node->children.child2};
        for (int c = 0; c < 2 && ok; ++c) {
            ts_tree_node *kid = tree->nodes + kids[c];
            ok = (kid->flags & TS_TREE_NODE_ALLOCATED) != 0 && kid->height != 0xFFFF && count < n;
            if (ok) {
                kid->height = 0xFFFF;
                kid->parent = order[k];
                order[count++] = kids[c];
            }
        }
    }
    ok = ok && count == n;
    for (int32_t k = count - 1; k >= 0 && ok; --k) { /* children before their parents */
        ts_tree_node *node = tree->nodes + order[k];
        ts_aabb box;
        uint64_t category;
        predict_node(records, tree, node, &box, &category);
        if ((extras[order[k]] & NODE_BOX) == 0) node->aabb = box;
        if ((extras[order[k]] & NODE_CATEGORY) == 0) node->category_bits = category;
        node->height = 0;
        if ((node->flags & TS_TREE_NODE_LEAF) == 0) {
            uint16_t h1 = tree->nodes[node->children.child1].height, h2 = tree->nodes[node->children.child2].height;
            node->height = (uint16_t)(1 + (h1 > h2 ? h1 : h2));
            ok = node->height < 0xFFFF;
        }
    }
    ts_free(tree->allocator, order, (size_t)n * sizeof(int32_t));
    if (!ok) {
        ts_reader_fail(r, "a tree's nodes do not form one tree from its root");
        return TS_LOAD_INVALID;
    }
    return TS_LOAD_OK;
}

static ts_load_status load_tree(ts_reader *r, const ts_records *records, ts_dynamic_tree *tree, int which)
{
    int32_t capacity = ts_get_count(r, 2 * TS_MAX_OBJECTS, 1, "a tree's node capacity");
    int32_t root = ts_get_index(r, -1, capacity < 0 ? 0 : capacity, "a tree's root");
    int32_t free_list = ts_get_index(r, -1, capacity < 0 ? 0 : capacity, "a tree's free list");
    int32_t node_count = ts_get_count(r, capacity < 0 ? 0 : capacity, 0, "a tree's node count");
    int32_t proxy_count = ts_get_count(r, node_count < 0 ? 0 : node_count, 0, "a tree's proxy count");
    double areas[4] = {ts_get_f64(r), ts_get_f64(r), ts_get_f64(r), ts_get_f64(r)};
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    ts_tree_node *nodes = NULL;
    uint8_t *extras = NULL;
    if (capacity > 0) {
        nodes = ts_alloc(tree->allocator, (size_t)capacity * sizeof(ts_tree_node));
        extras = ts_alloc(tree->allocator, (size_t)capacity);
        if (nodes == NULL || extras == NULL) {
            ts_free(tree->allocator, nodes, (size_t)capacity * sizeof(ts_tree_node));
            ts_free(tree->allocator, extras, (size_t)capacity);
            return TS_LOAD_NO_MEMORY;
        }
        memset(nodes, 0, (size_t)capacity * sizeof(ts_tree_node));
        memset(extras, 0, (size_t)capacity);
    }
    ts_free(tree->allocator, tree->nodes, (size_t)tree->node_capacity * sizeof(ts_tree_node));
    tree->nodes = nodes;
    tree->node_capacity = capacity;
    tree->root = root;
    tree->free_list = free_list;
    tree->node_count = node_count;
    tree->proxy_count = proxy_count;
    tree->built_area = areas[0];
    tree->built_cost = areas[1];
    tree->enlarged_built_area = areas[2];
    tree->enlarged_area = areas[3];
    int32_t allocated = 0, leaves = 0;
    const uint16_t known = TS_TREE_NODE_ALLOCATED | TS_TREE_NODE_LEAF | TS_TREE_NODE_ENLARGED | TS_TREE_NODE_REFIT |
                           TS_TREE_NODE_AREA_OWED | TS_TREE_NODE_AREA_BUILT;
    for (int32_t i = 0; i < capacity && !r->failed; ++i) {
        ts_tree_node *node = nodes + i;
        node->flags = ts_get_u8(r);
        if ((node->flags & ~known) != 0) {
            ts_reader_fail(r, "tree node %d has flags %u", (int)i, (unsigned)node->flags);
            break;
        }
        if ((node->flags & TS_TREE_NODE_ALLOCATED) == 0) {
            node->next = ts_get_index(r, -1, capacity, "a free node's next");
            if (node->flags != 0) {
                ts_reader_fail(r, "free tree node %d has flags %u", (int)i, (unsigned)node->flags);
            }
            continue;
        }
        allocated += 1;
        if (node->flags & TS_TREE_NODE_LEAF) {
            leaves += 1;
            node->user_id = ts_get_index(r, 0, records->shape_ids.next_index, "a leaf's shape");
            const ts_shape *s = r->failed ? NULL : records->shapes + node->user_id;
            if (s != NULL && (!s->alive || s->proxy != i || s->tree != which)) {
                ts_reader_fail(r, "leaf %d names shape %d, whose proxy is another", (int)i, (int)node->user_id);
            }
        } else {
            node->children.child1 = ts_get_index(r, 0, capacity, "a node's child");
            node->children.child2 = ts_get_index(r, 0, capacity, "a node's child");
        }
        extras[i] = ts_get_u8(r);
        if (extras[i] > 3) {
            ts_reader_fail(r, "tree node %d has extras %u", (int)i, (unsigned)extras[i]);
        }
        if (extras[i] & NODE_BOX) node->aabb = get_aabb(r);
        if (extras[i] & NODE_CATEGORY) node->category_bits = ts_get_u64(r);
    }
    ts_load_status status = TS_LOAD_INVALID;
    if (!r->failed && (allocated != node_count || leaves != proxy_count)) {
        ts_reader_fail(r, "a tree has %d nodes and %d leaves, not %d and %d", (int)allocated, (int)leaves,
                       (int)node_count, (int)proxy_count);
    }
    /* the free list: every free node once */
    int32_t free_seen = 0;
    for (int32_t f = free_list; f != TS_NULL_PROXY && !r->failed; f = nodes[f].next) {
        if ((nodes[f].flags & TS_TREE_NODE_ALLOCATED) != 0 || ++free_seen > capacity - node_count) {
            ts_reader_fail(r, "a tree's free list is broken at node %d", (int)f);
        }
    }
    if (!r->failed && free_seen != capacity - node_count) {
        ts_reader_fail(r, "a tree's free list holds %d of its %d free nodes", (int)free_seen,
                       (int)(capacity - node_count));
    }
    if (!r->failed) {
        status = finish_tree(r, records, tree, extras);
    }
    ts_free(tree->allocator, extras, (size_t)capacity);
    if (status == TS_LOAD_OK && !ts_tree_validate(tree)) {
        ts_reader_fail(r, "a tree fails its checks (boxes, heights or flags)");
        status = TS_LOAD_INVALID;
    }
    return status;
}

/* Every node's box within the reach of a shape in a world: a fat box is
 * its shape's tight box (a body within TS_MAX_EXTENT, the shape within
 * its reach of the body's centre: ts_shape_reach) swept ahead by
 * TS_LOOK_AHEAD (4) times a step's move (at most TS_MAX_SPEED for
 * TS_MAX_TIME_STEP) and grown by TS_AABB_MARGIN, and an inner node's box
 * holds such boxes. A finite box of 1e38 m would overflow the trees' area
 * sums. */
static bool boxes_within_reach(ts_reader *r, const ts_records *records, const ts_broadphase *broadphase)
{
    float largest = 0.0f;
    for (int32_t i = 0; i < records->shape_ids.next_index; ++i) {
        const ts_shape *s = records->shapes + i;
        float reach = s->alive && s->proxy >= 0 ? ts_shape_reach(s) : 0.0f;
        largest = reach > largest ? reach : largest;
    }
    float bound = TS_MAX_EXTENT + largest + 4.0f * TS_MAX_SPEED * TS_MAX_TIME_STEP + TS_AABB_MARGIN;
    for (int t = 0; t < TS_TREE_COUNT; ++t) {
        const ts_dynamic_tree *tree = broadphase->trees + t;
        for (int32_t i = 0; i < tree->node_capacity; ++i) {
            const ts_aabb *box = &tree->nodes[i].aabb;
            if ((tree->nodes[i].flags & TS_TREE_NODE_ALLOCATED) != 0 &&
                (!ts_within_reach(box->lower, bound) || !ts_within_reach(box->upper, bound))) {
                return ts_reader_fail(r, "tree %d's node %d has a box beyond any shape's reach (%g m)", t, (int)i,
                                      (double)bound);
            }
        }
    }
    return true;
}

void ts_broadphase_save(ts_writer *w, const ts_records *records, const ts_broadphase *broadphase)
{
    for (int t = 0; t < TS_TREE_COUNT; ++t) {
        save_tree(w, records, broadphase->trees + t);
    }
    ts_put_varint(w, (uint64_t)broadphase->move_count);
    for (int32_t k = 0; k < broadphase->move_count; ++k) {
        ts_put_svarint(w, broadphase->move_buffer[k]);
    }
}

ts_load_status ts_broadphase_load(ts_reader *r, ts_records *records, ts_broadphase *broadphase)
{
    for (int t = 0; t < TS_TREE_COUNT; ++t) {
        ts_load_status status = load_tree(r, records, broadphase->trees + t, t);
        if (status != TS_LOAD_OK) {
            return status;
        }
    }
    /* every shape's proxy is a leaf of its tree naming it (the leaves checked the other way) */
    int32_t proxies[TS_TREE_COUNT] = {0, 0};
    for (int32_t i = 0; i < records->shape_ids.next_index; ++i) {
        const ts_shape *s = records->shapes + i;
        if (s->alive && s->proxy >= 0) {
            const ts_dynamic_tree *tree = broadphase->trees + s->tree;
            if (s->proxy >= tree->node_capacity || (tree->nodes[s->proxy].flags & TS_TREE_NODE_LEAF) == 0 ||
                tree->nodes[s->proxy].user_id != i) {
                ts_reader_fail(r, "shape %d's proxy %d is no leaf of its tree naming it", (int)i, (int)s->proxy);
                return TS_LOAD_INVALID;
            }
            /* the leaf's box is the shape's fat box (a crafted file that
             * moved one made NaN boxes in the next step: the fuzzer's find) */
            if (memcmp(&tree->nodes[s->proxy].aabb, &s->fat_aabb, sizeof(ts_aabb)) != 0) {
                ts_reader_fail(r, "shape %d's fat box is not its leaf's box", (int)i);
                return TS_LOAD_INVALID;
            }
            proxies[s->tree] += 1;
        }
    }
    if (proxies[0] != broadphase->trees[0].proxy_count || proxies[1] != broadphase->trees[1].proxy_count) {
        ts_reader_fail(r, "the trees' leaves and the shapes' proxies differ");
        return TS_LOAD_INVALID;
    }
    if (!boxes_within_reach(r, records, broadphase)) {
        return TS_LOAD_INVALID;
    }
    /* Not bounded by the shape count: the refit after a step leaves a place
     * (-1 when unused) per enlarged body and queues the bodies off its fast
     * path (hulls, several shapes) after them, and a shape destroyed between
     * steps leaves a -1 (a 5,120-hull convex_pile held 8,740 entries); the
     * bytes left bound it (one each at least). */
    int32_t moved = ts_get_count(r, INT32_MAX / 2, 1, "the move buffer's length");
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    if (!ts_array_reserve(&records->allocator, (void **)&broadphase->move_buffer, &broadphase->move_capacity, moved,
                          sizeof(int32_t))) {
        return TS_LOAD_NO_MEMORY;
    }
    int32_t queued = 0;
    for (int32_t k = 0; k < moved && !r->failed; ++k) {
        int32_t shape = ts_get_index(r, -1, records->shape_ids.next_index, "a moved shape");
        broadphase->move_buffer[k] = shape;
        if (shape >= 0 && !r->failed && (!records->shapes[shape].alive || !records->shapes[shape].in_move_buffer)) {
            ts_reader_fail(r, "the move buffer names shape %d, which is dead or not marked moved", (int)shape);
        }
        queued += shape >= 0 ? 1 : 0;
    }
    broadphase->move_count = moved;
    int32_t marked = 0;
    for (int32_t i = 0; i < records->shape_ids.next_index; ++i) {
        marked += records->shapes[i].alive && records->shapes[i].in_move_buffer ? 1 : 0;
    }
    if (!r->failed && marked != queued) {
        ts_reader_fail(r, "%d shapes are marked moved and %d are in the move buffer", (int)marked, (int)queued);
    }
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}

/* ---- events ---- */

static void put_pairs(ts_writer *w, const ts_shape_id *ids, int32_t count)
{
    ts_put_varint(w, (uint64_t)count);
    for (int32_t k = 0; k < 2 * count; ++k) {
        ts_put_varint(w, (uint64_t)ids[k].index1);
        ts_put_varint(w, ids[k].generation);
    }
}

/* count pairs of shape ids into *data (grown), with this world's slot. */
static ts_load_status get_pairs(ts_reader *r, const ts_records *records, void **data, int32_t *capacity,
                                int32_t *count)
{
    int32_t n = ts_get_count(r, TS_MAX_OBJECTS, 4, "an event count");
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    /* begin and end events have the same layout: two shape ids */
    if (!ts_array_reserve(&records->allocator, data, capacity, n, 2 * sizeof(ts_shape_id))) {
        return TS_LOAD_NO_MEMORY;
    }
    ts_shape_id *ids = *data;
    for (int32_t k = 0; k < 2 * n && !r->failed; ++k) {
        int32_t index1 = ts_get_index(r, 1, records->shape_ids.next_index + 1, "an event's shape");
        uint64_t generation = ts_get_varint(r);
        if (generation > UINT32_MAX) {
            ts_reader_fail(r, "an event's shape generation is %llu", (unsigned long long)generation);
        }
        ids[k] = (ts_shape_id){index1, records->world_index, records->world_generation, (uint32_t)generation};
    }
    *count = n;
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}

_Static_assert(sizeof(ts_contact_begin_event) == 2 * sizeof(ts_shape_id), "an event is two shape ids");
_Static_assert(sizeof(ts_contact_end_event) == 2 * sizeof(ts_shape_id), "an event is two shape ids");

void ts_contact_events_save(ts_writer *w, const ts_contact_events_buffer *e)
{
    put_pairs(w, (const ts_shape_id *)e->begin_pending, e->begin_pending_count);
    put_pairs(w, (const ts_shape_id *)e->begin_published, e->begin_published_count);
    put_pairs(w, (const ts_shape_id *)e->end_pending, e->end_pending_count);
    put_pairs(w, (const ts_shape_id *)e->end_published, e->end_published_count);
}

ts_load_status ts_contact_events_load(ts_reader *r, const ts_records *records, ts_contact_events_buffer *e)
{
    ts_load_status status = get_pairs(r, records, (void **)&e->begin_pending, &e->begin_pending_capacity,
                                      &e->begin_pending_count);
    if (status == TS_LOAD_OK) {
        status = get_pairs(r, records, (void **)&e->begin_published, &e->begin_published_capacity,
                           &e->begin_published_count);
    }
    if (status == TS_LOAD_OK) {
        status = get_pairs(r, records, (void **)&e->end_pending, &e->end_pending_capacity, &e->end_pending_count);
    }
    if (status == TS_LOAD_OK) {
        status =
            get_pairs(r, records, (void **)&e->end_published, &e->end_published_capacity, &e->end_published_count);
    }
    return status;
}

/* ---- after the contacts ---- */

ts_load_status ts_collision_rebuild(ts_records *records, ts_collision *collision)
{
    /* The room a step expects for its events and lists: one begin or end
     * event per contact that exists, and the pending ones. Reserved first,
     * so that nothing (the contact store, the pair set) is grown and copied
     * after it is filled. */
    int32_t live = records->contact_store.table.count;
    int32_t pending = collision->events.begin_pending_count + collision->events.end_pending_count;
    if (!ts_key_map_reserve(&collision->pairs, &records->allocator, live + pending) ||
        !ts_contacts_reserve(records, collision, pending)) {
        return TS_LOAD_NO_MEMORY;
    }
    enum { AHEAD = 16 }; /* keys land all over a set larger than the cache: ask for their lines early */
    for (int32_t i = 0; i < records->contact_ids.next_index; ++i) {
        const ts_contact *c = records->contacts + i;
        const ts_contact *next = c + AHEAD;
        if (i + AHEAD < records->contact_ids.next_index && next->alive) {
            ts_key_map_prefetch(&collision->pairs, ts_pair_key(next->shape_a, next->shape_b));
        }
        if (c->alive) {
            uint64_t key = ts_pair_key(c->shape_a, c->shape_b);
            if (ts_key_map_find(&collision->pairs, key) != -1) {
                return TS_LOAD_INVALID; /* the caller names it: two contacts of one pair */
            }
            ts_key_map_add(&collision->pairs, key, i);
        }
    }
    return TS_LOAD_OK;
}

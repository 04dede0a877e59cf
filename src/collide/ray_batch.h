/* Batched ray casts: many rays against a wide tree built for the batch.
 *
 * The broadphase's binary trees are collapsed into one tree of 8-wide nodes
 * (each holds its children's boxes lane by lane, so one ray tests all eight
 * in one slab test) whose leaves are packets of up to 8 shapes, stored lane
 * by lane too (centre, axes, size, proxy box), so that one ray tests a
 * packet's shapes of one type in one lane test (ray_lanes.h). A packet
 * lane's box is the proxy's (fat) box, so the proxy-box rule gives exactly
 * the single-ray queries' hits. A wide child's box is tighter than the
 * binary node's: the box around its shapes at their poses (not their fat
 * boxes), grown by a rounding pad. Every hit a shape can give lies in it,
 * so no hit is lost and the cut of nodes past the best hit still gives the
 * single-ray queries' hits; a ray enters far fewer of them in a dense pile
 * (fat boxes overlap their neighbours by twice TS_AABB_MARGIN).
 *
 * Shape types: a packet keeps a lane mask per type, and the kernel runs
 * each present type's lane test over the packet (ray_batch_wide.c:
 * test_type, one case per type). A new type whose data fits the rows adds
 * its rows' meaning here and a case there; one whose data does not (a mesh)
 * reads its own data through the lane's shape index, lane by lane.
 *
 * Built in O(shapes) on the calling thread; the rays then run in parallel
 * blocks, each ray writing only its own hit. The kernels are built at
 * widths 1, 4 and 8 (width 16 runs the 8-lane kernel: a node has 8 lanes). */
#ifndef TS_COLLIDE_RAY_BATCH_H
#define TS_COLLIDE_RAY_BATCH_H

#include "collide/broadphase.h"
#include "collide/ray.h"
#include "tessera/query.h"

#define TS_RAY_LANES 8

/* The most stack entries a ray's walk needs is 7 per level plus 8; a wide
 * tree deeper than this (only from a degenerate binary tree) is cast ray
 * by ray through the binary trees instead (same hits). */
#define TS_RAY_BATCH_STACK 1024
#define TS_RAY_BATCH_MAX_DEPTH ((TS_RAY_BATCH_STACK - TS_RAY_LANES) / (TS_RAY_LANES - 1))

/* child[l] >= 0: wide node; < 0: packet -1 - child[l]. Lanes >= count are unused. */
typedef struct ts_ray_node {
    float lower[3][TS_RAY_LANES];
    float upper[3][TS_RAY_LANES];
    int32_t child[TS_RAY_LANES];
    int32_t count;
} ts_ray_node;

/* Up to 8 shapes. size: box half extents (x, y, z); sphere (radius); capsule (half height, radius). */
typedef struct ts_ray_packet {
    float center[3][TS_RAY_LANES];
    float axis[9][TS_RAY_LANES]; /* column j of the rotation: rows 3j .. 3j + 2 */
    float size[3][TS_RAY_LANES];
    float lower[3][TS_RAY_LANES]; /* the proxy's box */
    float upper[3][TS_RAY_LANES];
    int32_t shape[TS_RAY_LANES];
    uint8_t type_lanes[TS_SHAPE_TYPE_COUNT]; /* bit l: lane l is of this type */
    uint8_t types;                           /* bit t: some lane is of type t */
    int32_t count;
} ts_ray_packet;

/* The public ids of a packet's shapes, apart from the packet: read once
 * per ray (for its hit), not per test. */
typedef struct ts_ray_packet_ids {
    ts_shape_id shape[TS_RAY_LANES];
    ts_body_id body[TS_RAY_LANES];
} ts_ray_packet_ids;

typedef struct ts_ray_bvh {
    ts_ray_node *nodes;
    ts_ray_packet *packets;
    ts_ray_packet_ids *ids; /* per packet */
    int32_t node_count, node_capacity;
    int32_t packet_count, packet_capacity, ids_capacity;
    int32_t root;  /* a node, or -1 when the trees are empty */
    int32_t depth; /* levels of nodes */
    int32_t *leaf_counts[TS_TREE_COUNT]; /* scratch: leaves below each binary node */
    int32_t leaf_count_capacity[TS_TREE_COUNT];
    ts_aabb *tight[TS_TREE_COUNT]; /* scratch: each binary node's box around its shapes as they are (not fat) */
    int32_t tight_capacity[TS_TREE_COUNT];
} ts_ray_bvh;

/* Builds the wide tree of the shapes the filter's bits pass. Returns
 * false when out of memory (free it either way with ts_ray_bvh_free). */
bool ts_ray_bvh_build(ts_ray_bvh *bvh, const ts_records *records, const ts_broadphase *broadphase,
                      const ts_query_filter *filter, const ts_allocator *allocator);
void ts_ray_bvh_free(ts_ray_bvh *bvh, const ts_allocator *allocator);

/* One batch: the rays (checked by the caller) and where their hits go. */
typedef struct ts_ray_batch {
    const ts_ray_bvh *bvh;
    const ts_records *records;
    const ts_query_filter *filter;
    const ts_vec3 *origins;
    const ts_vec3 *directions;
    const float *lengths;
    ts_cast_hit *hits;
} ts_ray_batch;

/* Casts rays [begin, end) with the kernel of the given width (1, 4, 8 or 16). */
void ts_ray_batch_cast(const ts_ray_batch *batch, int width, int32_t begin, int32_t end);

/* The kernels, one per built width (ray_batch_wide.c). */
void ts_ray_batch_cast_w1(const ts_ray_batch *batch, int32_t begin, int32_t end);
void ts_ray_batch_cast_w4(const ts_ray_batch *batch, int32_t begin, int32_t end);
void ts_ray_batch_cast_w8(const ts_ray_batch *batch, int32_t begin, int32_t end);

#endif

/* Triangle meshes: checking a definition, building the block (the tree by
 * the surface area heuristic, the edge flags), and the tree query (see
 * mesh.h). Setup code except ts_mesh_query, which the narrowphase runs. */
#include "collide/mesh.h"

#include "base/error.h"
#include "base/math3.h"

#include <stdlib.h>
#include <float.h>
#include <string.h>

/* Bins of the surface area heuristic along the split axis. */
#define MESH_BINS 16
/* Below this depth the build splits by the heuristic; deeper (a degenerate
 * spread of triangles) it halves, so the query's stack always suffices. */
#define MESH_SAH_DEPTH 40
#define MESH_STACK 128

ts_result ts_mesh_check(const ts_mesh_def *def, const char *fn)
{
    if (def == NULL) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "mesh is NULL");
    }
    if (def->vertices == NULL || def->indices == NULL) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "mesh->%s is NULL", def->vertices == NULL ? "vertices" : "indices");
    }
    if (def->vertex_count < 3) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "mesh->vertex_count is %d (a mesh needs at least 3)",
                       def->vertex_count);
    }
    if (def->triangle_count < 1 || def->triangle_count > (1 << 26)) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "mesh->triangle_count is %d (must be in 1..%d)", def->triangle_count,
                       1 << 26);
    }
    for (int i = 0; i < def->vertex_count; ++i) {
        if (!ts_vec3_is_finite(def->vertices[i])) {
            return ts_fail(TS_ERROR_NOT_FINITE, fn, "mesh->vertices[%d] has a NaN or infinite component", i);
        }
    }
    for (int t = 0; t < def->triangle_count; ++t) {
        const int32_t *v = def->indices + 3 * t;
        for (int k = 0; k < 3; ++k) {
            if (v[k] < 0 || v[k] >= def->vertex_count) {
                return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                               "mesh->indices[%d] (triangle %d) is %d: out of range [0, %d)", 3 * t + k, t, v[k],
                               def->vertex_count);
            }
        }
        ts_vec3 a = def->vertices[v[0]], b = def->vertices[v[1]], c = def->vertices[v[2]];
        ts_vec3 n = ts_cross(ts_sub(b, a), ts_sub(c, a));
        float scale = ts_length_sq(ts_sub(b, a)) + ts_length_sq(ts_sub(c, a)) + ts_length_sq(ts_sub(c, b));
        /* |n| = 2 area; relative to the edges' squares so that units do not matter */
        if (!(ts_length_sq(n) > 1.0e-12f * scale * scale) || v[0] == v[1] || v[1] == v[2] || v[0] == v[2]) {
            return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                           "triangle %d (vertices %d %d %d) has zero area (repeated or collinear vertices)", t, v[0],
                           v[1], v[2]);
        }
    }
    return TS_OK;
}

/* ---------------------------------------------------------------- the block */

typedef struct mesh_layout {
    size_t vertices, triangles, ids, flags, nodes, total;
} mesh_layout;

static size_t round64(size_t n) { return (n + 63u) & ~(size_t)63u; }

static mesh_layout layout_of(int vertex_count, int triangle_count)
{
    mesh_layout l;
    size_t t = (size_t)triangle_count;
    l.vertices = round64(sizeof(ts_mesh_data));
    l.triangles = l.vertices + round64((size_t)vertex_count * sizeof(ts_vec3));
    l.ids = l.triangles + round64(3 * t * sizeof(int32_t));
    l.flags = l.ids + round64(t * sizeof(int32_t));
    l.nodes = l.flags + round64(t);
    l.total = l.nodes + round64((2 * t) * sizeof(ts_mesh_node));
    return l;
}

size_t ts_mesh_block_size(int vertex_count, int triangle_count) { return layout_of(vertex_count, triangle_count).total; }

/* n bytes of flags (rounded to int32s), then 3 n edge entries of 3 int32s */
size_t ts_mesh_scratch_size(int triangle_count) { return ((size_t)triangle_count * 10u + 8u) * sizeof(int32_t); }

bool ts_mesh_edge_is_active(ts_vec3 a, ts_vec3 b, ts_vec3 c, ts_vec3 d)
{
    ts_vec3 n = ts_normalize(ts_cross(ts_sub(b, a), ts_sub(c, a)));
    ts_vec3 m = ts_normalize(ts_cross(ts_sub(a, b), ts_sub(d, b)));
    bool outward = ts_dot(n, ts_sub(d, a)) < 0.0f; /* the neighbour folds down: a convex crease */
    return outward && ts_length(ts_cross(n, m)) > TS_MESH_FLAT_SIN;
}

/* An edge of the input: its two vertices, lower first, and which triangle
 * edge it is (3 t + k). */
typedef struct edge_entry {
    int32_t lo, hi, where;
} edge_entry;

static int compare_edges(const void *pa, const void *pb)
{
    const edge_entry *a = pa, *b = pb;
    if (a->lo != b->lo) {
        return a->lo < b->lo ? -1 : 1;
    }
    if (a->hi != b->hi) {
        return a->hi < b->hi ? -1 : 1;
    }
    return a->where < b->where ? -1 : (a->where > b->where ? 1 : 0);
}

/* Flags per input triangle: an edge is active unless exactly two triangles
 * share it, in opposite directions, and their crease is flat or inward. */
static void compute_edge_flags(const ts_mesh_def *def, uint8_t *flags, edge_entry *edges)
{
    int n = 3 * def->triangle_count;
    for (int t = 0; t < def->triangle_count; ++t) {
        flags[t] = 7u;
        for (int k = 0; k < 3; ++k) {
            int32_t a = def->indices[3 * t + k], b = def->indices[3 * t + (k + 1) % 3];
            edges[3 * t + k] = (edge_entry){a < b ? a : b, a < b ? b : a, 3 * t + k};
        }
    }
    qsort(edges, (size_t)n, sizeof(edge_entry), compare_edges);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && edges[j].lo == edges[i].lo && edges[j].hi == edges[i].hi) {
            ++j;
        }
        if (j - i == 2) {
            int t0 = edges[i].where / 3, k0 = edges[i].where % 3;
            int t1 = edges[i + 1].where / 3, k1 = edges[i + 1].where % 3;
            const int32_t *v0 = def->indices + 3 * t0, *v1 = def->indices + 3 * t1;
            bool opposite = v0[k0] == v1[(k1 + 1) % 3];
            if (opposite) {
                ts_vec3 a = def->vertices[v0[k0]], b = def->vertices[v0[(k0 + 1) % 3]];
                ts_vec3 c = def->vertices[v0[(k0 + 2) % 3]], d = def->vertices[v1[(k1 + 2) % 3]];
                if (!ts_mesh_edge_is_active(a, b, c, d)) {
                    flags[t0] &= (uint8_t)~(1u << k0);
                    flags[t1] &= (uint8_t)~(1u << k1);
                }
            }
        }
        i = j;
    }
}

/* ---------------------------------------------------------------- the tree */

static ts_aabb triangle_box(const ts_mesh_def *def, int32_t t)
{
    const int32_t *v = def->indices + 3 * t;
    ts_vec3 a = def->vertices[v[0]], b = def->vertices[v[1]], c = def->vertices[v[2]];
    return (ts_aabb){ts_min3(a, ts_min3(b, c)), ts_max3(a, ts_max3(b, c))};
}

static float box_area(ts_aabb b)
{
    ts_vec3 d = ts_sub(b.upper, b.lower);
    return d.x * d.y + d.y * d.z + d.z * d.x;
}

static ts_vec3 centroid_of(const ts_mesh_def *def, int32_t t)
{
    ts_aabb b = triangle_box(def, t);
    return ts_scale(0.5f, ts_add(b.lower, b.upper));
}

/* Splits order[begin, end) in two; returns the first index of the second
 * part. By the surface area heuristic over MESH_BINS bins of the
 * centroids along their widest axis, or in halves. */
static int split(const ts_mesh_def *def, int32_t *order, int begin, int end, bool halve)
{
    ts_vec3 lo = centroid_of(def, order[begin]), hi = lo;
    for (int i = begin + 1; i < end; ++i) {
        ts_vec3 c = centroid_of(def, order[i]);
        lo = ts_min3(lo, c);
        hi = ts_max3(hi, c);
    }
    ts_vec3 ext = ts_sub(hi, lo);
    int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : (ext.y >= ext.z ? 1 : 2);
    float width = ts_component(ext, axis);
    int mid = (begin + end) / 2;
    if (halve || !(width > 0.0f)) {
        return mid;
    }
    int bin_count[MESH_BINS] = {0};
    ts_aabb bin_box[MESH_BINS];
    float scale = MESH_BINS / width;
    float base = ts_component(lo, axis);
    for (int i = begin; i < end; ++i) {
        int b = (int)((ts_component(centroid_of(def, order[i]), axis) - base) * scale);
        b = b < 0 ? 0 : (b >= MESH_BINS ? MESH_BINS - 1 : b);
        ts_aabb tb = triangle_box(def, order[i]);
        bin_box[b] = bin_count[b] == 0 ? tb : ts_aabb_union(bin_box[b], tb);
        bin_count[b] += 1;
    }
    /* cost of splitting after bin s: area(left) count(left) + area(right) count(right) */
    float right_area[MESH_BINS];
    int right_count[MESH_BINS];
    ts_aabb acc = {{0, 0, 0}, {0, 0, 0}};
    int count = 0;
    for (int b = MESH_BINS - 1; b > 0; --b) {
        if (bin_count[b] > 0) {
            acc = count == 0 ? bin_box[b] : ts_aabb_union(acc, bin_box[b]);
            count += bin_count[b];
        }
        right_area[b] = count > 0 ? box_area(acc) : 0.0f;
        right_count[b] = count;
    }
    float best = FLT_MAX;
    int best_split = -1;
    count = 0;
    for (int b = 0; b + 1 < MESH_BINS; ++b) {
        if (bin_count[b] > 0) {
            acc = count == 0 ? bin_box[b] : ts_aabb_union(acc, bin_box[b]);
            count += bin_count[b];
        }
        if (count == 0 || right_count[b + 1] == 0) {
            continue;
        }
        float cost = box_area(acc) * (float)count + right_area[b + 1] * (float)right_count[b + 1];
        if (cost < best) {
            best = cost;
            best_split = b;
        }
    }
    if (best_split < 0) {
        return mid;
    }
    /* partition: bins <= best_split first (stable order is not needed; the
     * walk is deterministic) */
    int i = begin, j = end - 1;
    while (i <= j) {
        int b = (int)((ts_component(centroid_of(def, order[i]), axis) - base) * scale);
        b = b < 0 ? 0 : (b >= MESH_BINS ? MESH_BINS - 1 : b);
        if (b <= best_split) {
            ++i;
        } else {
            int32_t tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
            --j;
        }
    }
    return (i == begin || i == end) ? mid : i;
}

typedef struct build_item {
    int node, begin, end, depth;
} build_item;

static int build_tree(const ts_mesh_def *def, int32_t *order, ts_mesh_node *nodes)
{
    int node_count = 1;
    build_item stack[MESH_STACK];
    int top = 0;
    stack[top++] = (build_item){0, 0, def->triangle_count, 0};
    while (top > 0) {
        build_item it = stack[--top];
        ts_aabb box = triangle_box(def, order[it.begin]);
        for (int i = it.begin + 1; i < it.end; ++i) {
            box = ts_aabb_union(box, triangle_box(def, order[i]));
        }
        ts_mesh_node *node = &nodes[it.node];
        node->box = box;
        if (it.end - it.begin <= TS_MESH_LEAF_SIZE) {
            node->index = it.begin;
            node->count = it.end - it.begin;
            continue;
        }
        int m = split(def, order, it.begin, it.end, it.depth >= MESH_SAH_DEPTH);
        node->index = node_count;
        node->count = 0;
        node_count += 2;
        stack[top++] = (build_item){node->index + 1, m, it.end, it.depth + 1};
        stack[top++] = (build_item){node->index, it.begin, m, it.depth + 1};
    }
    return node_count;
}

const ts_mesh_data *ts_mesh_write(const ts_mesh_def *def, void *memory, int32_t *scratch)
{
    mesh_layout l = layout_of(def->vertex_count, def->triangle_count);
    char *base = memory;
    memset(base, 0, l.total);
    ts_mesh_data *mesh = (ts_mesh_data *)base;
    ts_vec3 *vertices = (ts_vec3 *)(base + l.vertices);
    int32_t *triangles = (int32_t *)(base + l.triangles);
    int32_t *ids = (int32_t *)(base + l.ids);
    uint8_t *flags = (uint8_t *)(base + l.flags);
    ts_mesh_node *nodes = (ts_mesh_node *)(base + l.nodes);
    int n = def->triangle_count;

    /* edge flags per input triangle, into `flags` for now */
    uint8_t *input_flags = (uint8_t *)scratch;                   /* n bytes */
    edge_entry *edges = (edge_entry *)(scratch + (n + 3) / 4 + 1); /* 3 n entries */
    compute_edge_flags(def, input_flags, edges);

    int32_t *order = (int32_t *)edges; /* the edges are done with */
    for (int t = 0; t < n; ++t) {
        order[t] = t;
    }
    mesh->node_count = build_tree(def, order, nodes);
    for (int t = 0; t < n; ++t) {
        int32_t src = order[t];
        for (int k = 0; k < 3; ++k) {
            triangles[3 * t + k] = def->indices[3 * src + k];
        }
        ids[t] = src;
        flags[t] = input_flags[src];
    }
    memcpy(vertices, def->vertices, (size_t)def->vertex_count * sizeof(ts_vec3));
    float radius_sq = 0.0f;
    for (int i = 0; i < def->vertex_count; ++i) {
        radius_sq = radius_sq > ts_length_sq(vertices[i]) ? radius_sq : ts_length_sq(vertices[i]);
    }
    mesh->vertex_count = def->vertex_count;
    mesh->triangle_count = n;
    mesh->bounds = nodes[0].box;
    mesh->radius = sqrtf(radius_sq);
    mesh->vertices = vertices;
    mesh->triangles = triangles;
    mesh->triangle_ids = ids;
    mesh->edge_flags = flags;
    mesh->nodes = nodes;
    return mesh;
}

/* ---------------------------------------------------------------- the query */

void ts_mesh_query(const ts_mesh_data *mesh, ts_aabb box, ts_triangle_visit_fn *visit, void *context)
{
    int32_t stack[MESH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const ts_mesh_node *node = &mesh->nodes[stack[--top]];
        if (!ts_aabb_overlaps(node->box, box)) {
            continue;
        }
        if (node->count == 0) {
            if (top + 2 > MESH_STACK) {
                continue; /* cannot happen: the build halves past depth MESH_SAH_DEPTH */
            }
            stack[top++] = node->index + 1;
            stack[top++] = node->index;
            continue;
        }
        for (int t = node->index; t < node->index + node->count; ++t) {
            ts_triangle tri;
            const int32_t *v = mesh->triangles + 3 * t;
            tri.v[0] = mesh->vertices[v[0]];
            tri.v[1] = mesh->vertices[v[1]];
            tri.v[2] = mesh->vertices[v[2]];
            ts_aabb tb = {ts_min3(tri.v[0], ts_min3(tri.v[1], tri.v[2])), ts_max3(tri.v[0], ts_max3(tri.v[1], tri.v[2]))};
            if (!ts_aabb_overlaps(tb, box)) {
                continue;
            }
            tri.edge_flags = mesh->edge_flags[t];
            tri.id = mesh->triangle_ids[t];
            if (!visit(context, &tri)) {
                return;
            }
        }
    }
}

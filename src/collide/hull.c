/* Hull support queries, the packed hull block, and boxes as hulls (see
 * hull.h). */
#include "collide/hull.h"

#include "collide/hull_build.h"

#include <float.h>
#include <simde/x86/sse.h>
#include <string.h>

/* Four vertices at a time: per lane the largest d . v and its index (the
 * first on ties: a later vertex must be strictly larger), then the lanes
 * reduced with the same rule, so the result is the scalar loop's. */
int ts_hull_support(const ts_hull_data *hull, ts_vec3 d)
{
    simde__m128 dx = simde_mm_set1_ps(d.x), dy = simde_mm_set1_ps(d.y), dz = simde_mm_set1_ps(d.z);
    simde__m128 best = simde_mm_set1_ps(-FLT_MAX);
    simde__m128 best_index = simde_mm_setzero_ps();
    simde__m128 index = simde_mm_setr_ps(0.0f, 1.0f, 2.0f, 3.0f);
    simde__m128 four = simde_mm_set1_ps(4.0f);
    for (int i = 0; i < hull->padded_count; i += 4) {
        simde__m128 x = simde_mm_loadu_ps(hull->vx + i);
        simde__m128 y = simde_mm_loadu_ps(hull->vy + i);
        simde__m128 z = simde_mm_loadu_ps(hull->vz + i);
        simde__m128 v = simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(dx, x), simde_mm_mul_ps(dy, y)),
                                        simde_mm_mul_ps(dz, z));
        simde__m128 better = simde_mm_cmpgt_ps(v, best);
        best = simde_mm_or_ps(simde_mm_and_ps(better, v), simde_mm_andnot_ps(better, best));
        best_index = simde_mm_or_ps(simde_mm_and_ps(better, index), simde_mm_andnot_ps(better, best_index));
        index = simde_mm_add_ps(index, four);
    }
    float value[4], where[4];
    simde_mm_storeu_ps(value, best);
    simde_mm_storeu_ps(where, best_index);
    int lane = 0;
    for (int l = 1; l < 4; ++l) {
        if (value[l] > value[lane] || (value[l] == value[lane] && where[l] < where[lane])) {
            lane = l;
        }
    }
    return (int)where[lane];
}

/* min d . v = -max (-d) . v exactly: negation commutes with every rounding. */
float ts_hull_min_dot(const ts_hull_data *hull, ts_vec3 d, int *index)
{
    int i = ts_hull_support(hull, ts_neg(d));
    if (index != NULL) {
        *index = i;
    }
    return ts_dot(d, hull->vertices[i]);
}

/* ---------------------------------------------------------------- the block */

static size_t round16(size_t n) { return (n + 15u) & ~(size_t)15u; }

typedef struct block_layout {
    size_t vertices, vx, vy, vz, planes, face_first, edges, edge_columns, total;
} block_layout;

static block_layout layout_of(const ts_hull_topology *t)
{
    size_t padded = (size_t)((t->vertex_count + 3) & ~3);
    block_layout l;
    l.vertices = round16(sizeof(ts_hull_data));
    l.vx = l.vertices + round16((size_t)t->vertex_count * sizeof(ts_vec3));
    l.vy = l.vx + padded * sizeof(float);
    l.vz = l.vy + padded * sizeof(float);
    l.planes = l.vz + padded * sizeof(float);
    l.face_first = l.planes + round16((size_t)t->face_count * sizeof(ts_plane));
    l.edges = l.face_first + round16((size_t)t->face_count * sizeof(uint16_t));
    l.edge_columns = l.edges + round16((size_t)t->edge_count * sizeof(ts_hull_edge));
    size_t edge_padded = (size_t)((t->edge_count / 2 + 3) & ~3);
    l.total = (l.edge_columns + TS_EDGE_COLUMNS * edge_padded * sizeof(float) + 63u) & ~(size_t)63u;
    return l;
}

size_t ts_hull_block_size(const ts_hull_topology *topology) { return layout_of(topology).total; }

const ts_hull_data *ts_hull_write(const ts_hull_topology *t, uint64_t key, void *memory)
{
    block_layout l = layout_of(t);
    char *base = memory;
    memset(base, 0, l.total);
    ts_hull_data *h = (ts_hull_data *)base;
    ts_vec3 *vertices = (ts_vec3 *)(base + l.vertices);
    float *vx = (float *)(base + l.vx), *vy = (float *)(base + l.vy), *vz = (float *)(base + l.vz);
    ts_plane *planes = (ts_plane *)(base + l.planes);
    uint16_t *face_first = (uint16_t *)(base + l.face_first);
    ts_hull_edge *edges = (ts_hull_edge *)(base + l.edges);
    h->vertex_count = t->vertex_count;
    h->face_count = t->face_count;
    h->edge_count = t->edge_count;
    h->padded_count = (t->vertex_count + 3) & ~3;
    h->key = key;
    ts_vec3 lower = t->vertices[0], upper = t->vertices[0];
    float radius_sq = 0.0f;
    for (int i = 0; i < h->padded_count; ++i) {
        ts_vec3 v = t->vertices[i < t->vertex_count ? i : 0]; /* padding repeats vertex 0 */
        vx[i] = v.x;
        vy[i] = v.y;
        vz[i] = v.z;
        if (i < t->vertex_count) {
            vertices[i] = v;
            lower = ts_min3(lower, v);
            upper = ts_max3(upper, v);
            radius_sq = radius_sq > ts_length_sq(v) ? radius_sq : ts_length_sq(v);
        }
    }
    memcpy(planes, t->planes, (size_t)t->face_count * sizeof(ts_plane));
    memcpy(face_first, t->face_first, (size_t)t->face_count * sizeof(uint16_t));
    memcpy(edges, t->edges, (size_t)t->edge_count * sizeof(ts_hull_edge));
    h->bounds = (ts_aabb){lower, upper};
    h->radius = sqrtf(radius_sq);
    ts_vec3 middle = ts_scale(0.5f, ts_add(lower, upper));
    float center_sq = 0.0f;
    for (int i = 0; i < t->vertex_count; ++i) {
        float d = ts_length_sq(ts_sub(t->vertices[i], middle));
        center_sq = center_sq > d ? center_sq : d;
    }
    h->center_radius = sqrtf(center_sq);
    ts_hull_mass_properties(t, &h->volume, &h->centroid, h->inertia);
    float inner = FLT_MAX;
    for (int f = 0; f < t->face_count; ++f) {
        float d = t->planes[f].offset - ts_dot(t->planes[f].normal, h->centroid);
        inner = inner < d ? inner : d;
    }
    h->inner_radius = inner;
    h->vertices = vertices;
    h->vx = vx;
    h->vy = vy;
    h->vz = vz;
    h->planes = planes;
    h->face_first = face_first;
    h->edges = edges;
    h->edge_padded = (t->edge_count / 2 + 3) & ~3;
    float *columns = (float *)(base + l.edge_columns);
    ts_hull_fill_edge_columns(h, columns);
    h->edge_columns = columns;
    return h;
}

void ts_hull_fill_edge_columns(const ts_hull_data *h, float *columns)
{
    int n = h->edge_padded;
    for (int k = 0; k < n; ++k) {
        float v[TS_EDGE_COLUMNS] = {0.0f};
        if (k < h->edge_count / 2) {
            const ts_hull_edge *e = &h->edges[2 * k];
            const ts_hull_edge *tw = &h->edges[2 * k + 1];
            ts_vec3 u = h->planes[e->face].normal, w = h->planes[tw->face].normal;
            ts_vec3 b = ts_cross(w, u);
            ts_vec3 p = h->vertices[e->origin];
            ts_vec3 d = ts_sub(h->vertices[tw->origin], p);
            ts_vec3 all[5] = {u, w, b, p, d};
            for (int j = 0; j < 5; ++j) {
                v[3 * j] = all[j].x;
                v[3 * j + 1] = all[j].y;
                v[3 * j + 2] = all[j].z;
            }
        }
        for (int c = 0; c < TS_EDGE_COLUMNS; ++c) {
            columns[c * n + k] = v[c];
        }
    }
}

/* ---------------------------------------------------------------- boxes */

/* Corner i of a box has signs (bit 0: x, bit 1: y, bit 2: z; set = +).
 * Faces +x -x +y -y +z -z (box face numbering of narrowphase.h), each loop
 * counter-clockwise seen from outside; half-edge 2k and 2k + 1 are twins. */
static const ts_hull_edge box_edges[24] = {
    {2, 1, 1, 0},   {21, 0, 3, 5},  {4, 3, 3, 0},   {18, 2, 7, 2},  {6, 5, 7, 0},   {17, 4, 5, 4},
    {0, 7, 5, 0},   {22, 6, 1, 3},  {10, 9, 0, 1},  {20, 8, 4, 3},  {12, 11, 4, 1}, {23, 10, 6, 4},
    {14, 13, 6, 1}, {16, 12, 2, 2}, {8, 15, 2, 1},  {19, 14, 0, 5}, {3, 17, 6, 2},  {11, 16, 7, 4},
    {13, 19, 3, 2}, {1, 18, 2, 5},  {7, 21, 0, 3},  {15, 20, 1, 5}, {9, 23, 5, 3},  {5, 22, 4, 4},
};
static const uint16_t box_face_first[6] = {0, 8, 13, 20, 23, 15};

void ts_make_box_hull(ts_vec3 half, ts_box_hull *out)
{
    for (int i = 0; i < 8; ++i) {
        ts_vec3 v = {(i & 1) ? half.x : -half.x, (i & 2) ? half.y : -half.y, (i & 4) ? half.z : -half.z};
        out->vertices[i] = v;
        out->vx[i] = v.x;
        out->vy[i] = v.y;
        out->vz[i] = v.z;
    }
    const float h[3] = {half.x, half.y, half.z};
    for (int f = 0; f < 6; ++f) {
        float n[3] = {0.0f, 0.0f, 0.0f};
        n[f / 2] = (f & 1) ? -1.0f : 1.0f;
        out->planes[f] = (ts_plane){{n[0], n[1], n[2]}, h[f / 2]};
    }
    ts_hull_data *hull = &out->hull;
    hull->vertex_count = 8;
    hull->face_count = 6;
    hull->edge_count = 24;
    hull->padded_count = 8;
    hull->bounds = (ts_aabb){ts_neg(half), half};
    hull->radius = ts_length(half);
    float inner = h[0] < h[1] ? h[0] : h[1];
    hull->inner_radius = inner < h[2] ? inner : h[2];
    hull->volume = 8.0f * h[0] * h[1] * h[2];
    hull->centroid = ts_v3(0.0f, 0.0f, 0.0f);
    for (int k = 0; k < 6; ++k) {
        hull->inertia[k] = 0.0f; /* not read: a box's mass comes from ts_box_mass */
    }
    hull->center_radius = hull->radius;
    hull->key = 0;
    hull->vertices = out->vertices;
    hull->vx = out->vx;
    hull->vy = out->vy;
    hull->vz = out->vz;
    hull->planes = out->planes;
    hull->face_first = box_face_first;
    hull->edges = box_edges;
    hull->edge_padded = 12;
    ts_hull_fill_edge_columns(hull, out->edge_columns);
    hull->edge_columns = out->edge_columns;
}

/* Heightfields: checking a definition, the block with its per-cell edge
 * flags, triangles by id and the query over cells (see heightfield.h). */
#include "collide/heightfield.h"

#include "base/error.h"
#include "base/math3.h"

#include <float.h>
#include <string.h>

#define HF_MAX_CELLS (1 << 26)

ts_result ts_heightfield_check(const ts_heightfield_def *def, const char *fn)
{
    if (def == NULL) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "heightfield is NULL");
    }
    if (def->heights == NULL) {
        return ts_fail(TS_ERROR_NULL_POINTER, fn, "heightfield->heights is NULL");
    }
    if (def->count_x < 2 || def->count_z < 2) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn,
                       "heightfield->count_x and count_z are %d and %d (each must be at least 2)", def->count_x,
                       def->count_z);
    }
    if ((int64_t)(def->count_x - 1) * (int64_t)(def->count_z - 1) > HF_MAX_CELLS) {
        return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "heightfield of %d x %d vertices has more than %d cells",
                       def->count_x, def->count_z, HF_MAX_CELLS);
    }
    const float s[3] = {def->scale.x, def->scale.y, def->scale.z};
    const char *names[3] = {"heightfield->scale.x", "heightfield->scale.y", "heightfield->scale.z"};
    for (int k = 0; k < 3; ++k) {
        if (!ts_is_finite(s[k])) {
            return ts_fail(TS_ERROR_NOT_FINITE, fn, "%s is %g (must be finite)", names[k], (double)s[k]);
        }
        if (!(s[k] > 0.0f)) {
            return ts_fail(TS_ERROR_OUT_OF_RANGE, fn, "%s is %g (must be > 0)", names[k], (double)s[k]);
        }
    }
    for (int i = 0; i < def->count_x * def->count_z; ++i) {
        if (!ts_is_finite(def->heights[i]) || !ts_is_finite(def->heights[i] * def->scale.y)) {
            return ts_fail(TS_ERROR_NOT_FINITE, fn, "heightfield->heights[%d] is %g (must be finite, also scaled)", i,
                           (double)def->heights[i]);
        }
    }
    return TS_OK;
}

typedef struct hf_layout {
    size_t heights, flags, total;
} hf_layout;

static size_t round64(size_t n) { return (n + 63u) & ~(size_t)63u; }

static hf_layout layout_of(int nx, int nz)
{
    hf_layout l;
    l.heights = round64(sizeof(ts_heightfield_data));
    l.flags = l.heights + round64((size_t)nx * (size_t)nz * sizeof(float));
    l.total = l.flags + round64((size_t)(nx - 1) * (size_t)(nz - 1));
    return l;
}

size_t ts_heightfield_block_size(int count_x, int count_z) { return layout_of(count_x, count_z).total; }

static ts_vec3 vertex(const ts_heightfield_data *hf, int i, int k)
{
    return ts_v3((float)i * hf->scale.x, hf->heights[k * hf->count_x + i], (float)k * hf->scale.z);
}

/* The corners of triangle `half` of cell (i, k), and the vertex across
 * each of its edges (none: the grid's border). */
static void cell_triangle(const ts_heightfield_data *hf, int i, int k, int half, ts_vec3 v[3])
{
    ts_vec3 v00 = vertex(hf, i, k), v11 = vertex(hf, i + 1, k + 1);
    if (half == 0) {
        v[0] = v00;
        v[1] = vertex(hf, i, k + 1);
        v[2] = v11;
    } else {
        v[0] = v00;
        v[1] = v11;
        v[2] = vertex(hf, i + 1, k);
    }
}

/* Edge flags of the cell's two triangles. Triangle 0 (v00, v01, v11): edge
 * 0 on the cell's -x side (across: the cell at i - 1's triangle 1), edge 1
 * on its +z side (across: cell k + 1's triangle 1), edge 2 the diagonal
 * (across: this cell's triangle 1). Triangle 1 (v00, v11, v10): edge 0 the
 * diagonal, edge 1 the +x side (cell i + 1's triangle 0), edge 2 the -z
 * side (cell k - 1's triangle 0). */
static uint8_t cell_flags(const ts_heightfield_data *hf, int i, int k)
{
    int cx = hf->count_x - 1, cz = hf->count_z - 1;
    ts_vec3 t0[3], t1[3];
    cell_triangle(hf, i, k, 0, t0);
    cell_triangle(hf, i, k, 1, t1);
    uint8_t flags = 0;
    /* triangle 0 */
    if (i == 0 || ts_mesh_edge_is_active(t0[0], t0[1], t0[2], vertex(hf, i - 1, k))) {
        flags |= 1u; /* the neighbour cell (i - 1, k)'s triangle 1 has third vertex (i - 1, k) */
    }
    if (k + 1 == cz || ts_mesh_edge_is_active(t0[1], t0[2], t0[0], vertex(hf, i + 1, k + 2))) {
        flags |= 2u;
    }
    if (ts_mesh_edge_is_active(t0[2], t0[0], t0[1], t1[2])) {
        flags |= 4u;
    }
    /* triangle 1 */
    if (ts_mesh_edge_is_active(t1[0], t1[1], t1[2], t0[1])) {
        flags |= 8u;
    }
    if (i + 1 == cx || ts_mesh_edge_is_active(t1[1], t1[2], t1[0], vertex(hf, i + 2, k + 1))) {
        flags |= 16u;
    }
    if (k == 0 || ts_mesh_edge_is_active(t1[2], t1[0], t1[1], vertex(hf, i, k - 1))) {
        flags |= 32u;
    }
    return flags;
}

const ts_heightfield_data *ts_heightfield_write(const ts_heightfield_def *def, void *memory)
{
    hf_layout l = layout_of(def->count_x, def->count_z);
    char *base = memory;
    memset(base, 0, l.total);
    ts_heightfield_data *hf = (ts_heightfield_data *)base;
    float *heights = (float *)(base + l.heights);
    uint8_t *flags = (uint8_t *)(base + l.flags);
    int n = def->count_x * def->count_z;
    float lo = FLT_MAX, hi = -FLT_MAX;
    for (int i = 0; i < n; ++i) {
        heights[i] = def->heights[i] * def->scale.y;
        lo = lo < heights[i] ? lo : heights[i];
        hi = hi > heights[i] ? hi : heights[i];
    }
    hf->count_x = def->count_x;
    hf->count_z = def->count_z;
    hf->scale = def->scale;
    hf->heights = heights;
    hf->cell_flags = flags;
    float ex = (float)(def->count_x - 1) * def->scale.x, ez = (float)(def->count_z - 1) * def->scale.z;
    hf->bounds = (ts_aabb){ts_v3(0.0f, lo, 0.0f), ts_v3(ex, hi, ez)};
    float my = fabsf(lo) > fabsf(hi) ? fabsf(lo) : fabsf(hi);
    hf->radius = ts_length(ts_v3(ex, my, ez));
    for (int k = 0; k + 1 < def->count_z; ++k) {
        for (int i = 0; i + 1 < def->count_x; ++i) {
            flags[k * (def->count_x - 1) + i] = cell_flags(hf, i, k);
        }
    }
    return hf;
}

void ts_heightfield_triangle(const ts_heightfield_data *hf, int32_t id, ts_triangle *out)
{
    int cell = id >> 1, half = id & 1;
    int cx = hf->count_x - 1;
    int i = cell % cx, k = cell / cx;
    cell_triangle(hf, i, k, half, out->v);
    out->edge_flags = (uint8_t)((hf->cell_flags[cell] >> (3 * half)) & 7u);
    out->id = id;
}

/* Cells [i0, i1] x [k0, k1] overlapping the box on x and z, each whose
 * height range meets the box's, both triangles. */
void ts_heightfield_query(const ts_heightfield_data *hf, ts_aabb box, ts_triangle_visit_fn *visit, void *context)
{
    int cx = hf->count_x - 1, cz = hf->count_z - 1;
    float fx0 = box.lower.x / hf->scale.x, fx1 = box.upper.x / hf->scale.x;
    float fz0 = box.lower.z / hf->scale.z, fz1 = box.upper.z / hf->scale.z;
    if (!(fx1 >= 0.0f && fz1 >= 0.0f && fx0 <= (float)cx && fz0 <= (float)cz)) {
        return;
    }
    int i0 = fx0 <= 0.0f ? 0 : (int)fx0, k0 = fz0 <= 0.0f ? 0 : (int)fz0;
    int i1 = fx1 >= (float)cx ? cx - 1 : (int)fx1, k1 = fz1 >= (float)cz ? cz - 1 : (int)fz1;
    for (int k = k0; k <= k1; ++k) {
        for (int i = i0; i <= i1; ++i) {
            const float *row0 = hf->heights + k * hf->count_x + i;
            const float *row1 = row0 + hf->count_x;
            float lo = fminf(fminf(row0[0], row0[1]), fminf(row1[0], row1[1]));
            float hi = fmaxf(fmaxf(row0[0], row0[1]), fmaxf(row1[0], row1[1]));
            if (hi < box.lower.y || lo > box.upper.y) {
                continue;
            }
            for (int half = 0; half < 2; ++half) {
                ts_triangle tri;
                ts_heightfield_triangle(hf, 2 * (k * cx + i) + half, &tri);
                if (!visit(context, &tri)) {
                    return;
                }
            }
        }
    }
}

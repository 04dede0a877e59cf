/* state_layout_bench: the body-state gather and scatter of the contact
 * kernels, two layouts side by side (issue: "measure SoA columns against one
 * 64-byte record per body, and keep the faster").
 *
 *   record  one 64-byte ts_body_state per body (v | w | dp | dq), gathered
 *           with four 16-byte loads and a 4x4 transpose per group
 *           (src/solver/body_lanes.h, what the solver uses)
 *   columns 13 float arrays (vx .. dqw), gathered with one hardware gather
 *           (AVX2 vgatherdps) per component, scattered lane by lane
 *
 * The lanes are large_pyramid's (B = 100) real bundles: the world is built
 * and stepped once, then every colour's contacts are packed TS_W per bundle
 * exactly as the solver packs them. Each pass gathers both bodies of every
 * bundle, changes the velocities (as an impulse would) and scatters the
 * dynamic lanes back; the figure is ns per bundle lane per pass. Built at
 * TS_W = 4 and 8 (tessera-layout-bench-w4 / -w8), AVX2 for the gathers. */
#include "tessera/tessera.h"

#include "solver/body_lanes.h"

#include <simde/x86/avx2.h>
#include "base/timer.h"
#include "api/world.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct lanes_pattern {
    int32_t *index_a, *index_b; /* TS_W per bundle; dummy = body_count */
    int32_t bundles;
    int32_t body_count; /* awake bodies; the dummy follows */
} lanes_pattern;

static ts_world_id build_pyramid(int base)
{
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    ts_world_id world = ts_create_world(&def);
    ts_body_def ground = ts_default_body_def();
    ground.position = (ts_vec3){0, -1, 0};
    ts_shape_def shape = ts_default_shape_def();
    ts_create_box_shape(ts_create_body(world, &ground), &shape, &(ts_box){{400, 1, 400}});
    shape.density = 100;
    for (int r = 0; r < base; ++r) {
        for (int j = r; j < base; ++j) {
            ts_body_def body = ts_default_body_def();
            body.type = TS_BODY_DYNAMIC;
            body.position = (ts_vec3){(float)(r + 1) * 0.5f + (float)(j - r) - (float)base * 0.5f, (float)(2 * r + 1) * 0.5f, 0};
            ts_create_box_shape(ts_create_body(world, &body), &shape, &(ts_box){{0.5f, 0.5f, 0.5f}});
        }
    }
    ts_world_step(world, 1.0f / 60.0f);
    return world;
}

static int32_t state_of(const ts_world *world, int32_t body)
{
    int32_t slot = world->records.store.table.slot_of_id[body];
    int32_t awake = world->records.store.table.end[TS_RANGE_AWAKE];
    return slot < awake ? slot : awake;
}

static lanes_pattern pattern_of(const ts_world *world)
{
    lanes_pattern p = {0};
    p.body_count = world->records.store.table.end[TS_RANGE_AWAKE];
    for (int c = 0; c < TS_OVERFLOW_COLOR; ++c) {
        p.bundles += (world->graph.colors[c].count + TS_W - 1) / TS_W;
    }
    p.index_a = malloc(sizeof(int32_t) * TS_W * (size_t)p.bundles);
    p.index_b = malloc(sizeof(int32_t) * TS_W * (size_t)p.bundles);
    int32_t k = 0;
    const ts_contact_store *s = &world->records.contact_store;
    for (int c = 0; c < TS_OVERFLOW_COLOR; ++c) {
        const ts_graph_color *color = world->graph.colors + c;
        for (int32_t first = 0; first < color->count; first += TS_W, ++k) {
            for (int l = 0; l < TS_W; ++l) {
                int32_t a = p.body_count, b = p.body_count;
                if (first + l < color->count) {
                    int32_t slot = s->table.slot_of_id[color->contacts[first + l]];
                    a = state_of(world, s->body_a[slot]);
                    b = state_of(world, s->body_b[slot]);
                }
                p.index_a[TS_W * k + l] = a;
                p.index_b[TS_W * k + l] = b;
            }
        }
    }
    return p;
}

/* ---- the two layouts ---- */

TS_FORCE_INLINE void push(body_lanes *b, ts_wf amount)
{
    b->v.y = ts_w_add(b->v.y, amount);
    b->w.x = ts_w_sub(b->w.x, amount);
}

static double run_records(const lanes_pattern *p, ts_body_state *states, const float *inv_mass, int passes)
{
    ts_wf amount = ts_w_splat(1e-6f);
    double start = ts_now_ms();
    for (int pass = 0; pass < passes; ++pass) {
        for (int32_t k = 0; k < p->bundles; ++k) {
            const int32_t *ia = p->index_a + TS_W * k, *ib = p->index_b + TS_W * k;
            float ma[TS_W], mb[TS_W];
            for (int l = 0; l < TS_W; ++l) {
                ma[l] = inv_mass[ia[l]];
                mb[l] = inv_mass[ib[l]];
            }
            body_lanes a = gather(states, ia), b = gather(states, ib);
            push(&a, amount);
            push(&b, amount);
            scatter(states, ia, ma, a);
            scatter(states, ib, mb, b);
        }
    }
    return ts_now_ms() - start;
}

enum { VX, VY, VZ, WX, WY, WZ, PX, PY, PZ, QX, QY, QZ, QW, COMPONENTS };

TS_FORCE_INLINE ts_wf gather_column(const float *column, const int32_t *index)
{
#if TS_W == 8
    return simde_mm256_i32gather_ps(column, simde_mm256_loadu_si256((const simde__m256i *)index), 4);
#else
    return simde_mm_i32gather_ps(column, simde_mm_loadu_si128((const simde__m128i *)index), 4);
#endif
}

TS_FORCE_INLINE body_lanes gather_columns(float *const columns[COMPONENTS], const int32_t *index)
{
    return (body_lanes){
        {gather_column(columns[VX], index), gather_column(columns[VY], index), gather_column(columns[VZ], index)},
        {gather_column(columns[WX], index), gather_column(columns[WY], index), gather_column(columns[WZ], index)},
        {gather_column(columns[PX], index), gather_column(columns[PY], index), gather_column(columns[PZ], index)},
        {gather_column(columns[QX], index), gather_column(columns[QY], index), gather_column(columns[QZ], index),
         gather_column(columns[QW], index)},
    };
}

TS_FORCE_INLINE void scatter_columns(float *const columns[COMPONENTS], const int32_t *index, const float *inv_mass,
                                     body_lanes b)
{
    float rows[6][TS_W];
    ts_wv3_store(rows, b.v);
    ts_wv3_store(rows + 3, b.w);
    for (int l = 0; l < TS_W; ++l) {
        if (inv_mass[l] > 0.0f) {
            for (int c = 0; c < 6; ++c) {
                columns[VX + c][index[l]] = rows[c][l];
            }
        }
    }
}

static double run_columns(const lanes_pattern *p, float *const columns[COMPONENTS], const float *inv_mass, int passes)
{
    ts_wf amount = ts_w_splat(1e-6f);
    double start = ts_now_ms();
    for (int pass = 0; pass < passes; ++pass) {
        for (int32_t k = 0; k < p->bundles; ++k) {
            const int32_t *ia = p->index_a + TS_W * k, *ib = p->index_b + TS_W * k;
            float ma[TS_W], mb[TS_W];
            for (int l = 0; l < TS_W; ++l) {
                ma[l] = inv_mass[ia[l]];
                mb[l] = inv_mass[ib[l]];
            }
            body_lanes a = gather_columns(columns, ia), b = gather_columns(columns, ib);
            push(&a, amount);
            push(&b, amount);
            scatter_columns(columns, ia, ma, a);
            scatter_columns(columns, ib, mb, b);
        }
    }
    return ts_now_ms() - start;
}

int main(int argc, char **argv)
{
    int base = argc > 1 ? atoi(argv[1]) : 100;
    int passes = argc > 2 ? atoi(argv[2]) : 200;
    if (base < 2 || passes < 1) {
        fprintf(stderr, "usage: tessera-layout-bench-wN [base >= 2] [passes >= 1]\n");
        return 2;
    }
    ts_world_id id = build_pyramid(base);
    const ts_world *world = ts_world_lookup(id, "bench");
    lanes_pattern p = pattern_of(world);
    int32_t n = p.body_count + 1;
    ts_body_state *states = calloc((size_t)n, sizeof *states);
    float *inv_mass = calloc((size_t)n, sizeof(float));
    float *columns[COMPONENTS];
    for (int c = 0; c < COMPONENTS; ++c) {
        columns[c] = calloc((size_t)n, sizeof(float));
    }
    for (int32_t i = 0; i < p.body_count; ++i) {
        inv_mass[i] = world->records.store.inv_mass[i];
        states[i] = ts_body_state_at_rest((ts_vec3){0, 0, 0}, (ts_vec3){0, 0, 0});
        columns[QW][i] = 1.0f;
    }
    double lanes = (double)p.bundles * TS_W * passes;
    double best_records = 1e30, best_columns = 1e30;
    for (int round = 0; round < 5; ++round) { /* interleaved, best of five */
        double r = run_records(&p, states, inv_mass, passes);
        double c = run_columns(&p, columns, inv_mass, passes);
        best_records = r < best_records ? r : best_records;
        best_columns = c < best_columns ? c : best_columns;
    }
    printf("large_pyramid B=%d, W=%d: %d bundles, %d bodies, %d passes; ns per bundle lane per pass "
           "(gather A and B, scatter dynamic v, w; best of 5)\n",
           base, TS_W, (int)p.bundles, (int)p.body_count, passes);
    printf("  64-byte records: %6.2f\n  SoA columns:     %6.2f\n", 1e6 * best_records / lanes,
           1e6 * best_columns / lanes);
    ts_destroy_world(id);
    return 0;
}

/* The bounds update after the solver: every awake body's shapes get their
 * new tight bounds, and those that left their fat bounds get new ones and
 * are marked for the tree (see broadphase.h). A body whose only shape is a
 * centred sphere or box is done four at a time from the store's columns. */
#include "collide/broadphase.h"

#include "base/array.h"
#include "base/math3.h"
#include "base/parallel.h"
#include "collide/shape_bounds.h"

#include <simde/x86/sse.h>

/* Steps of motion a fat bound makes room for when it is moved. */
#define TS_LOOK_AHEAD 4.0f

/* The bounds a shape may sweep in the next step: its box and the same box
 * moved by v dt, so that a fast body's pairs exist before it arrives. */
TS_FORCE_INLINE ts_aabb swept(ts_aabb box, ts_vec3 motion)
{
    ts_aabb moved = {ts_add(box.lower, motion), ts_add(box.upper, motion)};
    return ts_aabb_union(box, moved);
}

bool ts_broadphase_reserve_slots(ts_broadphase *bp, const ts_allocator *allocator, int32_t bodies, int32_t shapes)
{
    /* + 8: the scan in ts_broadphase_enlarge_proxies reads whole 8-byte words */
    return ts_array_reserve(allocator, (void **)&bp->enlarged_slots, &bp->enlarged_capacity, bodies + 8,
                            sizeof(uint8_t)) &&
           ts_array_reserve(allocator, (void **)&bp->enlarged_list, &bp->enlarged_list_capacity, bodies,
                            sizeof(int32_t)) &&
           ts_array_reserve(allocator, (void **)&bp->move_buffer, &bp->move_capacity, shapes, sizeof(int32_t)) &&
           ts_tree_reserve_rebuild(&bp->trees[TS_TREE_MOVABLE]);
}

/* Whether a shape of tight box `box` moving by `motion` leaves its fat box;
 * if so, the new fat box: room for TS_LOOK_AHEAD steps of the same motion,
 * so that a fast body moves its proxy every few steps, not every step. */
TS_FORCE_INLINE bool refatten(ts_aabb *fat, ts_aabb box, ts_vec3 motion)
{
    if (ts_aabb_contains(*fat, swept(box, motion))) {
        return false;
    }
    *fat = ts_aabb_enlarge(swept(box, ts_scale(TS_LOOK_AHEAD, motion)), TS_AABB_MARGIN);
    return true;
}

/* A shape's motion in a step of dt: its body's velocity times dt (zero for
 * a static or sleeping body, whose slot is past the awake range). */
static ts_vec3 shape_motion(const ts_records *records, const ts_shape *shape, float dt)
{
    const ts_body_store *s = &records->store;
    int32_t i = s->table.slot_of_id[shape->body];
    if (i >= s->table.end[TS_RANGE_AWAKE]) {
        return ts_v3(0.0f, 0.0f, 0.0f);
    }
    return ts_scale(dt, ts_v3(s->vx[i], s->vy[i], s->vz[i]));
}

/* Refattens a shape placed or pushed by hand since the last step: the step
 * that follows sweeps it by its velocity. Returns whether its proxy must
 * move (its new fat box is set). */
static bool refatten_shape(ts_records *records, int32_t shape, float dt)
{
    ts_shape *s = records->shapes + shape;
    if (s->proxy < 0 || s->tree == TS_TREE_STATIC) {
        return false;
    }
    ts_aabb box = ts_shape_compute_aabb(records, shape);
    return refatten(&s->fat_aabb, box, shape_motion(records, s, dt));
}

/* refatten_shape, and the proxy moved. */
static bool sweep_shape(ts_records *records, ts_broadphase *bp, int32_t shape, float dt)
{
    if (!refatten_shape(records, shape, dt)) {
        return false;
    }
    const ts_shape *s = records->shapes + shape;
    ts_tree_move_proxy(&bp->trees[s->tree], s->proxy, s->fat_aabb);
    return true;
}

/* Entries per block of the sweep's check (at least). */
#define TS_SWEEP_BLOCK 64

typedef struct sweep_stage {
    ts_records *records;
    ts_broadphase *bp;
    float dt;
    int32_t block_size;
} sweep_stage;

/* A block of the move buffer's entries: refattened, and flagged when the
 * proxy must move (each entry is a distinct shape, or -1). */
static void sweep_block(void *context, int32_t block, int worker)
{
    (void)worker;
    const sweep_stage *stage = context;
    ts_broadphase *bp = stage->bp;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, bp->move_count, &begin, &end);
    for (int32_t k = begin; k < end; ++k) {
        int32_t shape = bp->move_buffer[k];
        bp->swept[k] = (uint8_t)(shape >= 0 && refatten_shape(stage->records, shape, stage->dt));
    }
}

void ts_broadphase_sweep_moved(ts_records *records, ts_broadphase *bp, ts_parallel *parallel, float dt)
{
    int32_t count = bp->move_count;
    if (parallel->worker_count < 2 || count < bp->parallel_sweep_min ||
        !ts_array_reserve(&records->allocator, (void **)&bp->swept, &bp->swept_capacity, count, sizeof(uint8_t))) {
        for (int32_t k = 0; k < count; ++k) {
            int32_t shape = bp->move_buffer[k];
            if (shape >= 0 && sweep_shape(records, bp, shape, dt)) {
                ts_body_sync_bounds(records, records->shapes[shape].body);
            }
        }
        return;
    }
    /* the same as the loop above: a shape's check reads its body and
     * geometry, which the tree moves and bounds syncs leave alone */
    sweep_stage stage = {records, bp, dt, ts_block_size(count, TS_SWEEP_BLOCK)};
    ts_parallel_for(parallel, sweep_block, &stage, ts_block_count(count, stage.block_size));
    for (int32_t k = 0; k < count; ++k) {
        if (bp->swept[k] != 0) {
            const ts_shape *s = records->shapes + bp->move_buffer[k];
            ts_tree_move_proxy(&bp->trees[s->tree], s->proxy, s->fat_aabb);
            ts_body_sync_bounds(records, s->body);
        }
    }
}

ts_result ts_body_sweep_proxies(ts_records *records, ts_broadphase *bp, int32_t body, float dt, const char *function)
{
    ts_result result = TS_OK;
    bool moved = false;
    for (int32_t sh = records->bodies[body].first_shape; sh != -1 && result == TS_OK; sh = records->shapes[sh].next) {
        if (sweep_shape(records, bp, sh, dt)) {
            moved = true;
            result = ts_shape_buffer_move(records, bp, sh, function);
        }
    }
    if (moved) {
        ts_body_sync_bounds(records, body);
    }
    return result;
}

/* Every shape of the body in slot i, through its shape list. */
static uint8_t shape_list_bounds(ts_records *records, int32_t i, ts_vec3 motion)
{
    const ts_body_store *store = &records->store;
    ts_transform xf = {{store->px[i], store->py[i], store->pz[i]},
                       {store->qx[i], store->qy[i], store->qz[i], store->qw[i]}};
    uint8_t slot_enlarged = 0;
    for (int32_t sh = store->first_shape[i]; sh != -1; sh = records->shapes[sh].next) {
        ts_shape *s = records->shapes + sh;
        if (refatten(&s->fat_aabb, ts_shape_bounds(s, xf), motion)) {
            s->enlarged = true;
            slot_enlarged = 1;
        }
    }
    return slot_enlarged;
}

/* The columns the loop below reads, held in locals: its byte stores could
 * alias the store's pointers, which the compiler would then load again. */
typedef struct bounds_columns {
    const float *px, *py, *pz, *vx, *vy, *vz, *sphere_radius;
    float *lx, *ly, *lz, *ux, *uy, *uz;
    const float *qx, *qy, *qz, *qw, *hx, *hy, *hz;
} bounds_columns;

/* The body in slot i whose only shape is a sphere of radius r at its centre
 * of mass: from the store's columns alone (the same box and the same
 * operations as ts_shape_bounds and the list path, so the same bits); a new fat
 * box stays in the columns until ts_broadphase_enlarge_proxies. */
TS_FORCE_INLINE uint8_t extent_bounds(bounds_columns c, int32_t i, ts_vec3 extent, ts_vec3 motion)
{
    ts_vec3 center = {c.px[i], c.py[i], c.pz[i]};
    ts_aabb box = {ts_sub(center, extent), ts_add(center, extent)};
    ts_aabb fat = {{c.lx[i], c.ly[i], c.lz[i]}, {c.ux[i], c.uy[i], c.uz[i]}};
    if (!refatten(&fat, box, motion)) {
        return 0;
    }
    c.lx[i] = fat.lower.x;
    c.ly[i] = fat.lower.y;
    c.lz[i] = fat.lower.z;
    c.ux[i] = fat.upper.x;
    c.uy[i] = fat.upper.y;
    c.uz[i] = fat.upper.z;
    return 1;
}

/* One axis of four sphere-path slots: the box lower = p - r, upper = p + r
 * swept by motion m (min / max with the moved box), as sphere_bounds does
 * lane by lane. simde_mm_min_ps(a, b) is a < b ? a : b and max a > b ? a : b,
 * as ts_min3 / ts_max3: the same bits. */
typedef struct sweep4 {
    simde__m128 lower, upper;
} sweep4;

TS_FORCE_INLINE sweep4 sweep_axis4(simde__m128 lower, simde__m128 upper, simde__m128 m)
{
    return (sweep4){simde_mm_min_ps(lower, simde_mm_add_ps(lower, m)),
                    simde_mm_max_ps(upper, simde_mm_add_ps(upper, m))};
}

/* Whether the fat interval [fat_lower, fat_upper] holds the swept one, per lane. */
TS_FORCE_INLINE simde__m128 holds4(simde__m128 fat_lower, simde__m128 fat_upper, sweep4 s)
{
    return simde_mm_and_ps(simde_mm_cmple_ps(fat_lower, s.lower), simde_mm_cmple_ps(s.upper, fat_upper));
}

/* One axis of the fat box after the bounds test: the lanes that left get
 * enlarge(swept(box, TS_LOOK_AHEAD m), TS_AABB_MARGIN) as refatten does. */
TS_FORCE_INLINE void refatten_axis4(float *fat_lower, float *fat_upper, simde__m128 lower, simde__m128 upper,
                                    simde__m128 m, simde__m128 left)
{
    simde__m128 margin = simde_mm_set1_ps(TS_AABB_MARGIN);
    sweep4 ahead = sweep_axis4(lower, upper, simde_mm_mul_ps(simde_mm_set1_ps(TS_LOOK_AHEAD), m));
    simde__m128 new_lower = simde_mm_sub_ps(ahead.lower, margin);
    simde__m128 new_upper = simde_mm_add_ps(ahead.upper, margin);
    simde__m128 old_lower = simde_mm_loadu_ps(fat_lower), old_upper = simde_mm_loadu_ps(fat_upper);
    simde_mm_storeu_ps(fat_lower,
                       simde_mm_or_ps(simde_mm_and_ps(left, new_lower), simde_mm_andnot_ps(left, old_lower)));
    simde_mm_storeu_ps(fat_upper,
                       simde_mm_or_ps(simde_mm_and_ps(left, new_upper), simde_mm_andnot_ps(left, old_upper)));
}

/* Slots [i, i + 4), all on a fast path, at once: boxes of extents e about
 * the centres; returns the mask of those that left their fat bounds (lane
 * l: bit l). */
TS_FORCE_INLINE int extent_bounds4(bounds_columns c, int32_t i, simde__m128 ex, simde__m128 ey, simde__m128 ez,
                                   simde__m128 dt)
{
    simde__m128 px = simde_mm_loadu_ps(c.px + i), py = simde_mm_loadu_ps(c.py + i), pz = simde_mm_loadu_ps(c.pz + i);
    simde__m128 mx = simde_mm_mul_ps(dt, simde_mm_loadu_ps(c.vx + i));
    simde__m128 my = simde_mm_mul_ps(dt, simde_mm_loadu_ps(c.vy + i));
    simde__m128 mz = simde_mm_mul_ps(dt, simde_mm_loadu_ps(c.vz + i));
    simde__m128 lx = simde_mm_sub_ps(px, ex), ly = simde_mm_sub_ps(py, ey), lz = simde_mm_sub_ps(pz, ez);
    simde__m128 ux = simde_mm_add_ps(px, ex), uy = simde_mm_add_ps(py, ey), uz = simde_mm_add_ps(pz, ez);
    simde__m128 held_x = holds4(simde_mm_loadu_ps(c.lx + i), simde_mm_loadu_ps(c.ux + i), sweep_axis4(lx, ux, mx));
    simde__m128 held_y = holds4(simde_mm_loadu_ps(c.ly + i), simde_mm_loadu_ps(c.uy + i), sweep_axis4(ly, uy, my));
    simde__m128 held_z = holds4(simde_mm_loadu_ps(c.lz + i), simde_mm_loadu_ps(c.uz + i), sweep_axis4(lz, uz, mz));
    simde__m128 held = simde_mm_and_ps(simde_mm_and_ps(held_x, held_y), held_z);
    int left = ~simde_mm_movemask_ps(held) & 15;
    if (left != 0) {
        /* All ones where not held: a held lane is all ones (a NaN, equal to nothing), the others 0 == 0. */
        simde__m128 mask = simde_mm_cmpeq_ps(held, simde_mm_setzero_ps());
        refatten_axis4(c.lx + i, c.ux + i, lx, ux, mx, mask);
        refatten_axis4(c.ly + i, c.uy + i, ly, uy, my, mask);
        refatten_axis4(c.lz + i, c.uz + i, lz, uz, mz, mask);
    }
    return left;
}

/* |R| h of four box-path slots (ts_abs_rotation and the dot products of
 * ts_shape_bounds, lane by lane: the same bits). */
TS_FORCE_INLINE int box_bounds4(bounds_columns c, int32_t i, simde__m128 dt)
{
    simde__m128 x = simde_mm_loadu_ps(c.qx + i), y = simde_mm_loadu_ps(c.qy + i);
    simde__m128 z = simde_mm_loadu_ps(c.qz + i), w = simde_mm_loadu_ps(c.qw + i);
    simde__m128 one = simde_mm_set1_ps(1.0f), two = simde_mm_set1_ps(2.0f);
    simde__m128 sign = simde_mm_set1_ps(-0.0f);
    simde__m128 xx = simde_mm_mul_ps(x, x), yy = simde_mm_mul_ps(y, y), zz = simde_mm_mul_ps(z, z);
    simde__m128 xy = simde_mm_mul_ps(x, y), xz = simde_mm_mul_ps(x, z), yz = simde_mm_mul_ps(y, z);
    simde__m128 wx = simde_mm_mul_ps(w, x), wy = simde_mm_mul_ps(w, y), wz = simde_mm_mul_ps(w, z);
#define ABS4(v) simde_mm_andnot_ps(sign, (v))
    simde__m128 r00 = ABS4(simde_mm_sub_ps(one, simde_mm_mul_ps(two, simde_mm_add_ps(yy, zz))));
    simde__m128 r01 = ABS4(simde_mm_mul_ps(two, simde_mm_sub_ps(xy, wz)));
    simde__m128 r02 = ABS4(simde_mm_mul_ps(two, simde_mm_add_ps(xz, wy)));
    simde__m128 r10 = ABS4(simde_mm_mul_ps(two, simde_mm_add_ps(xy, wz)));
    simde__m128 r11 = ABS4(simde_mm_sub_ps(one, simde_mm_mul_ps(two, simde_mm_add_ps(xx, zz))));
    simde__m128 r12 = ABS4(simde_mm_mul_ps(two, simde_mm_sub_ps(yz, wx)));
    simde__m128 r20 = ABS4(simde_mm_mul_ps(two, simde_mm_sub_ps(xz, wy)));
    simde__m128 r21 = ABS4(simde_mm_mul_ps(two, simde_mm_add_ps(yz, wx)));
    simde__m128 r22 = ABS4(simde_mm_sub_ps(one, simde_mm_mul_ps(two, simde_mm_add_ps(xx, yy))));
#undef ABS4
    simde__m128 hx = simde_mm_loadu_ps(c.hx + i), hy = simde_mm_loadu_ps(c.hy + i), hz = simde_mm_loadu_ps(c.hz + i);
#define DOT4(a, b, d) simde_mm_add_ps(simde_mm_add_ps(simde_mm_mul_ps(a, hx), simde_mm_mul_ps(b, hy)), simde_mm_mul_ps(d, hz))
    simde__m128 ex = DOT4(r00, r01, r02), ey = DOT4(r10, r11, r12), ez = DOT4(r20, r21, r22);
#undef DOT4
    return extent_bounds4(c, i, ex, ey, ez, dt);
}

/* The same for one slot. */
TS_FORCE_INLINE uint8_t box_bounds(bounds_columns c, int32_t i, ts_vec3 motion)
{
    ts_quat q = {c.qx[i], c.qy[i], c.qz[i], c.qw[i]};
    return extent_bounds(c, i, ts_box_extent(q, ts_v3(c.hx[i], c.hy[i], c.hz[i])), motion);
}

/* Four slots from i all with a positive value in `column` (a fast path's). */
TS_FORCE_INLINE bool four_on(const float *column, int32_t i)
{
    return simde_mm_movemask_ps(simde_mm_cmpgt_ps(simde_mm_loadu_ps(column + i), simde_mm_setzero_ps())) == 15;
}

bool ts_broadphase_compute_bounds(ts_records *records, ts_broadphase *bp, float dt, int32_t begin, int32_t end)
{
    ts_body_store *store = &records->store;
    const bounds_columns c = {store->px,     store->py,     store->pz,     store->vx,     store->vy,
                              store->vz,     store->sphere_radius,         store->fat_lx, store->fat_ly,
                              store->fat_lz, store->fat_ux, store->fat_uy, store->fat_uz, store->qx,
                              store->qy,     store->qz,     store->qw,     store->box_hx, store->box_hy,
                              store->box_hz};
    uint8_t *enlarged_slots = bp->enlarged_slots;
    simde__m128 dt4 = simde_mm_set1_ps(dt);
    bool any = false;
    for (int32_t i = begin; i < end;) {
        int left = -1;
        if (end - i >= 4 && c.sphere_radius[i] > 0.0f && four_on(c.sphere_radius, i)) {
            simde__m128 r = simde_mm_loadu_ps(c.sphere_radius + i);
            left = extent_bounds4(c, i, r, r, r, dt4);
        } else if (end - i >= 4 && c.hx[i] > 0.0f && four_on(c.hx, i)) {
            left = box_bounds4(c, i, dt4);
        }
        if (left >= 0) {
            for (int l = 0; l < 4; ++l) {
                enlarged_slots[i + l] = (uint8_t)(left >> l & 1);
            }
            any |= left != 0;
            i += 4;
            continue;
        }
        ts_vec3 motion = ts_scale(dt, ts_v3(c.vx[i], c.vy[i], c.vz[i]));
        float r = c.sphere_radius[i];
        uint8_t slot_enlarged = r > 0.0f        ? extent_bounds(c, i, ts_v3(r, r, r), motion)
                                : c.hx[i] > 0.0f ? box_bounds(c, i, motion)
                                                 : shape_list_bounds(records, i, motion);
        enlarged_slots[i] = slot_enlarged;
        any |= slot_enlarged != 0;
        i += 1;
    }
    return any;
}

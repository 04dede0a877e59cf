/* The substep integrators of integrate.h, TS_W bodies at a time (compiled
 * once per width). W consecutive awake slots form a bundle: their states are
 * gathered into lanes, their constant columns loaded straight from the body
 * store, and every lane follows the same operations as the scalar W = 1
 * build, so every width gives the same bits. A tail shorter than W repeats
 * its last body in the spare lanes and stores only the real ones.
 *
 * Per-body shortcuts of the scalar code (no torque: no rotations; equal
 * principal moments: no gyroscopic update) become per-lane selects of the
 * two results, and the costly branch runs only when a lane of the bundle
 * needs it; a lane's result does not depend on its neighbours.
 *
 * Rotation. The quaternion follows dq/dt = 1/2 (w, 0) q with world w, one
 * step, then normalised (sqrt and a division: exact IEEE operations, no
 * transcendental, the same bits everywhere).
 *
 * Gyroscopic term (explicit, momentum-keeping, midpoint). A torque-free body
 * keeps its world angular momentum L = R I R^T w, not its angular velocity.
 * When the rotation moves from q to q', we keep L and solve for w:
 *     w' = R' I^-1 R'^T (R I R^T w)                                  (1)
 * which is the gyroscopic term -w x I w integrated so that L is conserved up
 * to rounding. Rotating by the old w alone, though, lets the energy drift: a
 * tumbling box gains ~40% in 10 s (bepuphysics2 notes the same drift towards
 * the minimum-inertia axis). So the rotation uses the midpoint velocity
 *     w_mid = w + h/2 dw/dt,  with I dw/dt = (I w) x w in the principal frame
 * (Euler's equations). Measured on a tumbling box (h = 1/240 s, 10 s): |L|
 * drift 1e-13 and energy drift 2e-5 in double precision (4e-4 at h = 1/60),
 * against 15% and 22% for the one-Newton-step
 * implicit gyroscopic update of Catto's GDC 2015 talk, which also damps
 * spinning bodies. Kinematic bodies (inverse mass 0) keep their w as set.
 *
 * The step's end (finish_lanes) is its last gate: a body whose end would
 * not be finite keeps its start. */
#include "solver/integrate.h"

#include "solver/body_lanes.h"
#include "solver/lock_lanes.h"
#include "solver/speed_lanes.h"
#include "solver/velocity_lanes.h"

#include <string.h>

/* W values of a column from slot i (count < W: the last one repeated). */
TS_FORCE_INLINE ts_wf load_column(const float *column, int32_t i, int count)
{
    if (count == TS_W) {
        return ts_w_load(column + i);
    }
    float lanes[TS_W];
    for (int l = 0; l < TS_W; ++l) {
        lanes[l] = column[i + (l < count ? l : count - 1)];
    }
    return ts_w_load(lanes);
}

/* ---- lane math ---- */

TS_FORCE_INLINE ts_wv3 mul_cw(ts_wv3 a, ts_wv3 b) { return (ts_wv3){ts_w_mul(a.x, b.x), ts_w_mul(a.y, b.y), ts_w_mul(a.z, b.z)}; }

/* Finite lanes: |x| < infinity is false for infinities and NaN. */
TS_FORCE_INLINE ts_wm finite(ts_wf x)
{
    return ts_w_gt(ts_w_splat(INFINITY), ts_w_max(x, ts_w_neg(x)));
}

TS_FORCE_INLINE ts_wm finite3(ts_wv3 v) { return ts_w_and(ts_w_and(finite(v.x), finite(v.y)), finite(v.z)); }

#define TS_ALL_LANES ((uint32_t)((1ull << TS_W) - 1))

/* Spare lanes of a tail repeat its last body, so they never change the answer. */
TS_FORCE_INLINE bool any_lane(ts_wm m) { return ts_w_mask_bits(m) != 0; }

/* The first of lanes [0, count) whose bit in `ok` is clear, as a slot
 * (lane l is slot i + l), else INT32_MAX. */
TS_FORCE_INLINE int32_t first_clear_lane(uint32_t ok, int32_t i, int count)
{
    if (ok == TS_ALL_LANES) {
        return INT32_MAX;
    }
    for (int l = 0; l < count; ++l) {
        if ((ok >> l & 1u) == 0) {
            return i + l;
        }
    }
    return INT32_MAX;
}

/* The first real lane that is not finite, as a slot, else INT32_MAX. */
TS_FORCE_INLINE int32_t first_not_finite(ts_wm ok, int32_t i, int count)
{
    return first_clear_lane(ts_w_mask_bits(ok), i, count);
}

/* A full bundle's states are TS_W consecutive ones from `states + i`: with
 * these constant lane indices the gathers and scatters address them at
 * fixed offsets, without an index load and shift per lane; a tail goes
 * through slots_from. */
static const int32_t lane_iota[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

#define COLUMN_LANES(name) ts_wf name = load_column(store->name, i, count)

TS_FORCE_INLINE ts_wquat start_rotation(const ts_body_store *store, int32_t i, int count)
{
    return (ts_wquat){load_column(store->qx, i, count), load_column(store->qy, i, count),
                      load_column(store->qz, i, count), load_column(store->qw, i, count)};
}

/* ---- the step's start ---- */

/* Stores lanes to a column from slot i (only the real ones of a tail). */
TS_FORCE_INLINE void store_column(float *column, int32_t i, int count, ts_wf a)
{
    if (count == TS_W) {
        ts_w_store(column + i, a);
        return;
    }
    float lanes[TS_W];
    ts_w_store(lanes, a);
    for (int l = 0; l < count; ++l) {
        column[i + l] = lanes[l];
    }
}

/* World inverse inertia R diag(d) R^T, with R the rotation matrix of the unit
 * quaternion q: M_ij = sum_k R_ik d_k R_jk (rows r0, r1, r2 of R). */
TS_FORCE_INLINE void store_world_inverse_inertia(ts_body_store *store, int32_t i, int count)
{
    ts_wquat q = start_rotation(store, i, count);
    ts_wv3 d = {load_column(store->inv_ix, i, count), load_column(store->inv_iy, i, count),
                load_column(store->inv_iz, i, count)};
    ts_wf one = ts_w_splat(1.0f), two = ts_w_splat(2.0f);
    ts_wf xx = ts_w_mul(q.x, q.x), yy = ts_w_mul(q.y, q.y), zz = ts_w_mul(q.z, q.z);
    ts_wf xy = ts_w_mul(q.x, q.y), xz = ts_w_mul(q.x, q.z), yz = ts_w_mul(q.y, q.z);
    ts_wf wx = ts_w_mul(q.w, q.x), wy = ts_w_mul(q.w, q.y), wz = ts_w_mul(q.w, q.z);
    ts_wv3 r0 = {ts_w_sub(one, ts_w_mul(two, ts_w_add(yy, zz))), ts_w_mul(two, ts_w_sub(xy, wz)),
                 ts_w_mul(two, ts_w_add(xz, wy))};
    ts_wv3 r1 = {ts_w_mul(two, ts_w_add(xy, wz)), ts_w_sub(one, ts_w_mul(two, ts_w_add(xx, zz))),
                 ts_w_mul(two, ts_w_sub(yz, wx))};
    ts_wv3 r2 = {ts_w_mul(two, ts_w_sub(xz, wy)), ts_w_mul(two, ts_w_add(yz, wx)),
                 ts_w_sub(one, ts_w_mul(two, ts_w_add(xx, yy)))};
    ts_wv3 d0 = mul_cw(d, r0), d1 = mul_cw(d, r1), d2 = mul_cw(d, r2);
    ts_wf m[6] = {ts_wv3_dot(d0, r0), ts_wv3_dot(d1, r1), ts_wv3_dot(d2, r2),
                  ts_wv3_dot(d0, r1), ts_wv3_dot(d0, r2), ts_wv3_dot(d1, r2)};
    if (locks_in(store, i, count)) {
        /* P M P with P the unlocked axes: a locked axis's row and column
         * are zero, so no constraint turns the body about it */
        lock_lanes k = lock_lanes_of(store, i, count);
        ts_wf zero = ts_w_zero();
        const ts_wm *a = k.angular;
        m[0] = ts_w_select(a[0], zero, m[0]);
        m[1] = ts_w_select(a[1], zero, m[1]);
        m[2] = ts_w_select(a[2], zero, m[2]);
        m[3] = ts_w_select(ts_w_or(a[0], a[1]), zero, m[3]);
        m[4] = ts_w_select(ts_w_or(a[0], a[2]), zero, m[4]);
        m[5] = ts_w_select(ts_w_or(a[1], a[2]), zero, m[5]);
    }
    store_column(store->inv_iw_xx, i, count, m[0]);
    store_column(store->inv_iw_yy, i, count, m[1]);
    store_column(store->inv_iw_zz, i, count, m[2]);
    store_column(store->inv_iw_xy, i, count, m[3]);
    store_column(store->inv_iw_xz, i, count, m[4]);
    store_column(store->inv_iw_yz, i, count, m[5]);
}

/* Whether the full bundle at slot i holds free bodies alone (integrate.h);
 * a body with motion locks never counts as free (the free path keeps no
 * locks). */
TS_FORCE_INLINE bool free_bundle(const ts_body_store *store, int32_t i)
{
    if (locks_in(store, i, TS_W)) {
        return false;
    }
    /* Two counts per 8-byte load. Not _mm_testz: the portable C of SIMDe
     * 0.7 (Debian 12's, the SIMD-off build) answers 1 when either 64-bit
     * half is zero (fixed upstream later: simd-everywhere/simde#1097). */
    const int32_t *edges = store->edges + i;
#if TS_W >= 2
    uint64_t any = 0;
    for (int l = 0; l < TS_W; l += 2) {
        uint64_t pair;
        memcpy(&pair, edges + l, sizeof pair);
        any |= pair;
    }
    return any == 0;
#else
    return edges[0] == 0;
#endif
}

/* The lanes of a step's start: the store's velocities, zero deltas. */
TS_FORCE_INLINE body_lanes start_lanes(const ts_body_store *store, int32_t i, int count)
{
    ts_wf zero = ts_w_zero();
    return (body_lanes){
        {load_column(store->vx, i, count), load_column(store->vy, i, count), load_column(store->vz, i, count)},
        {load_column(store->wx, i, count), load_column(store->wy, i, count), load_column(store->wz, i, count)},
        {zero, zero, zero},
        {zero, zero, zero, ts_w_splat(1.0f)},
    };
}

/* One bundle: lanes index[0 .. count) of `states` are slots i .. i + count.
 * Returns whether it is a full bundle of free bodies. */
TS_FORCE_INLINE bool begin_bundle(ts_body_state *states, const int32_t *index, int count, ts_body_store *store,
                                  int32_t i, bool free_in_store)
{
    bool free = count == TS_W && free_bundle(store, i);
    if (free && free_in_store) {
        return true;
    }
    scatter_all(states, index, count, start_lanes(store, i, count));
    if (!free) { /* read by the constraints' preparation alone */
        store_world_inverse_inertia(store, i, count);
    }
    return free;
}

bool TS_WIDE(ts_states_begin)(ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                              bool free_in_store)
{
    bool free = false;
    for (int32_t i = begin; i < end; i += TS_W) {
        if (end - i >= TS_W) {
            free |= begin_bundle(states + i, lane_iota, TS_W, store, i, free_in_store);
        } else {
            bundle_slots s = slots_from(i, end);
            free |= begin_bundle(states, s.index, s.count, store, i, free_in_store);
        }
    }
    return free;
}

/* ---- velocities ---- */

#if TS_W == 4 || TS_W == 8 || TS_W16_QUARTERS
/* Lane l's v group (and lane l + 4's in the upper half at W = 8, the
 * quarters' lanes l + 4, l + 8, l + 12 at W = 16) plus its
 * row of dv; *finite_bits gets the x, y, z bits of the lanes whose sum is finite. */
TS_FORCE_INLINE ts_wf add_velocity_row(ts_body_state *states, int l, ts_wf dv_row, uint32_t *finite_bits)
{
    ts_wf v = ts_w_add(velocity_row(states, lane_iota, l, 0, 64), dv_row);
    uint32_t bits = ts_w_mask_bits(finite(v));
#if TS_W16_QUARTERS
    for (int q = 0; q < 4; ++q) {
        *finite_bits |= (bits >> (4 * q) & 7u) == 7u ? 1u << (l + 4 * q) : 0u;
    }
#elif TS_W == 8
    *finite_bits |= ((bits & 7u) == 7u ? 1u << l : 0u) | ((bits >> 4 & 7u) == 7u ? 1u << (l + 4) : 0u);
#else
    *finite_bits |= (bits & 7u) == 7u ? 1u << l : 0u;
#endif
    return v;
}

/* A full bundle of bodies without force, torque or damping: v += h (F / m + g s)
 * (F = 0) added to each state's 16-byte v group, w left alone: the same
 * operations on each lane as velocity_bundle without its transposes. A lane
 * whose sum is not finite keeps its v (as there). Returns false, having
 * stored nothing, when some component reaches half the speed limit: then
 * velocity_bundle's limit might scale a lane (|v|^2 <= 3/4 limit^2
 * otherwise), and the bundle goes that way. */
TS_FORCE_INLINE bool free_velocity_bundle(ts_body_state *TS_RESTRICT states, ts_wv3 dv, int32_t i, ts_wf half_limit,
                                          int32_t *bad)
{
    ts_wf rows[4];
    group_rows(dv, rows);
    uint32_t ok = 0;
    ts_wf v0 = add_velocity_row(states, 0, rows[0], &ok), v1 = add_velocity_row(states, 1, rows[1], &ok);
    ts_wf v2 = add_velocity_row(states, 2, rows[2], &ok), v3 = add_velocity_row(states, 3, rows[3], &ok);
    ts_wf largest = ts_w_max(ts_w_max(abs_lanes(v0), abs_lanes(v1)), ts_w_max(abs_lanes(v2), abs_lanes(v3)));
    if (ts_w_mask_bits(ts_w_gt(largest, half_limit)) != 0) {
        return false;
    }
    store_row(states, lane_iota, 0, 0, v0, ok);
    store_row(states, lane_iota, 1, 0, v1, ok);
    store_row(states, lane_iota, 2, 0, v2, ok);
    store_row(states, lane_iota, 3, 0, v3, ok);
    *bad = first_clear_lane(ok, i, TS_W);
    return true;
}
#endif

/* What a bundle's velocity step adds, the same in every substep of a step
 * (forces, damping and the rotation at the step's start stay). */
typedef struct velocity_terms {
    ts_wv3 dv;                         /* h (F / m + g s) */
    ts_wf linear_keep, angular_keep;   /* 1 / (1 + h c) when damped */
    ts_wv3 dw;                         /* h R I^-1 R^T T in the lanes with a torque */
    ts_wm torqued;
    bool damped, turned;               /* some lane is damped; some has a torque */
} velocity_terms;

TS_FORCE_INLINE velocity_terms velocity_terms_of(const ts_body_store *store, int32_t i, int count, ts_wv3 g, ts_wf hw)
{
    ts_wf one = ts_w_splat(1.0f);
    ts_wf zero = ts_w_zero();
    COLUMN_LANES(fx); COLUMN_LANES(fy); COLUMN_LANES(fz);
    COLUMN_LANES(tx); COLUMN_LANES(ty); COLUMN_LANES(tz);
    COLUMN_LANES(inv_mass); COLUMN_LANES(linear_damping); COLUMN_LANES(angular_damping);
    COLUMN_LANES(gravity_scale);
    velocity_terms t;
    t.damped = ts_w_mask_bits(ts_w_or(ts_w_gt(linear_damping, zero), ts_w_gt(angular_damping, zero))) != 0;
    t.torqued = ts_w_or(ts_w_or(ts_w_gt(ts_w_max(tx, ts_w_neg(tx)), zero), ts_w_gt(ts_w_max(ty, ts_w_neg(ty)), zero)),
                        ts_w_gt(ts_w_max(tz, ts_w_neg(tz)), zero));
    t.turned = any_lane(t.torqued);
    ts_wv3 force = {fx, fy, fz};
    t.dv = ts_wv3_scale(hw, ts_wv3_add(ts_wv3_scale(inv_mass, force), ts_wv3_scale(gravity_scale, g)));
    /* keep = 1 / (1 + h c): exactly 1 without damping, and x 1 = x, so
     * bundles without damping skip the divisions and products (same bits) */
    t.linear_keep = one;
    t.angular_keep = one;
    if (t.damped) {
        t.linear_keep = ts_w_div(one, ts_w_add(one, ts_w_mul(hw, linear_damping)));
        t.angular_keep = ts_w_div(one, ts_w_add(one, ts_w_mul(hw, angular_damping)));
    }
    t.dw = (ts_wv3){zero, zero, zero};
    if (t.turned) { /* only bundles with a torque pay for the rotations */
        ts_wv3 torque = {tx, ty, tz};
        ts_wquat q = start_rotation(store, i, count);
        COLUMN_LANES(inv_ix); COLUMN_LANES(inv_iy); COLUMN_LANES(inv_iz);
        ts_wv3 local = mul_cw((ts_wv3){inv_ix, inv_iy, inv_iz}, ts_wquat_rotate(ts_wquat_conj(q), torque));
        t.dw = ts_wv3_scale(hw, ts_wquat_rotate(q, local));
    }
    return t;
}

/* The world's limits of a substep in lanes (speed_lanes.h). */
typedef struct limit_lanes {
    speed_lanes linear, angular;
} limit_lanes;

TS_FORCE_INLINE limit_lanes limit_lanes_of(ts_speed_limit limit)
{
    return (limit_lanes){speed_lanes_of(limit.linear), speed_lanes_of(limit.angular)};
}

/* v = (v + h (F / m + g s)) keep, within the speed limit; w += dw in the
 * lanes with a torque alone (the others keep w's bits, as the bundles
 * without any torque do), then w *= keep, and the lanes with a torque
 * within the turn limit. A body whose velocity would overflow keeps its
 * last one: returns the lanes that took the step. */
TS_FORCE_INLINE ts_wm velocity_step(const velocity_terms *t, ts_wv3 *v, ts_wv3 *w, const limit_lanes *limit)
{
    ts_wv3 next_v = ts_wv3_add(*v, t->dv);
    if (t->damped) {
        next_v = ts_wv3_scale(t->linear_keep, next_v);
    }
    bool clamped = false;
    next_v = limit_speed(next_v, &limit->linear, &clamped);
    ts_wv3 next_w = *w;
    if (t->turned) {
        next_w = ts_wv3_select(t->torqued, ts_wv3_add(*w, t->dw), *w);
    }
    if (t->damped) {
        next_w = ts_wv3_scale(t->angular_keep, next_w);
    }
    if (t->turned) {
        ts_wm over = ts_w_and(t->torqued, over_limit(next_w, &limit->angular));
        if (ts_w_mask_bits(over) != 0) {
            next_w = scale_to_limit(next_w, over, &limit->angular);
        }
    }
    ts_wm ok = ts_w_and(finite3(next_v), finite3(next_w));
    *v = ts_wv3_select(ok, next_v, *v);
    *w = ts_wv3_select(ok, next_w, *w);
    return ok;
}

/* One bundle: lanes index[0 .. count) of `states` are slots i .. i + count. */
TS_FORCE_INLINE int32_t velocity_bundle(ts_body_state *TS_RESTRICT states, const int32_t *index, int count,
                                        const ts_body_store *store, int32_t i, ts_wv3 g, ts_wf hw,
                                        const limit_lanes *limit, ts_wf half_limit)
{
    velocity_terms t = velocity_terms_of(store, i, count, g, hw);
    bool locked = locks_in(store, i, count);
#if TS_W == 4 || TS_W == 8 || TS_W16_QUARTERS
    int32_t fast_bad;
    if (count == TS_W && !t.damped && !t.turned && !locked &&
        free_velocity_bundle(states, t.dv, i, half_limit, &fast_bad)) {
        return fast_bad;
    }
#else
    (void)half_limit;
#endif
    velocity_lanes b = gather_velocities(states, index); /* dp and dq are not read or written */
    ts_wm ok = velocity_step(&t, &b.v, &b.w, limit);
    if (locked) { /* gravity, forces and torques move no locked component */
        lock_lanes m = lock_lanes_of(store, i, count);
        b.v = lock_zero(b.v, m.linear);
        b.w = lock_zero(b.w, m.angular);
    }
    scatter_velocities_count(states, index, count, b);
    return first_not_finite(ok, i, count);
}

/* ---- positions ---- */

typedef struct gyro_result {
    ts_wquat dq;
    ts_wv3 w;
} gyro_result;

/* The midpoint, momentum-keeping rotation of this file's header comment. */
TS_FORCE_INLINE gyro_result gyroscopic(const ts_body_store *store, int32_t i, int count, const body_lanes *b,
                                       ts_wf half_h)
{
    ts_wf ix = load_column(store->ix, i, count), iy = load_column(store->iy, i, count);
    ts_wf iz = load_column(store->iz, i, count);
    ts_wv3 inv_inertia = {load_column(store->inv_ix, i, count), load_column(store->inv_iy, i, count),
                          load_column(store->inv_iz, i, count)};
    ts_wquat q0 = start_rotation(store, i, count);
    ts_wquat q = ts_wquat_mul(b->dq, q0);

    /* principal frame: L = I w and dw/dt = I^-1 (L x w) */
    ts_wv3 local_w = ts_wquat_rotate(ts_wquat_conj(q), b->w);
    ts_wv3 local_momentum = mul_cw((ts_wv3){ix, iy, iz}, local_w);
    ts_wv3 local_dw = mul_cw(inv_inertia, ts_wv3_cross(local_momentum, local_w));
    ts_wv3 mid_w = ts_wv3_mul_add(b->w, half_h, ts_wquat_rotate(q, local_dw));

    gyro_result r;
    r.dq = ts_wquat_rotate_by(b->dq, mid_w, half_h);
    ts_wquat next = ts_wquat_mul(r.dq, q0);
    /* the same world momentum in the new frame */
    ts_wv3 momentum = ts_wquat_rotate(q, local_momentum);
    r.w = ts_wquat_rotate(next, mul_cw(inv_inertia, ts_wquat_rotate(ts_wquat_conj(next), momentum)));
    return r;
}

/* Dynamic bodies with unequal principal moments need the gyroscopic update
 * (a sphere or cube keeps w: L = I w; kinematic bodies keep theirs). */
TS_FORCE_INLINE ts_wm needs_gyroscopic(const ts_body_store *store, int32_t i, int count)
{
    ts_wf ix = load_column(store->ix, i, count), iy = load_column(store->iy, i, count);
    ts_wf iz = load_column(store->iz, i, count), inv_mass = load_column(store->inv_mass, i, count);
    /* unequal moments: ix != iy or iy != iz (moments are finite) */
    ts_wm unequal = ts_w_or(ts_w_or(ts_w_gt(ix, iy), ts_w_gt(iy, ix)), ts_w_or(ts_w_gt(iy, iz), ts_w_gt(iz, iy)));
    return ts_w_and(unequal, ts_w_gt(inv_mass, ts_w_zero()));
}

/* v and w within the limits (v only when check_v: a free body's step
 * leaves its velocity pass's v, already limited, and limiting twice changes
 * nothing), then dp += h v, dq turned by w, and the gyroscopic update where
 * `gyro` (`turning`: some lane); a lane whose result would not be finite
 * keeps its pose and w. *clamped is set when a limit scaled some lane.
 * Returns the lanes that took the step. */
TS_FORCE_INLINE ts_wm position_step(const ts_body_store *store, int32_t i, int count, body_lanes *b, ts_wm gyro,
                                    bool turning, ts_wf hw, ts_wf half_h, const limit_lanes *limit, bool check_v,
                                    bool *clamped)
{
    if (check_v) {
        b->v = limit_speed(b->v, &limit->linear, clamped);
    }
    b->w = limit_speed(b->w, &limit->angular, clamped);
    ts_wv3 dp = ts_wv3_mul_add(b->dp, hw, b->v);
    ts_wquat dq = ts_wquat_rotate_by(b->dq, b->w, half_h);
    ts_wv3 w = b->w;
    if (turning) { /* only the gyroscopic update changes w */
        gyro_result r = gyroscopic(store, i, count, b, half_h);
        dq = ts_wquat_select(gyro, r.dq, dq);
        w = ts_wv3_select(gyro, r.w, w);
    }
    ts_wm ok = ts_w_and(ts_w_and(finite3(dp), finite3(w)),
                        ts_w_and(ts_w_and(finite(dq.x), finite(dq.y)), ts_w_and(finite(dq.z), finite(dq.w))));
    b->dp = ts_wv3_select(ok, dp, b->dp);
    b->dq = ts_wquat_select(ok, dq, b->dq);
    b->w = ts_wv3_select(ok, w, b->w);
    return ok;
}

/* One bundle: lanes index[0 .. count) of `states` are slots i .. i + count. */
TS_FORCE_INLINE int32_t position_bundle(ts_body_state *TS_RESTRICT states, const int32_t *index, int count,
                                        const ts_body_store *store, int32_t i, ts_wf hw, ts_wf half_h,
                                        const limit_lanes *limit)
{
    body_lanes b = gather_state(states, index);
    ts_wm gyro = needs_gyroscopic(store, i, count);
    bool turning = any_lane(gyro);
    bool locked = locks_in(store, i, count);
    lock_lanes m;
    if (locked) { /* turning about a locked axis, or moving along one, is dropped */
        m = lock_lanes_of(store, i, count);
        b.w = lock_zero(b.w, m.angular);
    }
    bool clamped = false;
    ts_wm ok = position_step(store, i, count, &b, gyro, turning, hw, half_h, limit, true, &clamped);
    if (locked) {
        b.dp = lock_zero(b.dp, m.linear);
        b.w = lock_zero(b.w, m.angular);
    }
    if (clamped) { /* rare: a limit scaled v or w, so both go back */
        scatter_velocities_count(states, index, count, (velocity_lanes){b.v, b.w});
    }
    scatter_motion_count(states, index, count, b.w, b.dp, b.dq, turning || locked); /* v is unchanged */
    return first_not_finite(ok, i, count);
}

int32_t TS_WIDE(ts_integrate_positions)(ts_body_state *TS_RESTRICT states, const ts_body_store *store,
                                        int32_t begin, int32_t end, float h, ts_free_bodies free,
                                        ts_speed_limit speed_limit)
{
    ts_wf hw = ts_w_splat(h);
    ts_wf half_h = ts_w_splat(0.5f * h);
    limit_lanes limit = limit_lanes_of(speed_limit);
    int32_t first_bad = INT32_MAX;
    for (int32_t i = begin; i < end; i += TS_W) {
        int32_t bad;
        if (end - i >= TS_W && free == TS_FREE_SKIP && free_bundle(store, i)) {
            continue;
        }
        if (end - i >= TS_W) {
            bad = position_bundle(states + i, lane_iota, TS_W, store, i, hw, half_h, &limit);
        } else {
            bundle_slots s = slots_from(i, end);
            bad = position_bundle(states, s.index, s.count, store, i, hw, half_h, &limit);
        }
        first_bad = bad < first_bad ? bad : first_bad;
    }
    return first_bad;
}

/* ---- the step's end ---- */

/* Stores lanes b of the step's end into the store: p += dp, q = dq q
 * (normalised), velocities within the limits; clears forces when
 * clear_forces. A lane whose end is not finite keeps the store's pose and
 * velocities, the step's start (the integrators hold what they integrate,
 * but a solve with an overflowing body can write a NaN velocity or, in
 * XPBD, pose into another); returns the bits of the finite lanes. */
TS_FORCE_INLINE uint32_t finish_lanes(ts_body_store *store, int32_t i, int count, const body_lanes *bl, bool clear_forces,
                                  const limit_lanes *limit)
{
    ts_wf zero = ts_w_zero();
    body_lanes b = *bl;
    bool clamped = false;
    b.v = limit_speed(b.v, &limit->linear, &clamped);
    b.w = limit_speed(b.w, &limit->angular, &clamped);
    ts_wv3 p0 = {load_column(store->px, i, count), load_column(store->py, i, count), load_column(store->pz, i, count)};
    ts_wquat q0 = start_rotation(store, i, count);
    ts_wv3 p = ts_wv3_add(p0, b.dp);
    ts_wquat q = ts_wquat_normalize(ts_wquat_mul(b.dq, q0));
    if (locks_in(store, i, count)) { /* the locked components keep their bits */
        lock_lanes m = lock_lanes_of(store, i, count);
        p = lock_keep(p, p0, m.linear);
        q = ts_wquat_select(m.all_angular, q0, q);
        b.v = lock_zero(b.v, m.linear);
        b.w = lock_zero(b.w, m.angular);
    }
    ts_wm ok = ts_w_and(ts_w_and(finite3(p), finite3(b.v)),
                        ts_w_and(finite3(b.w), ts_w_and(ts_w_and(finite(q.x), finite(q.y)),
                                                         ts_w_and(finite(q.z), finite(q.w)))));
    uint32_t ok_bits = ts_w_mask_bits(ok);
    if (ok_bits != TS_ALL_LANES) { /* rare: an overflow; those lanes keep the start */
        ts_wv3 v0 = {load_column(store->vx, i, count), load_column(store->vy, i, count), load_column(store->vz, i, count)};
        ts_wv3 w0 = {load_column(store->wx, i, count), load_column(store->wy, i, count), load_column(store->wz, i, count)};
        p = (ts_wv3){ts_w_select(ok, p.x, p0.x), ts_w_select(ok, p.y, p0.y), ts_w_select(ok, p.z, p0.z)};
        q = ts_wquat_select(ok, q, q0);
        b.v = (ts_wv3){ts_w_select(ok, b.v.x, v0.x), ts_w_select(ok, b.v.y, v0.y), ts_w_select(ok, b.v.z, v0.z)};
        b.w = (ts_wv3){ts_w_select(ok, b.w.x, w0.x), ts_w_select(ok, b.w.y, w0.y), ts_w_select(ok, b.w.z, w0.z)};
    }
    store_column(store->px, i, count, p.x);
    store_column(store->py, i, count, p.y);
    store_column(store->pz, i, count, p.z);
    store_column(store->qx, i, count, q.x);
    store_column(store->qy, i, count, q.y);
    store_column(store->qz, i, count, q.z);
    store_column(store->qw, i, count, q.w);
    store_column(store->vx, i, count, b.v.x);
    store_column(store->vy, i, count, b.v.y);
    store_column(store->vz, i, count, b.v.z);
    store_column(store->wx, i, count, b.w.x);
    store_column(store->wy, i, count, b.w.y);
    store_column(store->wz, i, count, b.w.z);
    if (clear_forces) {
        store_column(store->fx, i, count, zero);
        store_column(store->fy, i, count, zero);
        store_column(store->fz, i, count, zero);
        store_column(store->tx, i, count, zero);
        store_column(store->ty, i, count, zero);
        store_column(store->tz, i, count, zero);
    }
    return ok_bits;
}

int32_t TS_WIDE(ts_states_finish_wide)(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                                       bool clear_forces, ts_free_bodies free, ts_speed_limit speed_limit)
{
    limit_lanes limit = limit_lanes_of(speed_limit);
    int32_t first_bad = INT32_MAX;
    for (int32_t i = begin; i < end; i += TS_W) {
        int32_t bad;
        if (end - i >= TS_W) {
            if (free == TS_FREE_SKIP && free_bundle(store, i)) {
                continue; /* finished by its velocity pass */
            }
            body_lanes b = gather_state(states + i, lane_iota);
            bad = first_clear_lane(finish_lanes(store, i, TS_W, &b, clear_forces, &limit), i, TS_W);
        } else {
            bundle_slots s = slots_from(i, end);
            body_lanes b = gather_state(states, s.index);
            bad = first_clear_lane(finish_lanes(store, i, s.count, &b, clear_forces, &limit), i, s.count);
        }
        first_bad = bad < first_bad ? bad : first_bad;
    }
    return first_bad;
}

/* ---- free bodies, and the velocity pass (which runs them) ---- */

/* The whole step of a full bundle of free bodies, in registers: its start
 * from the store (ts_states_begin left its states alone), every substep's
 * velocity then position step, and its end into the store (the states'
 * finish skips it); each lane through the same operations as the passes
 * over states, so the same bits, without the states' round trips. */
static int32_t free_step(ts_body_store *store, int32_t i, ts_wv3 g, ts_wf hw, int substeps, bool clear_forces,
                         const limit_lanes *limit)
{
    ts_wf half_h = ts_w_mul(ts_w_splat(0.5f), hw);
    velocity_terms t = velocity_terms_of(store, i, TS_W, g, hw);
    ts_wm gyro = needs_gyroscopic(store, i, TS_W);
    bool turning = any_lane(gyro);
    body_lanes b = start_lanes(store, i, TS_W);
    uint32_t bad = 0;
    bool clamped = false; /* nothing to write back: the lanes stay in registers */
    for (int sub = 0; sub < substeps; ++sub) {
        bad |= ~ts_w_mask_bits(velocity_step(&t, &b.v, &b.w, limit));
        bad |= ~ts_w_mask_bits(position_step(store, i, TS_W, &b, gyro, turning, hw, half_h, limit, false, &clamped));
    }
    bad |= ~finish_lanes(store, i, TS_W, &b, clear_forces, limit);
    return first_clear_lane(~bad & TS_ALL_LANES, i, TS_W);
}

int32_t TS_WIDE(ts_integrate_velocities)(ts_body_state *TS_RESTRICT states, ts_body_store *store,
                                         int32_t begin, int32_t end, ts_vec3 gravity, float h, ts_free_bodies free,
                                         int substeps, bool clear_forces, ts_speed_limit speed_limit)
{
    ts_wf hw = ts_w_splat(h);
    limit_lanes limit = limit_lanes_of(speed_limit);
    ts_wf half_limit = ts_w_splat(0.5f * speed_limit.linear);
    ts_wv3 g = {ts_w_splat(gravity.x), ts_w_splat(gravity.y), ts_w_splat(gravity.z)};
    int32_t first_bad = INT32_MAX;
    for (int32_t i = begin; i < end; i += TS_W) {
        int32_t bad;
        if (end - i >= TS_W && free != TS_FREE_AS_OTHERS && free_bundle(store, i)) {
            if (free == TS_FREE_SKIP) {
                continue;
            }
            bad = free_step(store, i, g, hw, substeps, clear_forces, &limit);
        } else if (end - i >= TS_W) {
            bad = velocity_bundle(states + i, lane_iota, TS_W, store, i, g, hw, &limit, half_limit);
        } else {
            bundle_slots s = slots_from(i, end);
            bad = velocity_bundle(states, s.index, s.count, store, i, g, hw, &limit, half_limit);
        }
        first_bad = bad < first_bad ? bad : first_bad;
    }
    return first_bad;
}


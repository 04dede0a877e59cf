/* Preparing the contact bundles of a step (see contact_prepare.h), in two
 * parts per bundle:
 *
 *   gather: copy what the stores hold into the lanes: body state indices,
 *   inverse masses and world inverse inertias (computed once per body by
 *   ts_states_begin), normal, anchors, separations, the last step's
 *   impulses, friction, restitution and the softness of the pair. First the
 *   lanes' slots, a level at a time (contact slots, then body slots, so that
 *   the W lookups of a level are independent loads, not one chain per lane);
 *   then each row at once: W indexed reads assembled in registers and one
 *   store (no row stored lane by lane and then loaded whole, which stalls
 *   the load); the points four lanes at a time, since the store keeps a
 *   contact's four points side by side (4x4 transposes);
 *
 *   derive (wide, all lanes at once): tangents, effective masses, friction
 *   centre and its 2x2 mass, twist mass, lever arms and approach speeds.
 *
 * Unused points and empty lanes gather zeros (an empty lane reads lane 0's
 * slot, masked, and gets the normal +y so that its tangents stay finite) and
 * are masked to zero mass, so the kernels leave them alone without a branch.
 * Both parts copy or compute each lane with the same IEEE operations at
 * every width (selects where the lane loop had branches), so every width
 * gives the same bits as W = 1. */
#include "solver/contact_prepare.h"
#include "solver/contact_report.h"
#include "solver/point_mass.h"

#include "base/core.h"

/* Inputs the derive part reads besides the bundle itself. */
typedef struct lane_inputs {
    float point_used[TS_CONTACT_POINTS][TS_W]; /* 1 for a manifold point, else 0 */
    float inv_count[TS_W];                     /* 1 / point count, 0 for none */
    float separation[TS_CONTACT_POINTS][TS_W];
    float va[3][TS_W], wa[3][TS_W]; /* body velocities at the step's start (bundles that bounce) */
    float vb[3][TS_W], wb[3][TS_W];
    float gravity_scale_a[TS_W], gravity_scale_b[TS_W]; /* 0 for the dummy (bundles that bounce) */
} lane_inputs;

/* ---- lanes from indices ---- */

#if TS_W > 1
/* Four 4-lane parts (lanes 0..3, 4..7, ...) as one row of lanes. */
TS_FORCE_INLINE ts_wf join_parts(const simde__m128 part[TS_W / 4])
{
#if TS_W == 4
    return part[0];
#elif TS_W == 8
    return simde_mm256_insertf128_ps(simde_mm256_castps128_ps256(part[0]), part[1], 1);
#else
    simde__m512 r = simde_mm512_castps128_ps512(part[0]);
    r = simde_mm512_insertf32x4(r, part[1], 1);
    r = simde_mm512_insertf32x4(r, part[2], 2);
    return simde_mm512_insertf32x4(r, part[3], 3);
#endif
}

#endif

/* base[index[l]] in every lane l. At W > 4 from 4-lane groups joined: GCC
 * makes one simde_mm512_setr_ps (ts_w_load_indexed) a chain of sixteen
 * masked broadcasts, each waiting for the one before. */
TS_FORCE_INLINE ts_wf load_lanes(const float *base, const int32_t index[TS_W])
{
#if TS_W == 1
    return base[index[0]];
#else
    simde__m128 part[TS_W / 4];
    for (int g = 0; g < TS_W / 4; ++g) {
        const int32_t *i = index + 4 * g;
        part[g] = simde_mm_setr_ps(base[i[0]], base[i[1]], base[i[2]], base[i[3]]);
    }
    return join_parts(part);
#endif
}

/* ---- gather ---- */

static void store3(float rows[3][TS_W], int l, float x, float y, float z)
{
    rows[0][l] = x;
    rows[1][l] = y;
    rows[2][l] = z;
}

/* The velocities at the step's start and the gravity scales of one body of
 * each lane (zero for the dummy), read only for bundles that bounce. */
static void gather_velocities(const ts_contact_prepare_context *c, const int32_t state[TS_W], float v[3][TS_W],
                              float w[3][TS_W], float gravity_scale[TS_W])
{
    const ts_body_store *s = &c->records->store;
    for (int l = 0; l < TS_W; ++l) {
        int32_t i = state[l];
        if (i >= c->awake) {
            store3(v, l, 0.0f, 0.0f, 0.0f);
            store3(w, l, 0.0f, 0.0f, 0.0f);
            gravity_scale[l] = 0.0f;
        } else {
            store3(v, l, s->vx[i], s->vy[i], s->vz[i]);
            store3(w, l, s->wx[i], s->wy[i], s->wz[i]);
            gravity_scale[l] = s->gravity_scale[i];
        }
    }
}

/* m scaled by s in the lanes of `where` */
TS_FORCE_INLINE ts_wsym3 scale_where(ts_wm where, ts_wsym3 m, ts_wf s)
{
    return (ts_wsym3){ts_w_select(where, ts_w_mul(m.xx, s), m.xx), ts_w_select(where, ts_w_mul(m.yy, s), m.yy),
                      ts_w_select(where, ts_w_mul(m.zz, s), m.zz), ts_w_select(where, ts_w_mul(m.xy, s), m.xy),
                      ts_w_select(where, ts_w_mul(m.xz, s), m.xz), ts_w_select(where, ts_w_mul(m.yz, s), m.yz)};
}

/* A contact between two dynamic bodies whose masses differ by more than
 * ratio (ts_world_def.contact_mass_ratio) sees the lighter one as the
 * heavier one's mass / ratio: its inverse mass and inverse inertia scaled
 * down by r / ratio for this lane alone. A soft contact is a spring of
 * stiffness m (2 pi f)^2 with m the point's effective mass, the light body's,
 * so 1000 kg resting on 1 kg boxes sinks by its weight over that spring (8 to
 * 11 cm, and Gauss-Seidel's one pass a substep cannot pass its load through
 * sooner); at 100:1 it rests 8 mm deep. The price: between bodies more than
 * `ratio` apart, the heavier one's velocity change in a contact is off by up
 * to 1 / ratio of the exact one (1% at the default 100). */
TS_FORCE_INLINE void limit_mass_ratio(float ratio, ts_wf *inv_mass_a, ts_wf *inv_mass_b, ts_wsym3 *inertia_a,
                                      ts_wsym3 *inertia_b)
{
    if (ratio <= 0.0f) {
        return;
    }
    /* lane by lane: if mA > r mB, A's scaled by r mB / mA; else if mB > r mA,
     * B's by r mA / mB (both masses positive); the same operations as one
     * lane at a time, selected */
    ts_wf zero = ts_w_zero(), r = ts_w_splat(ratio);
    ts_wf ima = *inv_mass_a, imb = *inv_mass_b;
    ts_wm both = ts_w_and(ts_w_gt(ima, zero), ts_w_gt(imb, zero));
    ts_wf ra = ts_w_mul(r, imb), rb = ts_w_mul(r, ima);
    ts_wm scale_a = ts_w_and(both, ts_w_gt(ima, ra));
    ts_wf a_scaled = ts_w_select(scale_a, ts_w_splat(1.0f), zero);
    ts_wm scale_b = ts_w_and(ts_w_and(both, ts_w_gt(imb, rb)), ts_w_gt(ts_w_splat(0.5f), a_scaled));
    ts_wf sa = ts_w_div(ra, ima), sb = ts_w_div(rb, imb);
    *inv_mass_a = ts_w_select(scale_a, ts_w_mul(ima, sa), ima);
    *inv_mass_b = ts_w_select(scale_b, ts_w_mul(imb, sb), imb);
    *inertia_a = scale_where(scale_a, *inertia_a, sa);
    *inertia_b = scale_where(scale_b, *inertia_b, sb);
}

/* The points of every lane: the store keeps a contact's four points side by
 * side in each point column (point k of slot i at 4 i + k), so four lanes'
 * groups of four, transposed, are four lanes of the rows of points 0..3.
 * Points past a lane's count (and empty lanes, which read lane 0's slot
 * with count 0) are masked to +0, as the lane loop of W = 1 writes them.
 * load = 2 (0 + λ0 + λ1 + λ2 + λ3) / count: the unused λ are +0, and adding
 * +0 leaves a sum that started at +0 unchanged, so the bits are the lane
 * loop's. */
#if TS_W == 1
static void gather_points(const ts_contact_prepare_context *c, ts_contact_bundle *b, lane_inputs *in,
                          const int32_t slot[TS_W], const int count[TS_W])
{
    const ts_contact_store *s = &c->records->contact_store;
    float load = 0.0f;
    for (int k = 0; k < TS_CONTACT_POINTS; ++k) {
        ts_contact_point_lanes *cp = b->points + k;
        if (k < count[0]) {
            int p = 4 * slot[0] + k;
            store3(cp->anchor_a, 0, s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]);
            in->separation[k][0] = s->separation[p];
            in->point_used[k][0] = 1.0f;
            cp->normal_impulse[0] = c->warm_start ? s->normal_impulse[p] : 0.0f;
            load += cp->normal_impulse[0];
        } else {
            store3(cp->anchor_a, 0, 0.0f, 0.0f, 0.0f);
            in->separation[k][0] = 0.0f;
            in->point_used[k][0] = 0.0f;
            cp->normal_impulse[0] = 0.0f;
        }
    }
    b->load[0] = 2.0f * load * in->inv_count[0];
}
#else
/* One point column of all lanes as the rows of points 0..3 (row k of the
 * lanes' four-float groups, masked by used), joined in registers: a row
 * stored a quarter at a time and then loaded whole stalls its load. */
TS_FORCE_INLINE void gather_point_column(const float *column, const int32_t slot[TS_W],
                                         const simde__m128 used[TS_W], ts_wf rows[4])
{
    simde__m128 part[4][TS_W / 4];
    for (int g = 0; g < TS_W / 4; ++g) {
        const int l = 4 * g;
        simde__m128 r0 = simde_mm_and_ps(simde_mm_loadu_ps(column + 4 * (size_t)slot[l]), used[l]);
        simde__m128 r1 = simde_mm_and_ps(simde_mm_loadu_ps(column + 4 * (size_t)slot[l + 1]), used[l + 1]);
        simde__m128 r2 = simde_mm_and_ps(simde_mm_loadu_ps(column + 4 * (size_t)slot[l + 2]), used[l + 2]);
        simde__m128 r3 = simde_mm_and_ps(simde_mm_loadu_ps(column + 4 * (size_t)slot[l + 3]), used[l + 3]);
        SIMDE_MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        part[0][g] = r0;
        part[1][g] = r1;
        part[2][g] = r2;
        part[3][g] = r3;
    }
    for (int k = 0; k < 4; ++k) {
        rows[k] = join_parts(part[k]);
    }
}

static void gather_points(const ts_contact_prepare_context *c, ts_contact_bundle *b, lane_inputs *in,
                          const int32_t slot[TS_W], const int count[TS_W])
{
    const ts_contact_store *s = &c->records->contact_store;
    const simde__m128i index = simde_mm_setr_epi32(0, 1, 2, 3);
    simde__m128 used[TS_W], impulse_used[TS_W];
    for (int l = 0; l < TS_W; ++l) {
        used[l] = simde_mm_castsi128_ps(simde_mm_cmpgt_epi32(simde_mm_set1_epi32(count[l]), index));
        impulse_used[l] = c->warm_start ? used[l] : simde_mm_setzero_ps();
    }
    ts_wf rows[4];
    gather_point_column(s->anchor_ax, slot, used, rows);
    for (int k = 0; k < 4; ++k) {
        ts_w_store(b->points[k].anchor_a[0], rows[k]);
    }
    gather_point_column(s->anchor_ay, slot, used, rows);
    for (int k = 0; k < 4; ++k) {
        ts_w_store(b->points[k].anchor_a[1], rows[k]);
    }
    gather_point_column(s->anchor_az, slot, used, rows);
    for (int k = 0; k < 4; ++k) {
        ts_w_store(b->points[k].anchor_a[2], rows[k]);
    }
    gather_point_column(s->separation, slot, used, rows);
    for (int k = 0; k < 4; ++k) {
        ts_w_store(in->separation[k], rows[k]);
    }
    gather_point_column(s->normal_impulse, slot, impulse_used, rows);
    ts_wf load = ts_w_zero();
    for (int k = 0; k < 4; ++k) {
        ts_w_store(b->points[k].normal_impulse, rows[k]);
        load = ts_w_add(load, rows[k]);
    }
    ts_w_store(b->load, ts_w_mul(ts_w_mul(ts_w_splat(2.0f), load), ts_w_load(in->inv_count)));
    /* point_used: 1.0f where the mask is set (the masks, transposed alike) */
    simde__m128 ones[TS_W];
    for (int l = 0; l < TS_W; ++l) {
        ones[l] = simde_mm_and_ps(used[l], simde_mm_set1_ps(1.0f));
    }
    const float one_group[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    int32_t same[TS_W] = {0}; /* every lane reads the ones */
    gather_point_column(one_group, same, ones, rows);
    for (int k = 0; k < 4; ++k) {
        ts_w_store(in->point_used[k], rows[k]);
    }
}
#endif

/* Where each lane reads: its contact slot (lane 0's for an empty lane, whose
 * rows are then masked), its bodies' store slots (0 for the dummy, masked
 * likewise) and its point count. Found for all lanes first, a level at a
 * time (contact slots, then bodies), so that the W lookups of a level are
 * independent loads rather than one chain per lane. */
typedef struct lane_slots {
    int32_t contact[TS_W];
    int32_t body_a[TS_W], body_b[TS_W];
    int points[TS_W];
    float real[TS_W], awake_a[TS_W], awake_b[TS_W]; /* 1 where the lane has a contact, an awake body, else 0 */
} lane_slots;

static void gather_slots(const ts_contact_prepare_context *c, ts_contact_bundle *b, lane_inputs *in,
                         const int32_t *contacts, int32_t count, int32_t first_contact, int lanes, lane_slots *x)
{
    const ts_contact_store *s = &c->records->contact_store;
    const int32_t *body_slot = c->records->store.table.slot_of_id;
    int32_t awake = c->awake;
    for (int l = 0; l < TS_W; ++l) {
        int32_t k = first_contact + l;
        bool real = l < lanes && k < count && contacts[k] >= 0; /* -1: the paired order's pad */
        int32_t i = real ? s->table.slot_of_id[contacts[k]] : -1;
        b->contact_slot[l] = i;
        x->contact[l] = real ? i : l > 0 ? x->contact[0] : 0; /* a bundle's lane 0 has a contact */
        x->real[l] = real ? 1.0f : 0.0f;
    }
    for (int l = 0; l < TS_W; ++l) {
        int32_t i = b->contact_slot[l];
        int32_t ia = i >= 0 ? body_slot[s->body_a[i]] : awake;
        int32_t ib = i >= 0 ? body_slot[s->body_b[i]] : awake;
        b->body_a[l] = ia < awake ? ia : awake;
        b->body_b[l] = ib < awake ? ib : awake;
        x->body_a[l] = ia < awake ? ia : 0;
        x->body_b[l] = ib < awake ? ib : 0;
        x->awake_a[l] = ia < awake ? 1.0f : 0.0f;
        x->awake_b[l] = ib < awake ? 1.0f : 0.0f;
        x->points[l] = i >= 0 ? s->point_count[i] : 0;
        in->inv_count[l] = x->points[l] > 0 ? 1.0f / (float)x->points[l] : 0.0f;
    }
}

/* column[index[l]] where keep, else `otherwise` */
TS_FORCE_INLINE ts_wf read_lanes(const float *column, const int32_t index[TS_W], ts_wm keep, ts_wf otherwise)
{
    return ts_w_select(keep, load_lanes(column, index), otherwise);
}

/* A body's inverse mass and world inverse inertia (ts_states_begin's),
 * zero for the dummy. */
TS_FORCE_INLINE void read_body(const ts_body_store *s, const int32_t index[TS_W], ts_wm keep, ts_wf *inv_mass,
                               ts_wsym3 *inertia)
{
    ts_wf zero = ts_w_zero();
    *inv_mass = read_lanes(s->inv_mass, index, keep, zero);
    *inertia = (ts_wsym3){read_lanes(s->inv_iw_xx, index, keep, zero), read_lanes(s->inv_iw_yy, index, keep, zero),
                          read_lanes(s->inv_iw_zz, index, keep, zero), read_lanes(s->inv_iw_xy, index, keep, zero),
                          read_lanes(s->inv_iw_xz, index, keep, zero), read_lanes(s->inv_iw_yz, index, keep, zero)};
}

/* The lanes' rows from the stores: masses (with the mass ratio's limit),
 * normal, shift, friction, restitution, warm-start impulses and softness.
 * An empty lane gets zeros but the normal +y and mass_scale 1. */
static void gather_lanes(const ts_contact_prepare_context *c, ts_contact_bundle *b, const lane_slots *x)
{
    const ts_contact_store *s = &c->records->contact_store;
    ts_wf zero = ts_w_zero();
    ts_wm real = ts_w_gt(ts_w_load(x->real), zero);
    ts_wf inv_mass_a, inv_mass_b;
    ts_wsym3 inertia_a, inertia_b;
    read_body(&c->records->store, x->body_a, ts_w_gt(ts_w_load(x->awake_a), zero), &inv_mass_a, &inertia_a);
    read_body(&c->records->store, x->body_b, ts_w_gt(ts_w_load(x->awake_b), zero), &inv_mass_b, &inertia_b);
    limit_mass_ratio(c->mass_ratio, &inv_mass_a, &inv_mass_b, &inertia_a, &inertia_b);
    ts_w_store(b->inv_mass_a, inv_mass_a);
    ts_w_store(b->inv_mass_b, inv_mass_b);
    ts_wsym3_store(b->inv_inertia_a, inertia_a);
    ts_wsym3_store(b->inv_inertia_b, inertia_b);
    const int32_t *i = x->contact;
    ts_w_store(b->normal[0], read_lanes(s->nx, i, real, zero));
    ts_w_store(b->normal[1], read_lanes(s->ny, i, real, ts_w_splat(1.0f)));
    ts_w_store(b->normal[2], read_lanes(s->nz, i, real, zero));
    /* B's anchors are A's plus the manifold's shift (contact_recycle.h) */
    ts_w_store(b->anchor_shift[0], read_lanes(s->shift_x, i, real, zero));
    ts_w_store(b->anchor_shift[1], read_lanes(s->shift_y, i, real, zero));
    ts_w_store(b->anchor_shift[2], read_lanes(s->shift_z, i, real, zero));
    ts_w_store(b->friction, read_lanes(s->friction, i, real, zero));
    ts_w_store(b->restitution, read_lanes(s->restitution, i, real, zero));
    ts_wm warm = c->warm_start ? real : ts_w_gt(zero, zero);
    ts_w_store(b->friction_impulse[0], read_lanes(s->friction_impulse1, i, warm, zero));
    ts_w_store(b->friction_impulse[1], read_lanes(s->friction_impulse2, i, warm, zero));
    ts_w_store(b->twist_impulse, read_lanes(s->twist_impulse, i, warm, zero));
    /* static and kinematic partners are stiffer (see ts_world_def) */
    ts_wm zero_a = ts_w_and(ts_w_ge(inv_mass_a, zero), ts_w_ge(zero, inv_mass_a)); /* == 0 */
    ts_wm zero_b = ts_w_and(ts_w_ge(inv_mass_b, zero), ts_w_ge(zero, inv_mass_b));
    ts_wm stiff = ts_w_or(zero_a, zero_b);
#define TS_SOFT_ROW(row, field, empty)                                                                                 \
    ts_w_store(b->row, ts_w_select(real, ts_w_select(stiff, ts_w_splat(c->stiff.field), ts_w_splat(c->soft.field)),   \
                                   ts_w_splat(empty)))
    TS_SOFT_ROW(bias_rate, bias_rate, 0.0f);
    TS_SOFT_ROW(mass_scale, mass_scale, 1.0f);
    TS_SOFT_ROW(impulse_scale, impulse_scale, 0.0f);
    TS_SOFT_ROW(spring_rate, spring_rate, 0.0f);
#undef TS_SOFT_ROW
}

/* Whether some lane has rolling resistance (never in a world whose shapes
 * never had any: it reads nothing then); if so, the bundle's rolling rows:
 * each lane's lever and warm-start impulses (0 without a lever). */
static bool gather_rolling(const ts_contact_prepare_context *c, ts_contact_bundle *b)
{
    if (!c->records->rolling) {
        return false;
    }
    const ts_contact_store *s = &c->records->contact_store;
    bool any = false;
    for (int l = 0; l < TS_W; ++l) {
        int32_t i = b->contact_slot[l];
        b->rolling_resistance[l] = i >= 0 ? s->rolling_resistance[i] : 0.0f;
        any = any || b->rolling_resistance[l] > 0.0f;
    }
    if (!any) {
        return false;
    }
    for (int l = 0; l < TS_W; ++l) {
        int32_t i = b->contact_slot[l];
        bool warm = c->warm_start && b->rolling_resistance[l] > 0.0f;
        b->rolling_impulse[0][l] = warm ? s->rolling_impulse1[i] : 0.0f;
        b->rolling_impulse[1][l] = warm ? s->rolling_impulse2[i] : 0.0f;
    }
    return true;
}

/* ---- derive ---- */

/* 1 / k, or 0 where k is not positive (no mass to move). */
TS_FORCE_INLINE ts_wf safe_inverse(ts_wf k)
{
    ts_wf zero = ts_w_zero();
    return ts_w_select(ts_w_gt(k, zero), ts_w_div(ts_w_splat(1.0f), k), zero);
}

/* A unit vector perpendicular to n, chosen the same way every step so that
 * tangent impulses warm start along the same axes: (ny, -nx, 0) unless
 * |nx| < 1/sqrt(3), else (0, nz, -ny) (both have length >= sqrt(2/3)). */
TS_FORCE_INLINE ts_wv3 perpendicular(ts_wv3 n)
{
    ts_wf zero = ts_w_zero();
    ts_wm small_x = ts_w_gt(ts_w_splat(0.57735f), ts_w_max(n.x, ts_w_neg(n.x)));
    ts_wv3 t = {ts_w_select(small_x, zero, n.y), ts_w_select(small_x, n.z, ts_w_neg(n.x)),
                ts_w_select(small_x, ts_w_neg(n.y), zero)};
    return ts_wv3_scale(ts_w_div(ts_w_splat(1.0f), ts_w_sqrt(ts_wv3_dot(t, t))), t);
}

/* (rA x d) . IA^-1 (rA x d) + (rB x d) . IB^-1 (rB x d) */
TS_FORCE_INLINE ts_wf angular_mass(ts_wsym3 ia, ts_wsym3 ib, ts_wv3 ra, ts_wv3 rb, ts_wv3 d)
{
    ts_wv3 rda = ts_wv3_cross(ra, d);
    ts_wv3 rdb = ts_wv3_cross(rb, d);
    return ts_w_add(ts_wv3_dot(rda, ts_wsym3_mul(ia, rda)), ts_wv3_dot(rdb, ts_wsym3_mul(ib, rdb)));
}

TS_FORCE_INLINE ts_wv3 point_velocity(const float v[3][TS_W], const float w[3][TS_W], ts_wv3 r)
{
    return ts_wv3_add(ts_wv3_load(v), ts_wv3_cross(ts_wv3_load(w), r));
}

/* Normal rows of the points: base separation, normal mass, approach speed;
 * returns the friction centres (the mean anchors) through ca, cb. */
TS_FORCE_INLINE void derive_points(ts_contact_bundle *b, ts_contact_bounce_lanes *bounce, const lane_inputs *in,
                                   ts_wv3 n, ts_wf mass, ts_wsym3 ia, ts_wsym3 ib, ts_wv3 *ca)
{
    ts_wf zero = ts_w_zero();
    ts_wv3 sum_a = {zero, zero, zero};
    for (int k = 0; k < TS_CONTACT_POINTS; ++k) {
        sum_a = ts_wv3_add(sum_a, ts_wv3_load(b->points[k].anchor_a));
    }
    *ca = ts_wv3_scale(ts_w_load(in->inv_count), sum_a);
    ts_wv3 shift = ts_wv3_load(b->anchor_shift);
    ts_wf separation_shift = ts_wv3_dot(shift, n);
    for (int k = 0; k < TS_CONTACT_POINTS; ++k) {
        ts_contact_point_lanes *cp = b->points + k;
        ts_wm used = ts_w_gt(ts_w_load(in->point_used[k]), zero);
        ts_wv3 ra = ts_wv3_load(cp->anchor_a);
        ts_wv3 rb = ts_contact_anchor_b(ra, shift);
        ts_w_store(cp->base_separation, ts_w_sub(ts_w_load(in->separation[k]), separation_shift));
        ts_wf k_normal = ts_w_add(mass, angular_mass(ia, ib, ra, rb, n));
        ts_w_store(cp->normal_mass, ts_w_select(used, safe_inverse(k_normal), zero));
        ts_wv3 lever = ts_wv3_sub(ra, *ca);
        ts_w_store(cp->lever_arm, ts_w_select(used, ts_w_sqrt(ts_wv3_dot(lever, lever)), zero));
        if (bounce) {
            ts_wv3 dv = ts_wv3_sub(point_velocity(in->vb, in->wb, rb), point_velocity(in->va, in->wa, ra));
            ts_w_store(bounce->relative_velocity[k], ts_w_select(used, ts_wv3_dot(n, dv), zero));
            ts_w_store(bounce->max_normal_impulse[k], zero);
        }
    }
}

/* The 2x2 tangent effective mass at the centres, inverted:
 *   K_ij = (mA + mB) d_ij + (cA x ti) . IA^-1 (cA x tj) + (cB x ti) . IB^-1 (cB x tj)
 * and the twist mass 1 / (n . (IA^-1 + IB^-1) n). */
TS_FORCE_INLINE void derive_friction(ts_contact_bundle *b, ts_wv3 n, ts_wv3 t1, ts_wv3 t2, ts_wf mass, ts_wsym3 ia,
                                     ts_wsym3 ib, ts_wv3 ca)
{
    ts_wv3 cb = ts_contact_anchor_b(ca, ts_wv3_load(b->anchor_shift));
    ts_wv3 a1 = ts_wv3_cross(ca, t1), a2 = ts_wv3_cross(ca, t2);
    ts_wv3 b1 = ts_wv3_cross(cb, t1), b2 = ts_wv3_cross(cb, t2);
    ts_wv3 ia_a2 = ts_wsym3_mul(ia, a2), ib_b2 = ts_wsym3_mul(ib, b2);
    ts_wf kxx = ts_w_add(ts_w_add(mass, ts_wv3_dot(a1, ts_wsym3_mul(ia, a1))), ts_wv3_dot(b1, ts_wsym3_mul(ib, b1)));
    ts_wf kyy = ts_w_add(ts_w_add(mass, ts_wv3_dot(a2, ia_a2)), ts_wv3_dot(b2, ib_b2));
    ts_wf kxy = ts_w_add(ts_wv3_dot(a1, ia_a2), ts_wv3_dot(b1, ib_b2));
    ts_wf inv_det = safe_inverse(ts_w_sub(ts_w_mul(kxx, kyy), ts_w_mul(kxy, kxy)));
    ts_wv3_store(b->center_a, ca);
    ts_w_store(b->tangent_mass[0], ts_w_mul(inv_det, kyy));
    ts_w_store(b->tangent_mass[1], ts_w_neg(ts_w_mul(inv_det, kxy)));
    ts_w_store(b->tangent_mass[2], ts_w_mul(inv_det, kxx));
    ts_wf k_twist = ts_w_add(ts_wv3_dot(n, ts_wsym3_mul(ia, n)), ts_wv3_dot(n, ts_wsym3_mul(ib, n)));
    ts_w_store(b->twist_mass, safe_inverse(k_twist));
}

/* What one substep of free flight adds to the approach along n:
 * n . (gB - gA) h, with each body's gravity scale. */
static void derive_gravity_approach(const ts_contact_prepare_context *c, ts_contact_bounce_lanes *bounce,
                                    const lane_inputs *in, ts_wv3 n)
{
    ts_wv3 gh = {ts_w_splat(c->gravity_h.x), ts_w_splat(c->gravity_h.y), ts_w_splat(c->gravity_h.z)};
    ts_wf scale = ts_w_sub(ts_w_load(in->gravity_scale_b), ts_w_load(in->gravity_scale_a));
    ts_w_store(bounce->gravity_approach, ts_w_mul(scale, ts_wv3_dot(n, gh)));
}

static void derive(const ts_contact_prepare_context *c, ts_contact_bundle *b, ts_contact_bounce_lanes *bounce,
                   const lane_inputs *in)
{
    ts_wv3 n = ts_wv3_load(b->normal);
    ts_wv3 t1 = perpendicular(n);
    ts_wv3 t2 = ts_contact_tangent2(n, t1);
    ts_wv3_store(b->tangent1, t1);
    ts_wf mass = ts_w_add(ts_w_load(b->inv_mass_a), ts_w_load(b->inv_mass_b));
    ts_wsym3 ia = ts_wsym3_load(b->inv_inertia_a);
    ts_wsym3 ib = ts_wsym3_load(b->inv_inertia_b);
    ts_wv3 ca;
    derive_points(b, bounce, in, n, mass, ia, ib, &ca);
    derive_friction(b, n, t1, t2, mass, ia, ib, ca);
    if (bounce) {
        derive_gravity_approach(c, bounce, in, n);
    }
}

/* The most points of any lane, and whether some used lane has fewer. */
static void count_points(ts_contact_bundle *b, const int points[TS_W])
{
    int most = 0, fewest = TS_CONTACT_POINTS;
    for (int l = 0; l < TS_W; ++l) {
        if (b->contact_slot[l] >= 0) {
            most = points[l] > most ? points[l] : most;
            fewest = points[l] < fewest ? points[l] : fewest;
        }
    }
    b->point_count = most;
    b->mixed = most > 0 && fewest < most;
}

/* Whether some lane has restitution. */
static bool any_restitution(const ts_contact_bundle *b)
{
    for (int l = 0; l < TS_W; ++l) {
        if (b->restitution[l] > 0.0f) {
            return true;
        }
    }
    return false;
}

void TS_WIDE(ts_contact_prepare_bundle)(const ts_contact_prepare_context *c, ts_contact_bundle *b,
                                        ts_contact_bounce_lanes *bounce, const int32_t *contacts, int32_t count,
                                        int32_t first_contact, int lanes)
{
    lane_inputs in;
    lane_slots x;
    gather_slots(c, b, &in, contacts, count, first_contact, lanes, &x);
    gather_lanes(c, b, &x);
    gather_points(c, b, &in, x.contact, x.points);
    b->restitutes = any_restitution(b);
    b->rolls = gather_rolling(c, b);
    b->bounces = (b->restitutes || c->track_approach) && bounce != NULL;
    if (b->bounces) {
        gather_velocities(c, b->body_a, in.va, in.wa, in.gravity_scale_a);
        gather_velocities(c, b->body_b, in.vb, in.wb, in.gravity_scale_b);
    }
    derive(c, b, b->bounces ? bounce : NULL, &in);
    count_points(b, x.points);
}

void TS_WIDE(ts_contact_store_impulses)(ts_records *records, const ts_contact_bundle *b)
{
    ts_contact_store *s = &records->contact_store;
    for (int l = 0; l < TS_W; ++l) {
        int32_t i = b->contact_slot[l];
        if (i < 0) {
            continue;
        }
        for (int k = 0; k < s->point_count[i]; ++k) {
            s->normal_impulse[4 * i + k] = b->points[k].normal_impulse[l];
        }
        s->friction_impulse1[i] = b->friction_impulse[0][l];
        s->friction_impulse2[i] = b->friction_impulse[1][l];
        s->twist_impulse[i] = b->twist_impulse[l];
    }
    if (!b->rolls) {
        return;
    }
    for (int l = 0; l < TS_W; ++l) {
        int32_t i = b->contact_slot[l];
        if (i >= 0) {
            s->rolling_impulse1[i] = b->rolling_impulse[0][l];
            s->rolling_impulse2[i] = b->rolling_impulse[1][l];
        }
    }
}

/* Tangent impulses become a world vector (tangent2 = normal x tangent1, as
 * the kernels form it). A hit is an impact: a contact that carried no
 * impulse into the step (its warm start load is 0) and pushed in it; of its
 * points that pushed (largest increment > 0) the fastest approach counts
 * (relative_velocity is n . dv when the point first pushed, negative when
 * approaching). A box that lands is still sinking into the soft contact at
 * the next step's start (1.3 m/s after a 6.3 m/s landing), but that
 * contact then carries the landing's impulse: one hit, not two. */
void TS_WIDE(ts_contact_report_bundle)(const ts_records *records, const ts_contact_bundle *b,
                                       const ts_contact_bounce_lanes *bounce, const ts_contact_total_lanes *totals,
                                       ts_contact_report_entry *report, int32_t step)
{
    const ts_contact_store *s = &records->contact_store;
    for (int l = 0; l < TS_W; ++l) {
        int32_t i = b->contact_slot[l];
        if (i < 0) {
            continue;
        }
        ts_contact_report_entry *e = report + s->table.id_of_slot[i];
        *e = (ts_contact_report_entry){.step = step, .hit_point = -1};
        if (totals != NULL) {
            ts_vec3 n = ts_v3(b->normal[0][l], b->normal[1][l], b->normal[2][l]);
            ts_vec3 t1 = ts_v3(b->tangent1[0][l], b->tangent1[1][l], b->tangent1[2][l]);
            ts_vec3 t2 = ts_cross(n, t1);
            e->normal_impulse = totals->normal[l];
            e->tangent_impulse = ts_add(ts_scale(totals->tangent[0][l], t1), ts_scale(totals->tangent[1][l], t2));
        }
        if (bounce != NULL && b->load[l] == 0.0f) {
            for (int k = 0; k < s->point_count[i]; ++k) {
                float approach = -bounce->relative_velocity[k][l];
                if (bounce->max_normal_impulse[k][l] > 0.0f && approach > e->hit_speed) {
                    e->hit_speed = approach;
                    e->hit_point = k;
                }
            }
        }
    }
}

/* The soft-step solver of a step (see solver.h), compiled once per SIMD
 * width TS_W: prepares the body states and one constraint bundle per TS_W
 * touching contacts of a graph colour,
 * then runs, per substep,
 *
 *   integrate velocities, warm start, solve (soft bias), integrate positions,
 *   relax (no bias)
 *
 * and after the substeps restitution and the impulse store; finally writes
 * the bodies back and updates their shape bounds. Colours run in order; the
 * bundles of a colour are split across threads (a barrier between colours);
 * the overflow bundles run on one thread after the colours. */
#include "solver.h"

#include "../collide/broadphase.h"
#include "../error.h"
#include "../math3.h"
#include "../soa/array.h"
#include "../timer.h"
#include "../world.h"
#include "contact_solver.h"
#include "integrate.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many awake bodies the solve runs on the calling thread. */
#define TS_PARALLEL_MIN_BODIES 1024
#define TS_BODY_BLOCK 256

/* ---- soft constraint coefficients ---- */

typedef struct softness {
    float bias_rate, mass_scale, impulse_scale;
} softness;

/* A spring of frequency hertz and damping ratio zeta, integrated implicitly
 * over h (see contact_solver.c for the derivation). */
static softness make_soft(float hertz, float zeta, float h)
{
    float omega = 2.0f * TS_PI * hertz;
    float a1 = 2.0f * zeta + h * omega;
    float a2 = h * omega * a1;
    float a3 = 1.0f / (1.0f + a2);
    return (softness){omega / a1, a2 * a3, a3};
}

/* ---- preparing the constraints ---- */

typedef struct prepare_context {
    const ts_world *world;
    int32_t awake;   /* awake bodies; the dummy state is at this index */
    softness soft;   /* contacts between dynamic bodies */
    softness stiff;  /* contacts with a static or kinematic body */
    bool warm_start;
} prepare_context;

/* A unit vector perpendicular to n, chosen the same way every step so that
 * tangent impulses warm start along the same axes. */
static ts_vec3 perpendicular(ts_vec3 n)
{
    ts_vec3 t = fabsf(n.x) >= 0.57735f ? ts_v3(n.y, -n.x, 0.0f) : ts_v3(0.0f, n.z, -n.y);
    return ts_scale(1.0f / ts_length(t), t);
}

/* R diag(d) R^T for the rotation q of the principal frame. */
static void world_inverse_inertia(ts_quat q, ts_vec3 d, float out[6])
{
    ts_vec3 ex = ts_rotate(q, ts_v3(1, 0, 0));
    ts_vec3 ey = ts_rotate(q, ts_v3(0, 1, 0));
    ts_vec3 ez = ts_rotate(q, ts_v3(0, 0, 1));
    /* columns of R are ex, ey, ez: M_ij = sum_k R_ik d_k R_jk */
    out[0] = d.x * ex.x * ex.x + d.y * ey.x * ey.x + d.z * ez.x * ez.x;
    out[1] = d.x * ex.y * ex.y + d.y * ey.y * ey.y + d.z * ez.y * ez.y;
    out[2] = d.x * ex.z * ex.z + d.y * ey.z * ey.z + d.z * ez.z * ez.z;
    out[3] = d.x * ex.x * ex.y + d.y * ey.x * ey.y + d.z * ez.x * ez.y;
    out[4] = d.x * ex.x * ex.z + d.y * ey.x * ey.z + d.z * ez.x * ez.z;
    out[5] = d.x * ex.y * ex.z + d.y * ey.y * ey.z + d.z * ez.y * ez.z;
}

static ts_vec3 sym_mul(const float m[6], ts_vec3 v)
{
    return ts_v3(m[0] * v.x + m[3] * v.y + m[4] * v.z, m[3] * v.x + m[1] * v.y + m[5] * v.z,
                 m[4] * v.x + m[5] * v.y + m[2] * v.z);
}

/* 1 / (mA + mB + (rA x d) . IA^-1 (rA x d) + (rB x d) . IB^-1 (rB x d)), or 0. */
static float effective_mass(float ma, float mb, const float ia[6], const float ib[6], ts_vec3 ra, ts_vec3 rb,
                            ts_vec3 d)
{
    ts_vec3 rda = ts_cross(ra, d);
    ts_vec3 rdb = ts_cross(rb, d);
    float k = ma + mb + ts_dot(rda, sym_mul(ia, rda)) + ts_dot(rdb, sym_mul(ib, rdb));
    return k > 0.0f ? 1.0f / k : 0.0f;
}

typedef struct body_view {
    int32_t state; /* index into the states, the dummy unless awake */
    float inv_mass;
    float inv_inertia[6];
    ts_vec3 v, w;
} body_view;

static body_view view_body(const prepare_context *c, int32_t body)
{
    const ts_body_store *s = &c->world->store;
    int32_t i = s->table.slot_of_id[body];
    body_view b = {c->awake, 0.0f, {0}, {0, 0, 0}, {0, 0, 0}};
    if (i < c->awake) {
        b.state = i;
        b.inv_mass = s->inv_mass[i];
        world_inverse_inertia((ts_quat){s->qx[i], s->qy[i], s->qz[i], s->qw[i]},
                              ts_v3(s->inv_ix[i], s->inv_iy[i], s->inv_iz[i]), b.inv_inertia);
        b.v = ts_v3(s->vx[i], s->vy[i], s->vz[i]);
        b.w = ts_v3(s->wx[i], s->wy[i], s->wz[i]);
    }
    return b;
}

static void empty_lane(ts_contact_bundle *b, int l, int32_t dummy)
{
    b->body_a[l] = dummy;
    b->body_b[l] = dummy;
    b->contact_slot[l] = -1;
    b->inv_mass_a[l] = 0.0f;
    b->inv_mass_b[l] = 0.0f;
    for (int k = 0; k < 6; ++k) {
        b->inv_inertia_a[k][l] = 0.0f;
        b->inv_inertia_b[k][l] = 0.0f;
    }
    for (int k = 0; k < 3; ++k) {
        b->normal[k][l] = 0.0f;
        b->tangent1[k][l] = 0.0f;
        b->tangent2[k][l] = 0.0f;
    }
    b->friction[l] = 0.0f;
    b->restitution[l] = 0.0f;
    for (int k = 0; k < 3; ++k) {
        b->center_a[k][l] = 0.0f;
        b->center_b[k][l] = 0.0f;
        b->tangent_mass[k][l] = 0.0f;
    }
    b->twist_mass[l] = 0.0f;
    b->friction_impulse[0][l] = 0.0f;
    b->friction_impulse[1][l] = 0.0f;
    b->twist_impulse[l] = 0.0f;
    b->bias_rate[l] = 0.0f;
    b->mass_scale[l] = 1.0f;
    b->impulse_scale[l] = 0.0f;
    for (int p = 0; p < 4; ++p) {
        ts_contact_point_lanes *cp = b->points + p;
        for (int k = 0; k < 3; ++k) {
            cp->anchor_a[k][l] = 0.0f;
            cp->anchor_b[k][l] = 0.0f;
        }
        cp->base_separation[l] = 0.0f;
        cp->normal_mass[l] = 0.0f;
        cp->normal_impulse[l] = 0.0f;
        cp->lever_arm[l] = 0.0f;
        cp->relative_velocity[l] = 0.0f;
        cp->max_normal_impulse[l] = 0.0f;
    }
}

static void store3(float rows[3][TS_W], int l, ts_vec3 v)
{
    rows[0][l] = v.x;
    rows[1][l] = v.y;
    rows[2][l] = v.z;
}

/* The 2x2 tangent effective mass at the centres: K_ij = (mA + mB) d_ij +
 * (cA x ti) . IA^-1 (cA x tj) + (cB x ti) . IB^-1 (cB x tj), inverted; and
 * the twist mass 1 / (n . (IA^-1 + IB^-1) n). */
static void prepare_friction(const prepare_context *c, ts_contact_bundle *b, int l, const body_view *a,
                             const body_view *bb, ts_vec3 ca, ts_vec3 cb, ts_vec3 n, ts_vec3 t1, ts_vec3 t2,
                             int32_t slot)
{
    const ts_contact_store *s = &c->world->contact_store;
    ts_vec3 a1 = ts_cross(ca, t1), a2 = ts_cross(ca, t2), b1 = ts_cross(cb, t1), b2 = ts_cross(cb, t2);
    float m = a->inv_mass + bb->inv_mass;
    float kxx = m + ts_dot(a1, sym_mul(a->inv_inertia, a1)) + ts_dot(b1, sym_mul(bb->inv_inertia, b1));
    float kyy = m + ts_dot(a2, sym_mul(a->inv_inertia, a2)) + ts_dot(b2, sym_mul(bb->inv_inertia, b2));
    float kxy = ts_dot(a1, sym_mul(a->inv_inertia, a2)) + ts_dot(b1, sym_mul(bb->inv_inertia, b2));
    float det = kxx * kyy - kxy * kxy;
    float inv_det = det > 0.0f ? 1.0f / det : 0.0f;
    store3(b->center_a, l, ca);
    store3(b->center_b, l, cb);
    b->tangent_mass[0][l] = inv_det * kyy;
    b->tangent_mass[1][l] = -inv_det * kxy;
    b->tangent_mass[2][l] = inv_det * kxx;
    float k_twist = ts_dot(n, sym_mul(a->inv_inertia, n)) + ts_dot(n, sym_mul(bb->inv_inertia, n));
    b->twist_mass[l] = k_twist > 0.0f ? 1.0f / k_twist : 0.0f;
    b->friction_impulse[0][l] = c->warm_start ? s->friction_impulse1[slot] : 0.0f;
    b->friction_impulse[1][l] = c->warm_start ? s->friction_impulse2[slot] : 0.0f;
    b->twist_impulse[l] = c->warm_start ? s->twist_impulse[slot] : 0.0f;
}

static void prepare_lane(const prepare_context *c, ts_contact_bundle *b, int l, int32_t contact)
{
    const ts_world *world = c->world;
    const ts_contact_store *s = &world->contact_store;
    int32_t i = s->table.slot_of_id[contact];
    empty_lane(b, l, c->awake);
    body_view a = view_body(c, s->body_a[i]);
    body_view bb = view_body(c, s->body_b[i]);
    b->body_a[l] = a.state;
    b->body_b[l] = bb.state;
    b->contact_slot[l] = i;
    b->inv_mass_a[l] = a.inv_mass;
    b->inv_mass_b[l] = bb.inv_mass;
    for (int k = 0; k < 6; ++k) {
        b->inv_inertia_a[k][l] = a.inv_inertia[k];
        b->inv_inertia_b[k][l] = bb.inv_inertia[k];
    }
    ts_vec3 n = ts_v3(s->nx[i], s->ny[i], s->nz[i]);
    ts_vec3 t1 = perpendicular(n);
    ts_vec3 t2 = ts_cross(n, t1);
    store3(b->normal, l, n);
    store3(b->tangent1, l, t1);
    store3(b->tangent2, l, t2);
    b->friction[l] = s->friction[i];
    b->restitution[l] = s->restitution[i];
    softness soft = a.inv_mass == 0.0f || bb.inv_mass == 0.0f ? c->stiff : c->soft;
    b->bias_rate[l] = soft.bias_rate;
    b->mass_scale[l] = soft.mass_scale;
    b->impulse_scale[l] = soft.impulse_scale;

    int count = s->point_count[i];
    ts_vec3 ca = {0, 0, 0}, cb = {0, 0, 0};
    for (int k = 0; k < count; ++k) {
        int p = 4 * i + k;
        ca = ts_add(ca, ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]));
        cb = ts_add(cb, ts_v3(s->anchor_bx[p], s->anchor_by[p], s->anchor_bz[p]));
    }
    float inv_count = count > 0 ? 1.0f / (float)count : 0.0f;
    ca = ts_scale(inv_count, ca);
    cb = ts_scale(inv_count, cb);
    for (int k = 0; k < count; ++k) {
        int p = 4 * i + k;
        ts_contact_point_lanes *cp = b->points + k;
        ts_vec3 ra = ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]);
        ts_vec3 rb = ts_v3(s->anchor_bx[p], s->anchor_by[p], s->anchor_bz[p]);
        store3(cp->anchor_a, l, ra);
        store3(cp->anchor_b, l, rb);
        cp->base_separation[l] = s->separation[p] - ts_dot(ts_sub(rb, ra), n);
        cp->normal_mass[l] = effective_mass(a.inv_mass, bb.inv_mass, a.inv_inertia, bb.inv_inertia, ra, rb, n);
        cp->normal_impulse[l] = c->warm_start ? s->normal_impulse[p] : 0.0f;
        cp->lever_arm[l] = ts_length(ts_sub(ra, ca));
        ts_vec3 vb = ts_add(bb.v, ts_cross(bb.w, rb));
        ts_vec3 va = ts_add(a.v, ts_cross(a.w, ra));
        cp->relative_velocity[l] = ts_dot(n, ts_sub(vb, va));
    }
    prepare_friction(c, b, l, &a, &bb, ca, cb, n, t1, t2, i);
}

/* The contacts of a colour packed `lanes` to a bundle (TS_W, or 1 for the
 * overflow, whose contacts may share bodies and so must run one by one). */
static void prepare_bundle(const prepare_context *c, ts_contact_bundle *b, const ts_graph_color *color,
                           int32_t first_contact, int lanes)
{
    for (int l = 0; l < TS_W; ++l) {
        int32_t k = first_contact + l;
        if (l < lanes && k < color->count) {
            prepare_lane(c, b, l, color->contacts[k]);
        } else {
            empty_lane(b, l, c->awake);
        }
    }
}

static void store_impulses(ts_world *world, const ts_contact_bundle *b)
{
    ts_contact_store *s = &world->contact_store;
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
}

/* ---- the parallel region ---- */

typedef struct solve_context {
    ts_world *world;
    ts_solver_scratch *scratch;
    prepare_context prepare;
    ts_contact_solver_context kernels;
    ts_vec3 gravity;
    float h;
    int substeps;
    int32_t awake;
    int32_t body_blocks;
    int32_t *first_bad; /* per thread */
    ts_step_profile *profile;
} solve_context;

static inline int32_t min_slot(int32_t a, int32_t b) { return a < b ? a : b; }

static int thread_index(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static void block_range(int32_t block, int32_t count, int32_t *begin, int32_t *end)
{
    *begin = block * TS_BODY_BLOCK;
    *end = *begin + TS_BODY_BLOCK < count ? *begin + TS_BODY_BLOCK : count;
}

typedef enum pass { PASS_WARM_START, PASS_SOLVE, PASS_RELAX, PASS_RESTITUTION, PASS_STORE } pass;

/* Most contacts do not bounce; their bundles skip the restitution pass. */
static bool any_restitution(const ts_contact_bundle *b)
{
    for (int l = 0; l < TS_W; ++l) {
        if (b->restitution[l] > 0.0f) {
            return true;
        }
    }
    return false;
}

static void run_bundle(solve_context *c, ts_contact_bundle *b, pass kind)
{
    switch (kind) {
    case PASS_WARM_START: TS_WIDE(ts_contact_warm_start)(&c->kernels, b); break;
    case PASS_SOLVE: TS_WIDE(ts_contact_solve)(&c->kernels, b, true); break;
    case PASS_RELAX: TS_WIDE(ts_contact_solve)(&c->kernels, b, false); break;
    case PASS_RESTITUTION:
        if (any_restitution(b)) {
            TS_WIDE(ts_contact_restitution)(&c->kernels, b);
        }
        break;
    case PASS_STORE: store_impulses(c->world, b); break;
    }
}

/* Colours in order, the bundles of each split across the team; then the
 * overflow bundles on one thread, in order. */
static void run_colors(solve_context *c, pass kind)
{
    const int32_t *begin = c->scratch->color_begin;
    for (int color = 0; color < TS_GRAPH_COLOR_COUNT; ++color) {
        if (begin[color + 1] == begin[color]) {
            continue;
        }
#pragma omp for schedule(static)
        for (int32_t k = begin[color]; k < begin[color + 1]; ++k) {
            run_bundle(c, (ts_contact_bundle *)c->scratch->bundles + k, kind);
        }
    }
    if (begin[TS_OVERFLOW_COLOR + 1] > begin[TS_OVERFLOW_COLOR]) {
#pragma omp single
        for (int32_t k = begin[TS_OVERFLOW_COLOR]; k < begin[TS_OVERFLOW_COLOR + 1]; ++k) {
            run_bundle(c, (ts_contact_bundle *)c->scratch->bundles + k, kind);
        }
    }
}

/* Thread 0 charges the time since the last mark to a stage. */
static void lap(bool timed, double *mark, double *stage)
{
    if (timed) {
        double now = ts_now_ms();
        *stage += now - *mark;
        *mark = now;
    }
}

static void run_solver(solve_context *c, bool timed)
{
    ts_step_profile *p = c->profile;
    double mark = timed ? ts_now_ms() : 0.0;
    int32_t bad = INT32_MAX;
    ts_solver_scratch *scratch = c->scratch;
    ts_contact_bundle *bundles = scratch->bundles;

#pragma omp for schedule(static)
    for (int32_t block = 0; block < c->body_blocks; ++block) {
        int32_t begin, end;
        block_range(block, c->awake, &begin, &end);
        ts_states_begin(scratch->states, &c->world->store, begin, end);
    }
    for (int color = 0; color <= TS_OVERFLOW_COLOR; ++color) {
        const ts_graph_color *gc = c->world->graph.colors + color;
        int32_t first = scratch->color_begin[color];
        int lanes = color == TS_OVERFLOW_COLOR ? 1 : TS_W;
#pragma omp for schedule(static) nowait
        for (int32_t k = first; k < scratch->color_begin[color + 1]; ++k) {
            prepare_bundle(&c->prepare, bundles + k, gc, (k - first) * lanes, lanes);
        }
    }
#pragma omp barrier
    lap(timed, &mark, &p->prepare);

    for (int sub = 0; sub < c->substeps; ++sub) {
#pragma omp for schedule(static)
        for (int32_t block = 0; block < c->body_blocks; ++block) {
            int32_t begin, end;
            block_range(block, c->awake, &begin, &end);
            bad = min_slot(bad, ts_integrate_velocities(scratch->states, &c->world->store, begin, end, c->gravity, c->h));
        }
        lap(timed, &mark, &p->integrate_velocities);
        run_colors(c, PASS_WARM_START);
        lap(timed, &mark, &p->warm_start);
        run_colors(c, PASS_SOLVE);
        lap(timed, &mark, &p->solve);
#pragma omp for schedule(static)
        for (int32_t block = 0; block < c->body_blocks; ++block) {
            int32_t begin, end;
            block_range(block, c->awake, &begin, &end);
            bad = min_slot(bad, ts_integrate_positions(scratch->states, &c->world->store, begin, end, c->h));
        }
        lap(timed, &mark, &p->integrate_positions);
        run_colors(c, PASS_RELAX);
        lap(timed, &mark, &p->relax);
    }
    run_colors(c, PASS_RESTITUTION);
    lap(timed, &mark, &p->restitution);
#pragma omp for schedule(static)
    for (int32_t k = 0; k < scratch->color_begin[TS_OVERFLOW_COLOR + 1]; ++k) {
        store_impulses(c->world, bundles + k);
    }
    lap(timed, &mark, &p->store_impulses);
#pragma omp for schedule(static)
    for (int32_t block = 0; block < c->body_blocks; ++block) {
        int32_t begin, end;
        block_range(block, c->awake, &begin, &end);
        ts_states_finish(scratch->states, &c->world->store, begin, end);
        ts_broadphase_compute_bounds(c->world, begin, end);
    }
    lap(timed, &mark, &p->finalize);
    c->first_bad[thread_index()] = bad;
}

/* ---- the entry ---- */

static bool reserve_scratch(ts_world *world, int32_t awake)
{
    ts_solver_scratch *s = &world->solver_scratch;
    int32_t bundles = 0;
    for (int color = 0; color < TS_OVERFLOW_COLOR; ++color) {
        s->color_begin[color] = bundles;
        bundles += (world->graph.colors[color].count + TS_W - 1) / TS_W;
    }
    s->color_begin[TS_OVERFLOW_COLOR] = bundles;
    bundles += world->graph.colors[TS_OVERFLOW_COLOR].count; /* one lane each */
    s->color_begin[TS_OVERFLOW_COLOR + 1] = bundles;
    return ts_array_reserve(&world->allocator, (void **)&s->states, &s->state_capacity, awake + 1,
                            sizeof(ts_body_state)) &&
           ts_array_reserve(&world->allocator, &s->bundles, &s->bundle_bytes,
                            bundles * (int32_t)sizeof(ts_contact_bundle), 1);
}

ts_result TS_WIDE(ts_solve)(ts_world *world, float dt, int32_t *held)
{
    *held = -1;
    int32_t awake = world->store.table.end[TS_RANGE_AWAKE];
    if (!reserve_scratch(world, awake)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (solver scratch)");
    }
    ts_solver_scratch *scratch = &world->solver_scratch;
    scratch->states[awake] = ts_body_state_at_rest(ts_v3(0, 0, 0), ts_v3(0, 0, 0)); /* the dummy */

    float h = dt / (float)world->substeps;
    /* The contact spring stays well below the substep rate. */
    float hertz = world->contact_hertz < 0.25f / h ? world->contact_hertz : 0.25f / h;
    int32_t first_bad[TS_MAX_THREADS];
    solve_context c = {
        .world = world,
        .scratch = scratch,
        .prepare = {world, awake, make_soft(hertz, world->contact_damping_ratio, h),
                    make_soft(2.0f * hertz, world->contact_damping_ratio, h), world->enable_warm_starting},
        .kernels = {scratch->states, 1.0f / h, world->contact_push_speed, world->restitution_threshold},
        .gravity = world->gravity,
        .h = h,
        .substeps = world->substeps,
        .awake = awake,
        .body_blocks = (awake + TS_BODY_BLOCK - 1) / TS_BODY_BLOCK,
        .first_bad = first_bad,
        .profile = &world->profile,
    };
    int threads = awake >= TS_PARALLEL_MIN_BODIES ? world->thread_count : 1;
    for (int t = 0; t < threads; ++t) {
        first_bad[t] = INT32_MAX;
    }
#ifdef _OPENMP
    if (threads > 1) {
        /* The team may come out smaller than asked; unused entries stay INT32_MAX. */
#pragma omp parallel num_threads(threads)
        run_solver(&c, omp_get_thread_num() == 0);
    } else {
        run_solver(&c, true);
    }
#else
    run_solver(&c, true);
#endif
    int32_t bad = INT32_MAX;
    for (int t = 0; t < threads; ++t) {
        bad = min_slot(bad, first_bad[t]);
    }
    if (bad != INT32_MAX) {
        *held = world->store.table.id_of_slot[bad];
        return TS_ERROR_NOT_FINITE;
    }
    return TS_OK;
}

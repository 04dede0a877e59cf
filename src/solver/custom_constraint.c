/* Custom constraints in the solvers: the rows of the program's callback,
 * solved one after the other by both solvers (see custom_constraint.h for
 * the update rules). Scalar and compiled once; a body is read from its
 * state and written back only when dynamic and awake (inverse mass > 0), so
 * static, kinematic and sleeping bodies and the dummy state are never
 * changed. */
#include "solver/custom_constraint.h"

#include "base/math3.h"

#include <math.h>

/* ---- bodies ---- */

/* Body `body` as the step starts: its state and, when awake, its inverse
 * mass and world inverse inertia (from ts_states_begin, with motion locks
 * applied); its simulation frame and the frame's place in the body. */
static ts_custom_body body_at_start(const ts_records *records, int32_t body, int32_t awake)
{
    const ts_body_store *s = &records->store;
    int32_t i = s->table.slot_of_id[body];
    const ts_mass_data *md = &records->bodies[body].mass_data;
    ts_custom_body b = {awake, 0.0f, {0}, {s->px[i], s->py[i], s->pz[i]}, {s->qx[i], s->qy[i], s->qz[i], s->qw[i]},
                        md->center, md->principal_rotation};
    if (i < awake) {
        b.state = i;
        b.inv_mass = s->inv_mass[i];
        float inertia[6] = {s->inv_iw_xx[i], s->inv_iw_yy[i], s->inv_iw_zz[i],
                            s->inv_iw_xy[i], s->inv_iw_xz[i], s->inv_iw_yz[i]};
        for (int k = 0; k < 6; ++k) {
            b.inv_inertia[k] = inertia[k];
        }
    }
    return b;
}

/* The world at rest: the second body of a one-body constraint. */
static ts_custom_body world_body(int32_t awake)
{
    return (ts_custom_body){awake, 0.0f, {0}, {0, 0, 0}, TS_QUAT_IDENTITY, {0, 0, 0}, TS_QUAT_IDENTITY};
}

/* The body now: its simulation frame moved by its state's dp, dq, turned
 * back into its origin frame (origin rotation = simulation rotation *
 * conj(principal); origin = centre - origin rotation * local centre). */
static ts_constraint_body body_now(const ts_custom_body *b, const ts_body_state *states)
{
    const ts_body_state *s = states + b->state;
    ts_vec3 center = ts_add(b->p0, s->dp);
    ts_quat q = ts_quat_normalize(ts_quat_mul(s->dq, b->q0));
    ts_quat rotation = ts_quat_mul(q, ts_quat_conj(b->principal));
    return (ts_constraint_body){ts_sub(center, ts_rotate(rotation, b->center)), rotation, center, s->v, s->w};
}

/* ---- rows ---- */

static const ts_constraint_row default_row = {
    .lower = -INFINITY,
    .upper = INFINITY,
};

static bool finite3(ts_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* Everything a solver reads is a number it can use (constraint.h, "Bad rows"). */
static bool row_is_good(const ts_constraint_row *r)
{
    return isfinite(r->value) && finite3(r->linear_a) && finite3(r->angular_a) && finite3(r->linear_b) &&
           finite3(r->angular_b) && isfinite(r->compliance) && isfinite(r->stiffness) && isfinite(r->damping) &&
           isfinite(r->target_velocity) && !isnan(r->lower) && !isnan(r->upper) && r->lower <= r->upper &&
           r->compliance >= 0.0f && r->stiffness >= 0.0f && r->damping >= 0.0f;
}

/* The callback's rows for the bodies' pose in `states`; false (and the lane
 * dropped) when a row is bad. */
static bool evaluate(ts_custom_lane *lane, const ts_body_state *states, float h)
{
    ts_constraint_input in = {body_now(&lane->body[0], states), body_now(&lane->body[1], states), !lane->single,
                              lane->row_count, h};
    for (int i = 0; i < lane->row_count; ++i) {
        lane->rows[i] = default_row;
    }
    lane->evaluate(&in, lane->rows, lane->context);
    for (int i = 0; i < lane->row_count; ++i) {
        if (!row_is_good(lane->rows + i)) {
            lane->dropped = true;
            return false;
        }
    }
    bool drive = false;
    for (int i = 0; i < lane->row_count; ++i) {
        drive = drive || lane->rows[i].velocity_only || lane->rows[i].damping > 0.0f;
    }
    lane->drive = drive;
    return true;
}

/* Symmetric 3x3 (xx yy zz xy xz yz) times v, in the order of ts_wsym3_mul. */
static ts_vec3 sym_mul(const float m[6], ts_vec3 v)
{
    return ts_v3(m[0] * v.x + m[3] * v.y + m[4] * v.z, m[3] * v.x + m[1] * v.y + m[5] * v.z,
                 m[4] * v.x + m[5] * v.y + m[2] * v.z);
}

/* J M^-1 J^T of a row: the inverse mass the row sees. */
static float row_k(const ts_constraint_row *r, const ts_custom_lane *lane)
{
    const ts_custom_body *a = lane->body, *b = lane->body + 1;
    return a->inv_mass * ts_dot(r->linear_a, r->linear_a) + b->inv_mass * ts_dot(r->linear_b, r->linear_b) +
           ts_dot(r->angular_a, sym_mul(a->inv_inertia, r->angular_a)) +
           ts_dot(r->angular_b, sym_mul(b->inv_inertia, r->angular_b));
}

/* dC/dt now. */
static float row_velocity(const ts_constraint_row *r, const ts_body_state *a, const ts_body_state *b)
{
    return ts_dot(r->linear_a, a->v) + ts_dot(r->angular_a, a->w) + ts_dot(r->linear_b, b->v) +
           ts_dot(r->angular_b, b->w);
}

/* An impulse along the row: v += m^-1 impulse J_v, w += I^-1 (impulse J_w). */
static void row_apply(const ts_constraint_row *r, const ts_custom_lane *lane, ts_body_state *a, ts_body_state *b,
                      float impulse)
{
    a->v = ts_mul_add(a->v, lane->body[0].inv_mass * impulse, r->linear_a);
    a->w = ts_add(a->w, sym_mul(lane->body[0].inv_inertia, ts_scale(impulse, r->angular_a)));
    b->v = ts_mul_add(b->v, lane->body[1].inv_mass * impulse, r->linear_b);
    b->w = ts_add(b->w, sym_mul(lane->body[1].inv_inertia, ts_scale(impulse, r->angular_b)));
}

/* The two solvers' softness of a row: each reads its own field, else the
 * other's inverse (constraint.h); beyond 1e30 N/m a row is rigid. */
static float row_stiffness(const ts_constraint_row *r)
{
    float k = r->stiffness > 0.0f ? r->stiffness : (r->compliance > 0.0f ? 1.0f / r->compliance : 0.0f);
    return k < 1.0e30f ? k : 0.0f;
}

static float row_compliance(const ts_constraint_row *r)
{
    return r->compliance > 0.0f ? r->compliance : (r->stiffness > 0.0f ? 1.0f / r->stiffness : 0.0f);
}

static float clamp(float x, float lower, float upper)
{
    x = x < upper ? x : upper;
    return x > lower ? x : lower;
}

/* The lane's two states, read and written back. */
typedef struct lane_states {
    ts_body_state a, b;
} lane_states;

static lane_states load_states(const ts_custom_lane *lane, const ts_body_state *states)
{
    return (lane_states){states[lane->body[0].state], states[lane->body[1].state]};
}

static void store_states(const ts_custom_lane *lane, ts_body_state *states, const lane_states *s)
{
    if (lane->body[0].inv_mass > 0.0f) {
        states[lane->body[0].state] = s->a;
    }
    if (lane->body[1].inv_mass > 0.0f) {
        states[lane->body[1].state] = s->b;
    }
}

/* The joint's kept impulse of row i (constraint rows in ts_joint.impulses). */
static float *kept_impulse(ts_joint_impulses *impulses, int i)
{
    float *rows[6] = {&impulses->linear.x,  &impulses->linear.y,  &impulses->linear.z,
                      &impulses->angular.x, &impulses->angular.y, &impulses->angular.z};
    return rows[i];
}

/* ---- the step's start ---- */

void ts_custom_prepare(ts_custom_lane *lane, const ts_records *records, const ts_body_state *states, int32_t joint,
                       int32_t awake, float h, bool warm_start, bool xpbd)
{
    const ts_joint *j = records->joints + joint;
    lane->joint = joint;
    lane->row_count = j->custom.row_count;
    lane->evaluate = j->custom.evaluate;
    lane->context = j->custom.context;
    lane->single = j->edges[1].body == j->edges[0].body;
    lane->dropped = j->custom.dropped;
    lane->drive = false;
    lane->body[0] = body_at_start(records, j->edges[0].body, awake);
    lane->body[1] = lane->single ? world_body(awake) : body_at_start(records, j->edges[1].body, awake);
    ts_joint_impulses kept = j->impulses;
    for (int i = 0; i < TS_CONSTRAINT_MAX_ROWS; ++i) {
        lane->impulse[i] = warm_start && !xpbd && i < lane->row_count && !lane->dropped ? *kept_impulse(&kept, i) : 0.0f;
        lane->mass[i] = 0.0f;
    }
    if (lane->dropped || !evaluate(lane, states, h)) {
        return;
    }
    for (int i = 0; i < lane->row_count; ++i) {
        float k = row_k(lane->rows + i, lane);
        lane->mass[i] = k > 0.0f ? 1.0f / k : 0.0f;
    }
}

/* ---- soft step ---- */

void ts_custom_warm_start(ts_custom_lane *lanes, int count, const ts_custom_pass *pass)
{
    for (int l = 0; l < count; ++l) {
        ts_custom_lane *lane = lanes + l;
        if (lane->dropped || !evaluate(lane, pass->states, pass->h)) {
            continue;
        }
        lane_states s = load_states(lane, pass->states);
        for (int i = 0; i < lane->row_count; ++i) {
            row_apply(lane->rows + i, lane, &s.a, &s.b, lane->impulse[i]);
        }
        store_states(lane, pass->states, &s);
    }
}

/* The impulse change of row i (custom_constraint.h), clamped. */
static float solve_row(ts_custom_lane *lane, int i, const lane_states *s, const ts_custom_pass *pass)
{
    const ts_constraint_row *r = lane->rows + i;
    float m = lane->mass[i], old = lane->impulse[i];
    float cdot = row_velocity(r, &s->a, &s->b);
    float delta;
    if (r->velocity_only) {
        delta = -(m * (cdot - r->target_velocity));
    } else {
        float k = row_stiffness(r), c = r->damping;
        float bias, mass_scale, impulse_scale;
        if (k > 0.0f || c > 0.0f) { /* an implicit spring and damper */
            float d = c + pass->h * k;
            float m_gamma = m / (pass->h * d);
            bias = k / d * r->value;
            mass_scale = 1.0f / (1.0f + m_gamma);
            impulse_scale = m_gamma * mass_scale;
        } else {
            bool ahead = (r->lower >= 0.0f && r->value > 0.0f) || (r->upper <= 0.0f && r->value < 0.0f);
            bias = ahead ? r->value * pass->inv_h : pass->bias_rate * r->value;
            mass_scale = ahead ? 1.0f : pass->mass_scale;
            impulse_scale = ahead ? 0.0f : pass->impulse_scale;
        }
        delta = -((m * mass_scale) * (cdot + bias)) - impulse_scale * old;
    }
    float total = clamp(old + delta, r->lower * pass->h, r->upper * pass->h);
    lane->impulse[i] = total;
    return total - old;
}

void ts_custom_solve(ts_custom_lane *lanes, int count, const ts_custom_pass *pass)
{
    for (int l = 0; l < count; ++l) {
        ts_custom_lane *lane = lanes + l;
        if (lane->dropped || !evaluate(lane, pass->states, pass->h)) {
            continue;
        }
        lane_states s = load_states(lane, pass->states);
        for (int i = 0; i < lane->row_count; ++i) {
            row_apply(lane->rows + i, lane, &s.a, &s.b, solve_row(lane, i, &s, pass));
        }
        store_states(lane, pass->states, &s);
    }
}

/* ---- XPBD ---- */

/* q turned by the small world rotation t, to first order, at most 0.25 rad
 * (the operations of ts_xpbd_turn_by, xpbd_lanes.h). */
static ts_quat turn_by(ts_quat q, ts_vec3 t)
{
    const float max_turn = 0.25f;
    float angle_sq = ts_dot(t, t);
    if (angle_sq > max_turn * max_turn) {
        t = ts_scale(max_turn / sqrtf(angle_sq), t);
    }
    float x = t.x * q.w + t.y * q.z - t.z * q.y;
    float y = t.y * q.w - t.x * q.z + t.z * q.x;
    float z = t.x * q.y + t.z * q.w - t.y * q.x;
    float w = -(t.x * q.x) - t.y * q.y - t.z * q.z;
    return (ts_quat){q.x + 0.5f * x, q.y + 0.5f * y, q.z + 0.5f * z, q.w + 0.5f * w};
}

/* A pose correction of the pair: moves and turns of A and B. */
typedef struct correction {
    ts_vec3 move_a, turn_a, move_b, turn_b;
} correction;

static void xpbd_lane_positions(ts_custom_lane *lane, const ts_custom_pass *pass)
{
    float h2 = pass->h * pass->h, inv_h2 = pass->inv_h * pass->inv_h;
    const ts_custom_body *a = lane->body, *b = lane->body + 1;
    correction d = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (int i = 0; i < lane->row_count; ++i) {
        const ts_constraint_row *r = lane->rows + i;
        lane->impulse[i] = 0.0f;
        if (r->velocity_only) {
            continue;
        }
        float c = r->value + ts_dot(r->linear_a, d.move_a) + ts_dot(r->angular_a, d.turn_a) +
                  ts_dot(r->linear_b, d.move_b) + ts_dot(r->angular_b, d.turn_b);
        float k = row_k(r, lane) + row_compliance(r) * inv_h2;
        float m = k > 0.0f ? 1.0f / k : 0.0f;
        float lambda = clamp(-(m * c), r->lower * h2, r->upper * h2);
        d.move_a = ts_mul_add(d.move_a, a->inv_mass * lambda, r->linear_a);
        d.turn_a = ts_add(d.turn_a, sym_mul(a->inv_inertia, ts_scale(lambda, r->angular_a)));
        d.move_b = ts_mul_add(d.move_b, b->inv_mass * lambda, r->linear_b);
        d.turn_b = ts_add(d.turn_b, sym_mul(b->inv_inertia, ts_scale(lambda, r->angular_b)));
        lane->impulse[i] = lambda * pass->inv_h; /* N s */
    }
    lane_states s = load_states(lane, pass->states);
    s.a.dp = ts_add(s.a.dp, d.move_a);
    s.a.dq = turn_by(s.a.dq, d.turn_a);
    s.b.dp = ts_add(s.b.dp, d.move_b);
    s.b.dq = turn_by(s.b.dq, d.turn_b);
    store_states(lane, pass->states, &s);
}

void ts_custom_xpbd_positions(ts_custom_lane *lanes, int count, const ts_custom_pass *pass)
{
    for (int l = 0; l < count; ++l) {
        ts_custom_lane *lane = lanes + l;
        if (!lane->dropped && evaluate(lane, pass->states, pass->h)) {
            xpbd_lane_positions(lane, pass);
        }
    }
}

void ts_custom_xpbd_velocities(ts_custom_lane *lanes, int count, const ts_custom_pass *pass)
{
    for (int l = 0; l < count; ++l) {
        ts_custom_lane *lane = lanes + l;
        if (lane->dropped || !lane->drive || !evaluate(lane, pass->states, pass->h)) {
            continue;
        }
        lane_states s = load_states(lane, pass->states);
        for (int i = 0; i < lane->row_count; ++i) {
            const ts_constraint_row *r = lane->rows + i;
            float k = row_k(r, lane), cdot = row_velocity(r, &s.a, &s.b), impulse;
            if (r->velocity_only) { /* a motor: dC/dt to its target within its force */
                float m = k > 0.0f ? 1.0f / k : 0.0f;
                impulse = clamp(m * (r->target_velocity - cdot), r->lower * pass->h, r->upper * pass->h);
            } else if (r->damping > 0.0f) { /* an implicit damper */
                float ch = r->damping * pass->h;
                impulse = -(ch * cdot) / (1.0f + ch * k);
            } else {
                continue;
            }
            row_apply(r, lane, &s.a, &s.b, impulse);
            lane->impulse[i] += impulse;
        }
        store_states(lane, pass->states, &s);
    }
}

/* ---- after the substeps ---- */

void ts_custom_store(const ts_custom_lane *lanes, int count, ts_records *records, float inv_h)
{
    for (int l = 0; l < count; ++l) {
        const ts_custom_lane *lane = lanes + l;
        ts_joint *j = records->joints + lane->joint;
        ts_vec3 force = {0, 0, 0}, torque = {0, 0, 0};
        for (int i = 0; i < TS_CONSTRAINT_MAX_ROWS; ++i) {
            float impulse = i < lane->row_count && !lane->dropped ? lane->impulse[i] : 0.0f;
            *kept_impulse(&j->impulses, i) = impulse;
            if (i >= lane->row_count || lane->dropped) {
                continue;
            }
            /* the force on B (on A, reversed, for a one-body constraint) */
            const ts_constraint_row *r = lane->rows + i;
            float f = impulse * inv_h;
            force = lane->single ? ts_mul_add(force, -f, r->linear_a) : ts_mul_add(force, f, r->linear_b);
            torque = lane->single ? ts_mul_add(torque, -f, r->angular_a) : ts_mul_add(torque, f, r->angular_b);
        }
        j->reaction_force = force;
        j->reaction_torque = torque;
    }
}

int32_t ts_custom_take_dropped(const ts_custom_lane *lanes, int32_t count, ts_records *records)
{
    int32_t first = -1;
    for (int32_t l = 0; l < count; ++l) {
        ts_joint *j = records->joints + lanes[l].joint;
        if (lanes[l].dropped && !j->custom.reported) {
            j->custom.dropped = true;
            j->custom.reported = true;
            first = first < 0 || lanes[l].joint < first ? lanes[l].joint : first;
        }
    }
    return first;
}

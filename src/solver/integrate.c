/* Semi-implicit Euler integration of free motion, one substep at a time, on
 * the solver's body states (the wide substep loops are in integrate_wide.c;
 * this file begins and finishes the states of a step) (velocity, and position / rotation deltas since
 * the step began; the store keeps the start pose until ts_states_finish).
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
 * spinning bodies. Kinematic bodies (inverse mass 0) keep their w as set. */
#include "solver/integrate.h"

#include "base/math3.h"
#include "solver/speed_lanes.h"

/* Column pointers as restrict locals: the columns never overlap, and saying
 * so lets the compiler keep values in registers. */
#define COLUMN(name) const float *TS_RESTRICT name = store->name

static inline ts_quat start_rotation(const ts_body_store *store, int32_t i)
{
    return (ts_quat){store->qx[i], store->qy[i], store->qz[i], store->qw[i]};
}

/* ts_states_finish of a body with motion locks (motion_locks.h): the
 * locked components of its position and velocities keep their bits, and
 * its rotation too when all three angular axes are locked. lv and lw are
 * its velocities already within the speed limits (locks act after the
 * limits, as in the wide finish). */
static void finish_locked(const ts_body_state *s, ts_body_store *t, int32_t i, uint32_t locks, ts_wv3 lv, ts_wv3 lw)
{
    float *p[3] = {t->px, t->py, t->pz}, *v[3] = {t->vx, t->vy, t->vz}, *w[3] = {t->wx, t->wy, t->wz};
    float dp[3] = {s->dp.x, s->dp.y, s->dp.z}, sv[3] = {lv.x, lv.y, lv.z}, sw[3] = {lw.x, lw.y, lw.z};
    for (int k = 0; k < 3; ++k) {
        bool linear = (locks >> k & 1u) != 0, angular = (locks >> (3 + k) & 1u) != 0;
        p[k][i] = linear ? p[k][i] : p[k][i] + dp[k];
        v[k][i] = linear ? 0.0f : sv[k];
        w[k][i] = angular ? 0.0f : sw[k];
    }
    if ((locks & 0x38u) != 0x38u) {
        ts_quat q = ts_quat_normalize(ts_quat_mul(s->dq, start_rotation(t, i)));
        t->qx[i] = q.x;
        t->qy[i] = q.y;
        t->qz[i] = q.z;
        t->qw[i] = q.w;
    }
    t->fx[i] = 0.0f;
    t->fy[i] = 0.0f;
    t->fz[i] = 0.0f;
    t->tx[i] = 0.0f;
    t->ty[i] = 0.0f;
    t->tz[i] = 0.0f;
}

void ts_states_finish(const ts_body_state *states, ts_body_store *store, int32_t begin, int32_t end,
                      ts_speed_limit speed_limit)
{
    ts_body_store *t = store;
    speed_lanes linear = speed_lanes_of(speed_limit.linear), angular = speed_lanes_of(speed_limit.angular);
    for (int32_t i = begin; i < end; ++i) {
        const ts_body_state *s = states + i;
        /* within the limits, as the wide finish (speed_lanes.h at one lane) */
        bool clamped = false;
        ts_wv3 v = limit_speed((ts_wv3){s->v.x, s->v.y, s->v.z}, &linear, &clamped);
        ts_wv3 w = limit_speed((ts_wv3){s->w.x, s->w.y, s->w.z}, &angular, &clamped);
        uint32_t locks = store->locked_count != 0 ? (uint32_t)store->locks[i] : 0u;
        if (locks != 0) {
            finish_locked(s, store, i, locks, v, w);
            continue;
        }
        t->px[i] += s->dp.x;
        t->py[i] += s->dp.y;
        t->pz[i] += s->dp.z;
        ts_quat q = ts_quat_normalize(ts_quat_mul(s->dq, start_rotation(store, i)));
        t->qx[i] = q.x;
        t->qy[i] = q.y;
        t->qz[i] = q.z;
        t->qw[i] = q.w;
        t->vx[i] = v.x;
        t->vy[i] = v.y;
        t->vz[i] = v.z;
        t->wx[i] = w.x;
        t->wy[i] = w.y;
        t->wz[i] = w.z;
        t->fx[i] = 0.0f;
        t->fy[i] = 0.0f;
        t->fz[i] = 0.0f;
        t->tx[i] = 0.0f;
        t->ty[i] = 0.0f;
        t->tz[i] = 0.0f;
    }
}

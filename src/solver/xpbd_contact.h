/* The XPBD contact kernels (Müller et al. 2020, "Detailed Rigid Body
 * Simulation with Extended Position Based Dynamics") on the soft step's
 * contact bundles: the same preparation (anchors fixed at the step's start
 * relative to the centres of mass, base separations, normal and tangent
 * masses, friction centre), plus a few lanes of XPBD state per bundle
 * (ts_xpbd_contact_lanes, kept beside the bundles). Compiled once per width
 * TS_W; every lane follows the same IEEE operations at every width.
 *
 * Per substep (xpbd_solver.c has the order and the reasons):
 *   approach:   each point's normal velocity at the substep's start (only
 *               in steps with a bouncing contact);
 *   warm start: before the positions are integrated, the normal impulses of
 *               the last substep, scaled by TS_XPBD_WARM_SCALE, and the
 *               friction and twist impulses, whole, as velocity changes;
 *   positions:  each point's separation from the fixed anchors and the body
 *               deltas dp, dq; a rigid position correction along the normal
 *               (three sweeps over the points, in an order that alternates
 *               from substep to substep, then the manifold's change
 *               over-relaxed by TS_XPBD_OVER_RELAX), continuing the warm-started
 *               multiplier, which stays >= 0; the velocities follow;
 *   velocities: each pushing point's normal velocity to its restitution
 *               target (0, or -e times the approach speed above
 *               max(2|g|h, world threshold)), then friction and twist as
 *               accumulated impulses within μ times the normal impulse. */
#ifndef TS_XPBD_CONTACT_H
#define TS_XPBD_CONTACT_H

#include "soa/records.h"
#include "solver/contact_solver.h"

/* XPBD's lanes of one contact bundle (same lane order). */
typedef struct ts_xpbd_contact_lanes {
    float start_separation[4][TS_W]; /* the narrowphase separation at the step's start */
    float lambda[4][TS_W];           /* normal multiplier of this substep (warm start included), kg m */
    float approach[4][TS_W];         /* normal velocity at this substep's start, before its warm start */
    float deep[TS_W]; /* 1: a point of the lane's contact started the step deeper than TS_CONTACT_PUSH_DEPTH */
    int32_t any_deep; /* some lane did: the push pass moves the bundle's deep lanes (per lane: same at every width) */
} ts_xpbd_contact_lanes;

typedef struct ts_xpbd_context {
    ts_body_state *states; /* awake bodies by slot, then the dummy */
    /* in a step that started with overlap deeper than TS_CONTACT_PUSH_DEPTH
     * (xpbd_push.c): the states at the substep's start, by slot; else NULL */
    const ts_body_state *substep_start;
    float h, inv_h;        /* substep and its inverse */
    float push_speed;      /* largest speed at which overlap from before the step is pushed out, m/s */
    float push_step;       /* push_speed h: the most a deep contact's overlap shrinks per substep, m */
    float restitution_threshold; /* approach speed below which nothing bounces, m/s */
    float warm_scale;     /* part of the last substep's normal impulses applied by the warm start (0: none) */
    int substeps;         /* substeps of the step */
    bool switched;        /* the first step after a switch from the soft step: old overlap goes evenly */
} ts_xpbd_context;

/* At the step's start: start separations, zero multipliers. Returns whether
 * a point of the bundle starts deeper than TS_CONTACT_PUSH_DEPTH (the step
 * then runs the push pass, xpbd_push.c). */
bool TS_WIDE(ts_xpbd_contact_begin)(const ts_xpbd_context *c, const ts_contact_bundle *b, ts_xpbd_contact_lanes *x);

/* Whether some lane of the bundle has restitution (its points need their
 * approach speeds). */
bool TS_WIDE(ts_xpbd_contact_bounces)(const ts_contact_bundle *b);

/* At a substep's start, before the warm start (in a step where some
 * contact bounces, or with hit events on): each point's normal velocity,
 * the approach speed restitution and hit events answer (in bundles with
 * neither restitution nor hits tracked, b->bounces, nothing). */
void TS_WIDE(ts_xpbd_contact_approach)(const ts_xpbd_context *c, const ts_contact_bundle *b, ts_xpbd_contact_lanes *x);

/* The warm start of a substep, before its positions are integrated: the
 * velocity changes of warm_scale times the last substep's normal impulses
 * (which the position pass's multipliers then continue from) and of the
 * whole friction and twist impulses. */
void TS_WIDE(ts_xpbd_contact_warm_start)(const ts_xpbd_context *c, ts_contact_bundle *b, ts_xpbd_contact_lanes *x);

/* The position pass of substep `substep` (0-based; the push-out allowance
 * grows with the time since the step's start, and the points' order
 * alternates with its parity). Writes the poses and velocities of dynamic
 * bodies only. With c->substep_start, overlap deeper than
 * TS_CONTACT_PUSH_DEPTH at the substep's start is left to the push pass. */
void TS_WIDE(ts_xpbd_contact_solve_positions)(const ts_xpbd_context *c, const ts_contact_bundle *b,
                                              ts_xpbd_contact_lanes *x, int substep);

/* The velocity pass: restitution or rest, friction, twist; records this
 * substep's impulses in the bundle (normal_impulse, friction_impulse,
 * twist_impulse): the next warm start's, and what ts_contact_store_impulses
 * reports. In a world that reports (solver/contact_report.h), bounce
 * (hit events: each point's approach when it first pushed, and whether it
 * did) and totals (the step's impulses) are kept, else NULL. */
void TS_WIDE(ts_xpbd_contact_solve_velocities)(const ts_xpbd_context *c, ts_contact_bundle *b,
                                               const ts_xpbd_contact_lanes *x, ts_contact_bounce_lanes *bounce,
                                               ts_contact_total_lanes *totals);

/* The push pass (xpbd_push.c), after the velocity pass of a substep in a
 * step with deep overlap: in a bundle with a point that started the step
 * deeper than TS_CONTACT_PUSH_DEPTH, moves the bodies of each point deeper
 * than that apart by positions only, at most push_step. */
void TS_WIDE(ts_xpbd_contact_push)(const ts_xpbd_context *c, const ts_contact_bundle *b,
                                   const ts_xpbd_contact_lanes *x);

#endif

/* The XPBD contact kernels (Müller et al. 2020, "Detailed Rigid Body
 * Simulation with Extended Position Based Dynamics") on the soft step's
 * contact bundles: the same preparation (anchors fixed at the step's start
 * relative to the centres of mass, base separations, normal and tangent
 * masses, friction centre), plus a few lanes of XPBD state per bundle
 * (ts_xpbd_contact_lanes, kept beside the bundles). Compiled once per width
 * TS_W; every lane follows the same IEEE operations at every width.
 *
 * Per substep, after the bodies' poses were predicted:
 *   positions:  each point's separation from the fixed anchors and the body
 *               deltas dp, dq; a rigid (or compliant) position correction
 *               along the normal (two sweeps over the points); then
 *               static friction as a position constraint at the manifold
 *               centre, held at an origin kept across steps, while
 *               |λ_t| <= μ max(Σ λ_n, the last substep's load);
 *   velocities: (after the body velocities were derived from the pose
 *               change) each pushing point's normal velocity is set to its
 *               restitution target (0, or -e times the approach speed above
 *               max(2|g|h, world threshold)), then dynamic friction and
 *               twist as impulses limited by μ times the normal impulse. */
#ifndef TS_XPBD_CONTACT_H
#define TS_XPBD_CONTACT_H

#include "soa/records.h"
#include "solver/contact_solver.h"


/* XPBD's lanes of one contact bundle (same lane order). */
typedef struct ts_xpbd_contact_lanes {
    float start_separation[4][TS_W]; /* the narrowphase separation at the step's start */
    float lambda[4][TS_W];           /* normal multiplier of this substep's position pass, kg m */
    float approach[4][TS_W];         /* normal velocity before this substep's position pass */
    float slip_origin[2][TS_W];      /* tangential offset (t1, t2) of the centres where static friction holds them */
    float held[TS_W];                /* 1 when static friction held the lane this substep */
    float static_lambda[2][TS_W];    /* this substep's static friction multipliers, kg m */
    float slip[2][TS_W]; /* slip origin - centre offset at the last velocity pass (stored across steps) */
    float load[TS_W]; /* Σ normal impulse x h of the last substep (the last step's at the start), kg m */
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
    float compliance;        /* α̃ = α / h^2 of contacts between dynamic bodies, 1/kg */
    float static_compliance; /* α̃ of contacts with a static or kinematic body */
    int point_sweeps; /* Gauss-Seidel sweeps over a manifold's points per position pass */
} ts_xpbd_context;

/* At the step's start: start separations, slip origins (kept from the last
 * step in the contact store), zero multipliers. Returns whether a point of
 * the bundle starts deeper than TS_CONTACT_PUSH_DEPTH (the step then runs
 * the push pass, xpbd_push.c). */
bool TS_WIDE(ts_xpbd_contact_begin)(const ts_xpbd_context *c, const ts_records *records, const ts_contact_bundle *b,
                                    ts_xpbd_contact_lanes *x);

/* Writes the bundle's impulses (reported) and slip offsets (kept for the
 * next step) to the contact store. */
void TS_WIDE(ts_xpbd_contact_store)(ts_records *records, const ts_contact_bundle *b,
                                    const ts_xpbd_contact_lanes *x);

/* The position pass of substep `substep` (0-based; the push-out allowance
 * grows with the time since the step's start). Writes dp, dq of dynamic
 * bodies only. With c->substep_start, overlap deeper than
 * TS_CONTACT_PUSH_DEPTH at the substep's start is left to the push pass. */
void TS_WIDE(ts_xpbd_contact_solve_positions)(const ts_xpbd_context *c, const ts_contact_bundle *b,
                                              ts_xpbd_contact_lanes *x, int substep);

/* The velocity pass: restitution or rest, dynamic friction, twist; records
 * this substep's impulses in the bundle (normal_impulse, friction_impulse,
 * twist_impulse) for ts_contact_store_impulses. */
void TS_WIDE(ts_xpbd_contact_solve_velocities)(const ts_xpbd_context *c, ts_contact_bundle *b,
                                               ts_xpbd_contact_lanes *x);

/* The push pass (xpbd_push.c), after the velocity pass of a substep in a
 * step with deep overlap: in a bundle with a point that started the step
 * deeper than TS_CONTACT_PUSH_DEPTH, moves the bodies of each point deeper
 * than that apart by positions only, at most push_step. */
void TS_WIDE(ts_xpbd_contact_push)(const ts_xpbd_context *c, const ts_contact_bundle *b,
                                   const ts_xpbd_contact_lanes *x);

#endif

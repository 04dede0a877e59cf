/* Preparing the contact bundles of a step: for each lane (one touching
 * manifold) the bodies' state indices, masses and world inverse inertias,
 * the normal and tangent frames, anchors, effective masses, the soft
 * constraint coefficients and the warm-start impulses; and, after the
 * substeps, storing the impulses back for the next step. Compiled once per
 * width TS_W, like the kernels that read the bundles. */
#ifndef TS_CONTACT_PREPARE_H
#define TS_CONTACT_PREPARE_H

#include "base/math3.h"
#include "islands/graph.h"
#include "soa/records.h"
#include "solver/contact_solver.h"

/* Soft constraint coefficients of a spring (see contact_solver.c). */
typedef struct ts_softness {
    float bias_rate, mass_scale, impulse_scale;
    float spring_rate; /* h omega^2: the spring's impulse per substep and metre, per unit of effective mass */
} ts_softness;

/* A spring of frequency hertz and damping ratio zeta, integrated implicitly
 * over h (see contact_solver.c for the derivation). */
static inline ts_softness ts_make_softness(float hertz, float zeta, float h)
{
    float omega = 2.0f * TS_PI * hertz;
    float a1 = 2.0f * zeta + h * omega;
    float a2 = h * omega * a1;
    float a3 = 1.0f / (1.0f + a2);
    return (ts_softness){omega / a1, a2 * a3, a3, h * omega * omega};
}

typedef struct ts_contact_prepare_context {
    const ts_records *records;
    int32_t awake;     /* awake bodies; the dummy state is at this index */
    ts_softness soft;  /* contacts between dynamic bodies */
    ts_softness stiff; /* contacts with a static or kinematic body */
    bool warm_start;
    ts_vec3 gravity_h; /* world gravity x substep: the velocity one substep of free flight adds */
    float mass_ratio;  /* ts_world_def.contact_mass_ratio; 0 = exact masses (XPBD) */
    bool track_approach; /* hit events: every bundle keeps the approach speeds (as bouncing ones do) */
} ts_contact_prepare_context;

/* Fills bundle b with contacts[first_contact .. + lanes - 1] of a colour's
 * count contacts (lanes is TS_W, or 1 for the overflow, whose contacts may
 * share bodies and so must run one by one); lanes past the end, and those
 * whose entry is -1 (the paired order's pad, contact_order.h), are empty;
 * lane 0 never is.
 * When a lane has restitution (b->restitutes), or c->track_approach,
 * b->bounces is set and the approach speeds go to *bounce (the soft step's;
 * XPBD passes NULL and keeps its own). */
void TS_WIDE(ts_contact_prepare_bundle)(const ts_contact_prepare_context *c, ts_contact_bundle *b,
                                        ts_contact_bounce_lanes *bounce, const int32_t *contacts, int32_t count,
                                        int32_t first_contact, int lanes);

/* Writes the bundle's accumulated impulses back to the contact store. */
void TS_WIDE(ts_contact_store_impulses)(ts_records *records, const ts_contact_bundle *b);

/* Writes each lane's step totals (totals, or NULL) and fastest pushing
 * approach (bounce, or NULL) to report[contact id], stamped with step. */
struct ts_contact_report_entry;
void TS_WIDE(ts_contact_report_bundle)(const ts_records *records, const ts_contact_bundle *b,
                                       const ts_contact_bounce_lanes *bounce, const ts_contact_total_lanes *totals,
                                       struct ts_contact_report_entry *report, int32_t step);

#endif

/* The soft-step contact solver: contacts packed into bundles of TS_W lanes
 * (this header and its kernels are compiled once per width; the bundle
 * layout and every function name carry the width)
 * (one lane = one manifold of up to 4 points) and the width-generic kernels
 * that solve them. Every kernel works on one bundle whose lanes touch
 * different dynamic bodies (they come from one graph colour), so bundles of a
 * colour run in any order on any thread.
 *
 * Unused lanes point at the dummy body state (zero velocity, never written
 * back), so no lane needs a branch. Kernels visit only the bundle's
 * point_count points (contacts are bundled with others of as many points,
 * see ts_contact_order_color); in a mixed bundle a lane's unused points, which
 * have zero masses and impulses, are masked out, so a lane's bits never
 * depend on the lanes it shares a bundle with. */
#ifndef TS_CONTACT_SOLVER_H
#define TS_CONTACT_SOLVER_H

#include "solver/body_state.h"
#include "base/wide.h"

#include "base/core.h"

#include <stddef.h>

typedef struct ts_contact_point_lanes {
    float anchor_a[3][TS_W]; /* point - centre of mass of A at the step's start, world; B's is anchor_a + anchor_shift */
    float base_separation[TS_W]; /* separation - n . anchor_shift: add n . (moved B - moved A) */
    float normal_mass[TS_W];     /* 1 / effective mass along n (0 for an unused point) */
    float normal_impulse[TS_W];  /* accumulated over the step (warm started from the last) */
    float lever_arm[TS_W];       /* distance from the friction centre, for the twist limit */
} ts_contact_point_lanes;

/* At W >= 4 every bundle starts on a 64-byte line, so no row load splits
 * a line and the next bundle's prefetch covers whole lines. */
#define TS_CONTACT_BUNDLE_ALIGN (TS_W >= 4 ? 64 : 4)

/* What a pass reads is what it streams from memory (large scenes' bundles
 * outgrow the caches), so the bundle keeps only what cannot be formed
 * cheaply: B's anchors are A's plus one shift per lane, tangent2 is
 * normal x tangent1, and restitution's bookkeeping lives beside the bundle
 * (ts_contact_bounce_lanes), touched only where a lane bounces. */
typedef struct ts_contact_bundle {
    _Alignas(TS_CONTACT_BUNDLE_ALIGN) int32_t body_a[TS_W]; /* body state index (the dummy for static bodies and empty lanes) */
    int32_t body_b[TS_W];
    int32_t contact_slot[TS_W]; /* contact store slot, -1 for an empty lane */
    float inv_mass_a[TS_W];
    float inv_mass_b[TS_W];
    float inv_inertia_a[6][TS_W]; /* world inverse inertia at the step's start: xx yy zz xy xz yz */
    float inv_inertia_b[6][TS_W];
    float normal[3][TS_W]; /* from A to B */
    float tangent1[3][TS_W]; /* tangent2 = normal x tangent1 */
    /* anchor_b - anchor_a = centre of A - centre of B at the step's start,
     * the same for every point of the manifold and its friction centre */
    float anchor_shift[3][TS_W];
    float friction[TS_W];
    float restitution[TS_W];
    /* Friction acts at the manifold's centre (the mean of its anchors) along
     * both tangents at once, with a twist impulse about the normal for the
     * spin a single point cannot resist (Box3D's model). */
    float center_a[3][TS_W]; /* B's: center_a + anchor_shift */
    float tangent_mass[3][TS_W]; /* inverse of the 2x2 tangent effective mass: xx, xy, yy */
    float twist_mass[TS_W];
    float friction_impulse[2][TS_W];
    float twist_impulse[TS_W];
    float bias_rate[TS_W]; /* soft constraint coefficients of this lane (static contacts are stiffer) */
    /* h (2 pi f)^2 of the lane's spring: its impulse per substep at depth d
     * is normal mass x spring_rate x d */
    float spring_rate[TS_W];
    /* twice the mean normal impulse of the lane's points at the step's
     * start: the most a point's spring may carry and still be the load's
     * (see unexplained_overlap in contact_solver.c) */
    float load[TS_W];
    float mass_scale[TS_W];
    float impulse_scale[TS_W];
    ts_contact_point_lanes points[4];
    int32_t point_count; /* the most points of any lane */
    int32_t mixed;       /* 1 when some used lane has fewer than point_count */
    int32_t bounces;     /* 1 when the solve pass fills ts_contact_bounce_lanes: some lane has restitution, or hit events are on */
    int32_t restitutes;  /* 1 when some lane has restitution (the restitution pass runs) */
    int32_t rolls;       /* 1 when some lane has rolling resistance (the rows below are filled) */
    /* Rolling resistance (solver/contact_rolling.h), last so that bundles
     * without it never touch (nor prefetch) these lines: the lever (rolling
     * resistance x rolling radius, m; 0 for none) and the accumulated
     * angular impulse about tangent1 and tangent2. Its angular mass is
     * formed in the kernel from the inertias, not stored (3 rows more per
     * bundle for every world). */
    float rolling_resistance[TS_W];
    float rolling_impulse[2][TS_W];
} ts_contact_bundle;

/* Restitution's bookkeeping for one bundle, kept beside the bundles and
 * touched only by bundles with a bouncing lane. */
typedef struct ts_contact_bounce_lanes {
    float relative_velocity[4][TS_W];  /* approach speed of the point when it first pushed (see ts_contact_solve) */
    float max_normal_impulse[4][TS_W]; /* largest increment this step: 0 means it never pushed */
    float gravity_approach[TS_W];      /* n . (gB - gA) h: the approach one substep of free flight adds */
} ts_contact_bounce_lanes;

/* What the bundle's lanes pushed over the whole step, kept beside the
 * bundles only while a world reports impulses (tessera/contact_report.h):
 * each substep applies its final accumulated impulse (the warm start
 * applies the last substep's, solve and relax add to it), so the step's
 * total is the sum over substeps of the impulses at the end of the relax
 * pass, plus restitution's increment. */
typedef struct ts_contact_total_lanes {
    float normal[TS_W];     /* sum over the points and substeps, N s */
    float tangent[2][TS_W]; /* friction along tangent1 and tangent2, summed over the substeps */
} ts_contact_total_lanes;

/* Asks for the lines of a bundle that a pass will read (all but the
 * rolling rows at the end: most bundles never read them), eight at a time:
 * a loop of one prefetch a turn spent three instructions of loop on each
 * line, 10% of a pass's instructions (callgrind, W = 8). */
TS_FORCE_INLINE void ts_contact_prefetch_bundle(const ts_contact_bundle *b)
{
    const char *p = (const char *)b;
    enum { lines = (offsetof(ts_contact_bundle, rolling_resistance) + 63) / 64 };
    int k = 0;
    for (; k + 8 <= lines; k += 8) {
        TS_PREFETCH(p + 64 * k);
        TS_PREFETCH(p + 64 * k + 64);
        TS_PREFETCH(p + 64 * k + 128);
        TS_PREFETCH(p + 64 * k + 192);
        TS_PREFETCH(p + 64 * k + 256);
        TS_PREFETCH(p + 64 * k + 320);
        TS_PREFETCH(p + 64 * k + 384);
        TS_PREFETCH(p + 64 * k + 448);
    }
    for (; k < lines; ++k) {
        TS_PREFETCH(p + 64 * k);
    }
}

/* B's anchor of a point, and the tangent not stored. */
TS_FORCE_INLINE ts_wv3 ts_contact_anchor_b(ts_wv3 anchor_a, ts_wv3 shift) { return ts_wv3_add(anchor_a, shift); }
TS_FORCE_INLINE ts_wv3 ts_contact_tangent2(ts_wv3 normal, ts_wv3 tangent1) { return ts_wv3_cross(normal, tangent1); }

/* Overlap deeper than this that the contact's load does not explain is
 * moved out by positions, not pushed out by the spring (see push_out in
 * contact_solver.c); loaded overlap is the spring's at any depth. 2 cm:
 * Box2D v3's speculative distance, 4x its linear slop. */
#define TS_CONTACT_PUSH_DEPTH 0.02f
/* Part of the overlap beyond the push depth moved out per pass (0.2 to 0.8
 * all recover the overlap test within a few steps of each other). */
#define TS_CONTACT_PUSH_FRACTION 0.5f

/* Settings of one step shared by every kernel. */
typedef struct ts_contact_solver_context {
    ts_body_state *states; /* awake bodies by slot, then the dummy */
    float inv_h;           /* 1 / substep */
    float push_speed;      /* largest speed at which overlap is pushed out, m/s */
    float push_step;       /* largest move of a deep contact per pass: push_speed h (m) */
    float restitution_threshold;
} ts_contact_solver_context;

/* Applies the accumulated impulses (the warm start of a substep). */
void TS_WIDE(ts_contact_warm_start)(const ts_contact_solver_context *c, ts_contact_bundle *b);

/* One pass of sequential impulses (bounce: the bundle's restitution
 * bookkeeping, NULL unless b->bounces). Solve (use_bias): the normal impulses
 * with the soft bias only, pushing overlap out. Relax: the normal impulses
 * without bias, then friction, so that friction acts on the velocities the
 * step keeps and not on the push-out (Box3D's split; in our tests it drifts a
 * pyramid's top less than friction in both passes). Both passes move
 * overlap beyond TS_CONTACT_PUSH_DEPTH that the load does not explain
 * apart by positions. */
void TS_WIDE(ts_contact_solve)(const ts_contact_solver_context *c, ts_contact_bundle *b,
                               ts_contact_bounce_lanes *bounce, bool use_bias);

/* The relax pass (ts_contact_solve without bias) that also adds the lanes'
 * impulses to *totals (worlds that report impulses). */
void TS_WIDE(ts_contact_relax_totals)(const ts_contact_solver_context *c, ts_contact_bundle *b,
                                      ts_contact_bounce_lanes *bounce, ts_contact_total_lanes *totals);

/* After the substeps: bounce points that approached faster than the threshold. */
void TS_WIDE(ts_contact_restitution)(const ts_contact_solver_context *c, ts_contact_bundle *b,
                                     const ts_contact_bounce_lanes *bounce, ts_contact_total_lanes *totals);

#endif

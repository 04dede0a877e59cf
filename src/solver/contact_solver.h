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

#include "body_state.h"
#include "wide.h"

typedef struct ts_contact_point_lanes {
    float anchor_a[3][TS_W];  /* point - centre of mass of A at the step's start, world */
    float anchor_b[3][TS_W];
    float base_separation[TS_W]; /* separation - n . (anchor_b - anchor_a): add n . (moved B - moved A) */
    float normal_mass[TS_W];     /* 1 / effective mass along n (0 for an unused point) */
    float normal_impulse[TS_W]; /* accumulated over the step (warm started from the last) */
    float lever_arm[TS_W];      /* distance from the friction centre, for the twist limit */
    float relative_velocity[TS_W];  /* fastest approach in the step, for restitution */
    float max_normal_impulse[TS_W]; /* largest increment this step: 0 means it never pushed */
} ts_contact_point_lanes;

typedef struct ts_contact_bundle {
    int32_t body_a[TS_W]; /* body state index (the dummy for static bodies and empty lanes) */
    int32_t body_b[TS_W];
    int32_t contact_slot[TS_W]; /* contact store slot, -1 for an empty lane */
    float inv_mass_a[TS_W];
    float inv_mass_b[TS_W];
    float inv_inertia_a[6][TS_W]; /* world inverse inertia at the step's start: xx yy zz xy xz yz */
    float inv_inertia_b[6][TS_W];
    float normal[3][TS_W]; /* from A to B */
    float tangent1[3][TS_W];
    float tangent2[3][TS_W]; /* normal x tangent1 */
    float friction[TS_W];
    float restitution[TS_W];
    /* Friction acts at the manifold's centre (the mean of its anchors) along
     * both tangents at once, with a twist impulse about the normal for the
     * spin a single point cannot resist (Box3D's model). */
    float center_a[3][TS_W];
    float center_b[3][TS_W];
    float tangent_mass[3][TS_W]; /* inverse of the 2x2 tangent effective mass: xx, xy, yy */
    float twist_mass[TS_W];
    float friction_impulse[2][TS_W];
    float twist_impulse[TS_W];
    float bias_rate[TS_W]; /* soft constraint coefficients of this lane (static contacts are stiffer) */
    float mass_scale[TS_W];
    float impulse_scale[TS_W];
    ts_contact_point_lanes points[4];
    int32_t point_count; /* the most points of any lane */
    int32_t mixed;       /* 1 when some used lane has fewer than point_count */
} ts_contact_bundle;

/* Overlap up to this depth is the soft spring's (a loaded stack rests a
 * few mm deep; a tall one up to ~1.5 cm at its base); beyond it the solve and
 * relax passes move positions apart (Box2D v3's speculative distance, 4x its
 * linear slop). Measured on large_pyramid and the 25%-overlap pyramid: 1 cm
 * lets heavy stacks sink onto the cap, 3 cm launches overlap faster. */
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

/* One pass of sequential impulses. Solve (use_bias): the normal impulses
 * with the soft bias only, pushing overlap out. Relax: the normal impulses
 * without bias, then friction, so that friction acts on the velocities the
 * step keeps and not on the push-out (Box3D's split; in our tests it drifts a
 * pyramid's top less than friction in both passes). Both passes move
 * points deeper than TS_CONTACT_PUSH_DEPTH apart by positions. */
void TS_WIDE(ts_contact_solve)(const ts_contact_solver_context *c, ts_contact_bundle *b, bool use_bias);

/* After the substeps: bounce points that approached faster than the threshold. */
void TS_WIDE(ts_contact_restitution)(const ts_contact_solver_context *c, ts_contact_bundle *b);

#endif

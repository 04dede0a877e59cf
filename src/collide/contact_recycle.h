/* Contact recycling: a touching manifold kept, frozen in world space, while
 * its two shapes barely move relative to each other.
 *
 * A full narrowphase test writes the manifold (normal, anchors relative to
 * the centres of mass, separations) and remembers the two shapes' poses. In
 * later steps, while body B's centre has moved less than TS_RECYCLE_DISTANCE
 * along the normal and TS_RECYCLE_SLIDE across it relative to body A's (in
 * the world; their relative turn counted as the arc the farthest point
 * travels), the two move
 * apart by less than TS_RECYCLE_SLIDE a step, and neither body has turned
 * more than ~10 degrees, the normal and
 * the anchors stay as they were, in world orientation, and only each point's
 * separation is brought up to date: the gap between the two material points
 * the anchors named, moved with their bodies,
 *
 *     s = s0 + n . ((cB + dqB rB) - (cA + dqA rA)),
 *
 * with dq each body's rotation since the full test (at that test the two
 * material points coincide, so s = s0 there exactly).
 *
 * Why frozen and not turned with the bodies: a soft contact is a spring of
 * stiffness m (2 pi f)^2, a compliance the method adds and rigid boxes do not
 * have. A tall stack or a one-box-thick wall leans on that compliance, and
 * contact geometry that turns with the lean adds the lean's overturning
 * moment (its weight times its offset, "P-delta") to the springs' restoring
 * one: a 20-box column of unit cubes at 30 Hz is then unstable (measured
 * here, and so a spring model of it predicts), and large_pyramid's wall
 * leaves its plane. Frozen geometry keeps the load's line of action where the
 * full test found it, so the springs alone decide the lean, as for rigid
 * boxes. Box3D's contact recycling does the same (its "keep anchors but
 * update separation", within 5 cm of relative motion in any direction); its
 * 60-box column and its B = 100 pyramid stand for that reason (measured:
 * its 10-box column bends as springs without the lean's moment predict). */
#ifndef TS_CONTACT_RECYCLE_H
#define TS_CONTACT_RECYCLE_H

#include "base/core.h"
#include "soa/records.h"

/* Relative motion (m) under which a touching manifold is recycled: 5 cm, as
 * Box3D's default (ten of its 5 mm linear slops). */
#define TS_RECYCLE_DISTANCE 0.05f
/* ... of which this much sliding across the normal, and no more than this
 * relative motion a step. A pile's bodies slide and roll over each other:
 * with manifolds kept for 5 cm of sliding a mean of 4.7 of its 4,000 bodies
 * climbed its walls (17 runs, contact hertz 28 to 32), 1.9 at 2 cm (at most
 * 4); large_pyramid's rows slide past each other as it sags and sloshes, and
 * at 1 cm its wall left its plane again (0.097 m; 0.025 m at 2 cm; the
 * check allows 0.05). */
#define TS_RECYCLE_SLIDE 0.02f

/* Neither body may have turned more than ~10 degrees since the full test:
 * the anchors' world orientation is that old. cos^2 of half of 10 degrees,
 * compared with w^2 of the turn q q0^-1, cos^2 of half its angle (the sign
 * of q does not matter). */
#define TS_RECYCLE_TURN_COS_SQ 0.99240388f

/* Contact slot i, shapes at world poses xa, xb (their bodies' centres of
 * mass ca, cb), a step of dt: when the manifold of the last full test may
 * be recycled, brings its separations up to date and returns true. */
bool ts_contact_recycle(ts_records *records, float dt, int32_t i, ts_transform xa, ts_transform xb, ts_vec3 ca,
                        ts_vec3 cb);

/* After a full test that left points in slot i: remembers the poses and the
 * separations that ts_contact_recycle starts from. */
void ts_contact_remember(ts_records *records, int32_t i, ts_transform xa, ts_transform xb, ts_vec3 ca, ts_vec3 cb);

/* What the lane kernel reads of a body, one 64-byte record per body store
 * slot, written once a step before the contacts (ts_recycle_bodies_write):
 * a lane's two bodies come in by 16-byte loads and 4 x 4 transposes
 * instead of 26 scalar gathers from the store's columns. */
enum {
    TS_RECYCLE_BODY_P = 0,      /* centre of mass x, y, z */
    TS_RECYCLE_BODY_Q = 3,      /* rotation x, y, z, w */
    TS_RECYCLE_BODY_V = 7,      /* velocity */
    TS_RECYCLE_BODY_W = 10,     /* angular velocity */
    TS_RECYCLE_BODY_REACH = 13, /* max_extent, 0 if static (as ts_contact_recycle's) */
    TS_RECYCLE_BODY_AWAKE = 14, /* 1 for an awake body, else 0 */
    TS_RECYCLE_BODY_FLOATS = 16,
};

typedef struct ts_recycle_body {
    float f[TS_RECYCLE_BODY_FLOATS];
} ts_recycle_body;

/* The records of body store slots [begin, end). */
void ts_recycle_bodies_write(const ts_body_store *store, ts_recycle_body *bodies, int32_t begin, int32_t end);

/* A batch of cached contacts for the lane kernel (contact_recycle_wide.c),
 * each of two shapes at their bodies' centres of mass on the principal axes
 * (sim_local the identity): what the narrowphase stage looked up for each. */
#define TS_RECYCLE_LANES 8

typedef struct ts_recycle_lanes {
    int32_t count;                     /* lanes in use; the kernel reads all TS_RECYCLE_LANES */
    int32_t contact[TS_RECYCLE_LANES]; /* contact store slots, increasing */
    int32_t slot_a[TS_RECYCLE_LANES], slot_b[TS_RECYCLE_LANES];   /* body store slots */
    float radius_a[TS_RECYCLE_LANES], radius_b[TS_RECYCLE_LANES]; /* bounding radii of the shapes */
    uint32_t cached; /* bit l: lane l is cached (TS_CONTACT_CACHED), else it has no points */
    uint32_t boxes;  /* bit l: lane l is uncached, of two boxes, and no body has locks */
    float half_a[3][TS_RECYCLE_LANES], half_b[3][TS_RECYCLE_LANES]; /* the boxes' half extents */
} ts_recycle_lanes;

/* For the batch's contacts, whose fat bounds overlap: the narrowphase
 * stage's reach test and ts_contact_recycle with the same operations,
 * lane-parallel at the SIMD width (1, 4, 8; 16 runs 8), the bodies read
 * from `bodies` (this step's records, by body store slot). A cached lane
 * that is recycled gets its separations and flags (TOUCHING | CACHED), a
 * lane without points whose bounding spheres are out of reach flags 0, and
 * a box lane (`boxes`) that a face axis of either box separates by the
 * margin (ts_collide_boxes' first two queries) its empty manifold, as the
 * one-contact path writes them. Returns the mask of the lanes done (bit
 * l: lane l); the others are untouched, and none of them is recycled.
 * Every width gives the same bits. */
uint32_t ts_contact_recycle_batch(ts_records *records, const ts_recycle_body *bodies, float dt,
                                  const ts_recycle_lanes *lanes, int width);
uint32_t ts_contact_recycle_lanes_w1(ts_records *records, const ts_recycle_body *bodies, float dt,
                                     const ts_recycle_lanes *lanes);
uint32_t ts_contact_recycle_lanes_w4(ts_records *records, const ts_recycle_body *bodies, float dt,
                                     const ts_recycle_lanes *lanes);
uint32_t ts_contact_recycle_lanes_w8(ts_records *records, const ts_recycle_body *bodies, float dt,
                                     const ts_recycle_lanes *lanes);

/* A contact that stopped touching forgets its tangent impulses and slips:
 * friction starts over when it touches again. */
static inline void ts_contact_forget_friction(ts_contact_store *s, int32_t i)
{
    s->friction_impulse1[i] = 0.0f;
    s->friction_impulse2[i] = 0.0f;
    s->twist_impulse[i] = 0.0f;
    s->rolling_impulse1[i] = 0.0f;
    s->rolling_impulse2[i] = 0.0f;
    s->slip1[i] = 0.0f;
    s->slip2[i] = 0.0f;
}

#endif

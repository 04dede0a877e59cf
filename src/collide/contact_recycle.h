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

/* Contact slot i, shapes at world poses xa, xb (their bodies' centres of
 * mass ca, cb), a step of dt: when the manifold of the last full test may
 * be recycled, brings its separations up to date and returns true. */
bool ts_contact_recycle(ts_records *records, float dt, int32_t i, ts_transform xa, ts_transform xb, ts_vec3 ca,
                        ts_vec3 cb);

/* After a full test that left points in slot i: remembers the poses and the
 * separations that ts_contact_recycle starts from. */
void ts_contact_remember(ts_records *records, int32_t i, ts_transform xa, ts_transform xb, ts_vec3 ca, ts_vec3 cb);

#endif

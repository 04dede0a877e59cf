/* The ranges a loaded snapshot's records must keep beyond being finite:
 * what the API's create and set calls accept (api/joint.c, api/shape.c,
 * api/body_motion.c), and what a step can have left behind. A file whose
 * values are finite but no tessera world could hold (a joint frame 1.7e38 m
 * from its body, a warm-start impulse that would throw a 1 kg body at
 * 5e19 m/s) loaded, and its next step overflowed into NaN: the loader's
 * fuzzer found them (docs/snapshots.md). Each check fails through the
 * reader with a message naming the record and the value. */
#ifndef TS_SNAPSHOT_RANGES_H
#define TS_SNAPSHOT_RANGES_H

#include "base/snapshot_io.h"
#include "soa/records.h"

/* A rotation as the API leaves one: the setters normalise what is within
 * 1% of unit length and a step normalises what it integrates, so a saved
 * rotation's squared length is 1 to a few float roundings; one off by more
 * than 2e-3 was not saved by tessera (a zero rotation would make NaN when
 * the step normalises it). */
bool ts_unit_rotation(ts_quat q);

/* A unit direction (a contact's normal), to the same tolerance. */
bool ts_unit_vector(ts_vec3 v);

/* A position or offset within +-reach in each component (and finite). */
bool ts_within_reach(ts_vec3 p, float reach);

/* How far a shape reaches from its body's mass centre, at most: its
 * offset and size as sums of components (a sphere's radius, a capsule's
 * half height and radius, a box's half extents). */
float ts_shape_reach(const ts_shape *s);

/* A kept (warm-start) impulse of a joint or contact between two bodies:
 * finite, within TS_MAX_FORCE, and changing no dynamic body's velocity by
 * more than 1e15 m/s or rad/s (angular: through its smallest principal
 * inertia; else its mass). A solve keeps what it applied last step, which
 * left the bodies within the speed limits; 1e15 leaves room for mass
 * ratios of 1e13 in a chain, while a warm start of 5e19 N s on a 1 kg body
 * made velocities whose squares overflowed. Static and kinematic bodies
 * take none. */
bool ts_usable_impulse(const ts_records *records, const int32_t bodies[2], float impulse, bool angular);

/* A loaded joint's frames, axis settings, length and kept impulses (its
 * bodies' mass data loaded and checked before); index names it. */
bool ts_check_loaded_joint(ts_reader *r, const ts_records *records, const ts_joint *j, int32_t index);

#endif

/* tessera: narrowphase, the contact manifold of two shapes.
 *
 * Pure geometry: every function reads its shapes and world transforms and
 * writes one manifold; no world state, no allocation, no libm transcendental,
 * and the result depends only on the inputs (deterministic).
 *
 * Conventions for every function:
 * - transforms are world transforms of the shapes (shape centre and rotation);
 * - the normal points from shape A (first argument) to shape B;
 * - a point is kept when its separation is < margin (pass
 *   TS_SPECULATIVE_DISTANCE for the usual speculative margin); when no point is
 *   kept, point_count is 0 (and the other fields are unspecified);
 * - degenerate input (coincident centres, intersecting segments) never gives
 *   NaN: a fixed, documented normal is chosen instead.
 *
 * Feature ids (ts_manifold_point.feature_id). Bits 12..13 give the kind:
 *   kind 0  one point between round features (sphere pairs, capsule pairs
 *           and capsule-box when they give one point): id is 0, or for the
 *           two-point capsule cases the small codes below.
 *   kind 1  box-box, reference face on box A; kind 2: reference face on box B.
 *           bits 0..2 and 3..5: the two "lines" whose crossing made the point,
 *           smaller first. Lines 0..3 are the edges of the incident face
 *           (edge i joins incident vertex i and i+1), lines 4..7 are the side
 *           planes of the reference face. An incident vertex i is lines
 *           (i-1, i); a clipped point is (incident edge, side plane); a
 *           reference-face corner is (side plane, side plane).
 *           bits 6..8: incident face, bits 9..11: reference face.
 *   kind 3  box-box edge pair: bits 0..3 edge of A, bits 4..7 edge of B.
 * Box faces are numbered 2 * axis + (1 if the outward normal is negative):
 * 0 +x, 1 -x, 2 +y, 3 -y, 4 +z, 5 -z. Box edges are 4 * axis + corner, where
 * axis is the edge direction and corner (0..3) says the sign of the two other
 * coordinates (bit 0 set: first other axis negative, bit 1: second).
 *   capsule-capsule, two points: 1 + code, code 0/1 = end 0/1 of capsule B's
 *           segment, 2/3 = B's segment clipped at end 0/1 of A's segment.
 *   capsule-box, two points: (1 + box face) << 4 | (1 + code), code 0/1 =
 *           end 0/1 of the capsule segment, 2..5 = segment clipped by side
 *           plane 0..3 of that face.
 * Ids only need to be unique within one manifold and stable over time; they are
 * compared only between manifolds of the same pair of shapes. */
#ifndef TS_COLLIDE_NARROWPHASE_H
#define TS_COLLIDE_NARROWPHASE_H

#include "collide/manifold.h"
#include "tessera/types.h"

#define TS_FEATURE_KIND_SHIFT 12u
#define TS_FEATURE_KIND_ROUND 0u
#define TS_FEATURE_KIND_FACE_A 1u
#define TS_FEATURE_KIND_FACE_B 2u
#define TS_FEATURE_KIND_EDGES 3u
#define TS_FEATURE_KIND(id) (((id) >> TS_FEATURE_KIND_SHIFT) & 3u)

void ts_collide_spheres(const ts_sphere *a, ts_transform xfa, const ts_sphere *b, ts_transform xfb, float margin,
                        ts_manifold *m);
void ts_collide_sphere_capsule(const ts_sphere *a, ts_transform xfa, const ts_capsule *b, ts_transform xfb,
                               float margin, ts_manifold *m);
void ts_collide_sphere_box(const ts_sphere *a, ts_transform xfa, const ts_box *b, ts_transform xfb, float margin,
                           ts_manifold *m);
void ts_collide_capsules(const ts_capsule *a, ts_transform xfa, const ts_capsule *b, ts_transform xfb, float margin,
                         ts_manifold *m);
void ts_collide_capsule_box(const ts_capsule *a, ts_transform xfa, const ts_box *b, ts_transform xfb, float margin,
                            ts_manifold *m);
void ts_collide_boxes(const ts_box *a, ts_transform xfa, const ts_box *b, ts_transform xfb, float margin,
                      ts_manifold *m);

/* Any pair in any order: geometry pointers point at ts_sphere / ts_box / ts_capsule, or at the
   ts_hull_data / ts_mesh_data / ts_heightfield_data of a hull, mesh or heightfield.
   When the order is the reverse of an implemented function, it calls that one with the shapes
   swapped and negates the normal (points and feature ids stay the same).
   An unknown type, a pair of two meshes or heightfields, or a NULL geometry gives point_count 0. */
void ts_collide_shapes(ts_shape_type type_a, const void *geom_a, ts_transform xfa, ts_shape_type type_b,
                       const void *geom_b, ts_transform xfb, float margin, ts_manifold *m);

/* The same with the pair's separating-axis cache (collide_hull.h; box-hull and hull-hull use it,
   NULL for none). */
struct ts_sat_cache;
void ts_collide_shapes_cached(ts_shape_type type_a, const void *geom_a, ts_transform xfa, ts_shape_type type_b,
                              const void *geom_b, ts_transform xfb, float margin, ts_manifold *m,
                              struct ts_sat_cache *cache);

#endif

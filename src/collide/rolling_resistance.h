/* Rolling resistance of contacts: what a contact's rolling resistance is,
 * mixed from its two shapes when the contact is made (and again when a
 * shape's value changes). The solver reads the mixed value from the contact
 * store's rolling_resistance column (solver/contact_rolling.h). */
#ifndef TS_COLLIDE_ROLLING_RESISTANCE_H
#define TS_COLLIDE_ROLLING_RESISTANCE_H

#include "soa/records.h"

/* The radius a shape rolls on: a sphere's or capsule's radius, a box's
 * smallest half extent, a hull's inner radius (the largest sphere about its
 * centroid inside every face); 0 for meshes and heightfields (static
 * ground, which does not roll). */
float ts_shape_rolling_radius(const ts_shape *shape);

/* A contact's rolling resistance as a lever, m: the larger of the two
 * shapes' coefficients (Box2D v3's mix: a ball with rolling resistance
 * slows on any ground) times the smaller of their rolling radii, leaving
 * out a mesh's or heightfield's 0. Box2D v3 and Box3D take the larger
 * radius, counting a box's as 0 (Box2D) or a quarter of its inner radius
 * (Box3D); here boxes and hulls roll on their inner radius (a hull
 * cylinder rolls like a wheel), so the larger radius would brake a ball
 * on a ground box by the box's half height instead of its own radius.
 * The solver bounds the contact's rolling impulse by this times its
 * normal impulse. 0 when both coefficients are 0. */
float ts_contact_mix_rolling(const ts_shape *a, const ts_shape *b);

#endif

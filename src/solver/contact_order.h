/* The order in which a colour's contacts fill the soft step's bundles: most
 * points first, so that the lanes of a bundle have as many points as each
 * other and the kernels, which visit a bundle's points up to the most of any
 * lane, do little work for points most lanes lack (a pile's sphere contacts
 * have one point, box stacks four; Box3D groups its wide contacts the same
 * way). Width-independent: every width bundles the same order. */
#ifndef TS_CONTACT_ORDER_H
#define TS_CONTACT_ORDER_H

#include "../islands/graph.h"

#include <stdint.h>

struct ts_world;

/* Writes the colour's count contact ids to ordered: 4-point manifolds first,
 * then 3, 2, 1 (and 0), each group in the colour's own order. */
void ts_contact_order_color(const struct ts_world *world, const ts_graph_color *color, int32_t *ordered);

#endif

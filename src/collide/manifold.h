/* tessera: contact manifold types, the output of the narrowphase.
 *
 * A manifold is the contact between two shapes A and B: one world normal
 * pointing from A to B and up to four points. Each point sits midway between
 * the two surfaces, so the same manifold comes out (normal negated) whichever
 * shape is called A. Points separated by less than the caller's margin are
 * kept (speculative contacts, separation > 0) so the solver can stop a fast
 * body before it tunnels.
 *
 * feature_id names the pair of features (faces, edges, vertices, clip planes)
 * that produced a point. The solver matches the points of a new manifold to the
 * old one by this id to warm start; an id stays the same while the same
 * features touch. The encoding per pair type is in narrowphase.h. */
#ifndef TS_COLLIDE_MANIFOLD_H
#define TS_COLLIDE_MANIFOLD_H

#include "tessera/types.h"

#include <stdint.h>

#define TS_MAX_MANIFOLD_POINTS 4
#define TS_SPECULATIVE_DISTANCE 0.02f /* 2 cm: points separated by less are kept so the solver can stop fast bodies */

typedef struct ts_manifold_point {
    ts_vec3 point;       /* world point, midway between the two surfaces */
    float separation;    /* signed distance along the normal; negative = penetration */
    uint32_t feature_id; /* names the pair of features that made the point; stable while they touch */
} ts_manifold_point;

typedef struct ts_manifold {
    ts_vec3 normal; /* world unit normal, pointing from shape A to shape B */
    ts_manifold_point points[TS_MAX_MANIFOLD_POINTS];
    int point_count; /* 0 = no contact (separated by more than the margin) */
} ts_manifold;

#endif

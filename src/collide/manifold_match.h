/* What a contact keeps of last step's manifold after a full test: the
 * impulses of its points, matched to the new points by feature id or
 * distance. Inline: the narrowphase stage (narrowphase_stage.c) runs it per
 * contact. (A recycled manifold keeps its points: contact_recycle.h.) */
#ifndef TS_MANIFOLD_MATCH_H
#define TS_MANIFOLD_MATCH_H

#include "base/math3.h"
#include "collide/manifold.h"
#include "soa/contact_store.h"

#include <math.h>

typedef struct ts_old_points {
    int count;
    uint32_t feature[TS_CONTACT_POINTS];
    ts_vec3 anchor[TS_CONTACT_POINTS]; /* relative to body A's centre */
    float normal[TS_CONTACT_POINTS];
    bool taken[TS_CONTACT_POINTS];
} ts_old_points;

/* A new point keeps the impulses of last step's point with the same feature
 * id. Failing that, of the nearest unclaimed old point within
 * TS_MATCH_DISTANCE (relative to body A): two equal boxes stacked face to face
 * have their corners exactly on each other's edges, so a rotation of 1e-5 rad
 * turns a corner point into a clipped point with another id while it stays
 * where it was; dropping its impulse would restart the stack from zero. */
#define TS_MATCH_DISTANCE 0.005f

static inline void ts_match_points(ts_contact_store *s, int32_t i, int count, ts_old_points *old)
{
    int source[TS_CONTACT_POINTS];
    for (int k = 0; k < count; ++k) {
        source[k] = -1;
        for (int j = 0; j < old->count; ++j) {
            if (!old->taken[j] && old->feature[j] == s->feature[4 * i + k]) {
                source[k] = j;
                old->taken[j] = true;
                break;
            }
        }
    }
    for (int k = 0; k < count; ++k) {
        int p = 4 * i + k;
        if (source[k] < 0) {
            ts_vec3 anchor = ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p]);
            float best = TS_MATCH_DISTANCE * TS_MATCH_DISTANCE;
            for (int j = 0; j < old->count; ++j) {
                float d = ts_length_sq(ts_sub(anchor, old->anchor[j]));
                if (!old->taken[j] && d < best) {
                    best = d;
                    source[k] = j;
                }
            }
            if (source[k] >= 0) {
                old->taken[source[k]] = true;
            }
        }
        int j = source[k];
        s->normal_impulse[p] = j >= 0 ? old->normal[j] : 0.0f;
    }
}

#endif

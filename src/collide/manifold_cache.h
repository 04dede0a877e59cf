/* What a contact keeps of last step's manifold: the impulses of its points,
 * matched to the new points by feature id or distance, and the manifold
 * cache that rebuilds the manifold of a resting pair from its witness
 * points instead of a full test. Inline: the narrowphase stage
 * (narrowphase_stage.c) runs them per contact. */
#ifndef TS_MANIFOLD_CACHE_H
#define TS_MANIFOLD_CACHE_H

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
/* ---- the manifold cache ----
 * Resting and slowly moving pairs keep the same contact features step after
 * step. While shape B's pose relative to shape A stays within 1 mm and
 * ~2 mrad of the pose of the last full test, the manifold is rebuilt from the
 * two witness points of each contact point, fixed in their shapes' frames:
 * the normal turns with A, the separation is measured anew between the moved
 * witnesses. The features cannot change within that tolerance by more than
 * the speculative margin allows; past it, the full test runs again. */
#define TS_CACHE_DISTANCE 1.0e-3f
#define TS_CACHE_ROTATION 5.0e-7f /* 1 - |q . q_cached|: about 2 mrad */

static inline bool ts_cache_holds(const ts_contact_store *s, int32_t i, ts_transform relative)
{
    ts_vec3 dp = ts_sub(relative.p, ts_v3(s->cache_px[i], s->cache_py[i], s->cache_pz[i]));
    float dot = relative.q.x * s->cache_qx[i] + relative.q.y * s->cache_qy[i] + relative.q.z * s->cache_qz[i] +
                relative.q.w * s->cache_qw[i];
    return ts_length_sq(dp) < TS_CACHE_DISTANCE * TS_CACHE_DISTANCE && fabsf(dot) > 1.0f - TS_CACHE_ROTATION;
}

static inline void ts_reuse_manifold(const ts_contact_store *s, int32_t i, ts_transform xa, ts_transform xb,
                                     ts_manifold *m)
{
    m->normal = ts_rotate(xa.q, ts_v3(s->cache_nx[i], s->cache_ny[i], s->cache_nz[i]));
    m->point_count = s->point_count[i];
    for (int k = 0; k < m->point_count; ++k) {
        int p = 4 * i + k;
        ts_vec3 on_a = ts_transform_point(xa, ts_v3(s->witness_ax[p], s->witness_ay[p], s->witness_az[p]));
        ts_vec3 on_b = ts_transform_point(xb, ts_v3(s->witness_bx[p], s->witness_by[p], s->witness_bz[p]));
        m->points[k].point = ts_scale(0.5f, ts_add(on_a, on_b));
        m->points[k].separation = ts_dot(ts_sub(on_b, on_a), m->normal);
        m->points[k].feature_id = s->feature[p];
    }
}

static inline void ts_store_cache(ts_contact_store *s, int32_t i, ts_transform xa, ts_transform xb,
                                  ts_transform relative, const ts_manifold *m)
{
    s->cache_px[i] = relative.p.x;
    s->cache_py[i] = relative.p.y;
    s->cache_pz[i] = relative.p.z;
    s->cache_qx[i] = relative.q.x;
    s->cache_qy[i] = relative.q.y;
    s->cache_qz[i] = relative.q.z;
    s->cache_qw[i] = relative.q.w;
    ts_vec3 n = ts_inv_rotate(xa.q, m->normal);
    s->cache_nx[i] = n.x;
    s->cache_ny[i] = n.y;
    s->cache_nz[i] = n.z;
    for (int k = 0; k < m->point_count; ++k) {
        int p = 4 * i + k;
        const ts_manifold_point *mp = m->points + k;
        ts_vec3 half = ts_scale(0.5f * mp->separation, m->normal);
        ts_vec3 on_a = ts_inv_transform_point(xa, ts_sub(mp->point, half));
        ts_vec3 on_b = ts_inv_transform_point(xb, ts_add(mp->point, half));
        s->witness_ax[p] = on_a.x;
        s->witness_ay[p] = on_a.y;
        s->witness_az[p] = on_a.z;
        s->witness_bx[p] = on_b.x;
        s->witness_by[p] = on_b.y;
        s->witness_bz[p] = on_b.z;
    }
}

#endif

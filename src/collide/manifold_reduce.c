/* tessera: reduction of a contact polygon to at most TS_MAX_MANIFOLD_POINTS.
 *
 * Clipping two faces can give up to 8 points; the solver wants at most 4 that
 * keep the contact stable: the deepest point (it carries the most push) and
 * the three that span the largest area with it (they resist tipping). The
 * steps follow Jolt's PruneContactPoints and Box3D's reduction:
 *   1. p0 = the deepest point;
 *   2. p1 = the point farthest from p0 in the contact plane;
 *   3. p2, p3 = the points of largest triangle area on either side of the
 *      line p0 p1 (signed area n . ((p1 - p0) x (p - p0))).
 * Every choice is a "pecking order": a later candidate replaces the current one
 * only when it is better by a small margin, so nearly equal candidates keep
 * resolving to the same (earliest) point from one step to the next. */
#include "collide/collide_math.h"

/* A point must be deeper by this much (metres) to replace the deepest so far. */
#define TSN_REDUCE_DEPTH_TOL 1.0e-4f
/* A distance or area score must beat the current best by this factor. */
#define TSN_REDUCE_SCORE_BIAS 1.01f

int tsn_reduce_points(const ts_manifold_point *in, int count, ts_vec3 normal, ts_manifold_point out[4])
{
    if (count <= TS_MAX_MANIFOLD_POINTS) {
        for (int i = 0; i < count; ++i) {
            out[i] = in[i];
        }
        return count;
    }

    int i0 = 0;
    for (int i = 1; i < count; ++i) {
        if (in[i].separation < in[i0].separation - TSN_REDUCE_DEPTH_TOL) {
            i0 = i;
        }
    }
    ts_vec3 p0 = in[i0].point;

    /* distance in the contact plane: drop the component along the normal */
    int i1 = -1;
    float best = 0.0f;
    for (int i = 0; i < count; ++i) {
        ts_vec3 d = ts_sub(in[i].point, p0);
        d = ts_mul_add(d, -ts_dot(d, normal), normal);
        float score = ts_dot(d, d);
        if (i != i0 && score > TSN_REDUCE_SCORE_BIAS * best) {
            best = score;
            i1 = i;
        }
    }
    out[0] = in[i0];
    if (i1 < 0 || best <= TSN_TINY_SQ) {
        return 1; /* all points coincide */
    }
    ts_vec3 axis = ts_sub(in[i1].point, p0);

    int i_pos = -1, i_neg = -1;
    float best_pos = 0.0f, best_neg = 0.0f;
    for (int i = 0; i < count; ++i) {
        if (i == i0 || i == i1) {
            continue;
        }
        float area = ts_dot(normal, ts_cross(axis, ts_sub(in[i].point, p0)));
        if (area > TSN_REDUCE_SCORE_BIAS * best_pos) {
            best_pos = area;
            i_pos = i;
        } else if (-area > TSN_REDUCE_SCORE_BIAS * best_neg) {
            best_neg = -area;
            i_neg = i;
        }
    }

    /* emit in polygon order: p0, positive side, p1, negative side */
    int n = 1;
    if (i_pos >= 0 && best_pos > TSN_TINY_SQ) {
        out[n++] = in[i_pos];
    }
    out[n++] = in[i1];
    if (i_neg >= 0 && best_neg > TSN_TINY_SQ) {
        out[n++] = in[i_neg];
    }
    return n;
}

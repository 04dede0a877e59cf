/* Redundant manifold points of locked bodies (see manifold_locks.h).
 *
 * A point k of a manifold is a contact row with Jacobian
 * (-n, -(rA_k x n), n, rB_k x n): the normal n is the manifold's, the arms
 * r are the point's offsets from the centres of mass. A body turns only
 * about its unlocked axes (its world inverse inertia has the locked rows and
 * columns zeroed; a static or kinematic body turns about none, for a
 * contact), so two points are the same row when, for each body, their arms'
 * moments (r_k - r_j) x n have no part along an axis the body may turn
 * about. A face contact of two boxes in a planar world has four points, two
 * at each end of the touching edge (z = -h and +h): with turning about x
 * and y locked they are two rows, each counted twice. Solved as four, the
 * soft step's springs were twice as stiff along those rows, and a planar
 * pyramid of 20 rows shook itself apart at 4 substeps (the top box moved
 * 0.34 m in 10 s, against 0.03 m without the locks). So the pair becomes
 * one point at their midpoint, with the deeper separation and the first
 * one's feature id: the contact of a 2D engine, two points per edge. */
#include "collide/manifold_locks.h"

#include "base/math3.h"

/* Rotation axes a body may turn about in a contact (bits 0..2: x, y, z). */
static uint32_t free_turns(const ts_body_store *s, int32_t body)
{
    int32_t i = s->table.slot_of_id[body];
    if (s->inv_mass[i] == 0.0f) {
        return 0u; /* static or kinematic: no contact turns it */
    }
    return ~((uint32_t)s->locks[i] >> 3) & 7u;
}

/* Whether the moment m has no part along the axes in `turns`, within tol. */
static bool no_moment(ts_vec3 m, uint32_t turns, float tol)
{
    return ((turns & 1u) == 0 || fabsf(m.x) <= tol) && ((turns & 2u) == 0 || fabsf(m.y) <= tol) &&
           ((turns & 4u) == 0 || fabsf(m.z) <= tol);
}

void ts_manifold_merge_locked(const ts_records *records, int32_t body_a, int32_t body_b, ts_manifold *m)
{
    const ts_body_store *s = &records->store;
    int32_t ia = s->table.slot_of_id[body_a], ib = s->table.slot_of_id[body_b];
    if (m->point_count < 2 || (s->locks[ia] | s->locks[ib]) == 0) {
        return;
    }
    uint32_t turns_a = free_turns(s, body_a), turns_b = free_turns(s, body_b);
    /* 0.1 mm of moment arm per metre of normal: far below any feature size */
    const float tol = 1.0e-4f;
    int count = 0;
    for (int k = 0; k < m->point_count; ++k) {
        ts_manifold_point p = m->points[k];
        bool merged = false;
        for (int j = 0; j < count && !merged; ++j) {
            ts_vec3 moment = ts_cross(ts_sub(p.point, m->points[j].point), m->normal);
            /* both bodies' arms differ by the points' offset */
            if (no_moment(moment, turns_a, tol) && no_moment(moment, turns_b, tol)) {
                ts_manifold_point *q = m->points + j;
                q->point = ts_scale(0.5f, ts_add(q->point, p.point));
                q->separation = p.separation < q->separation ? p.separation : q->separation;
                merged = true;
            }
        }
        if (!merged) {
            m->points[count++] = p;
        }
    }
    m->point_count = count;
}

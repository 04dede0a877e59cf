/* tessera: the narrowphase of hulls (collide_hull.c, collide_hull_round.c)
 * and the pieces of it that the triangle tests reuse.
 *
 * ts_sat_cache is what a hull pair remembers between steps: the feature
 * that decided its last full separating axis test and the depth its
 * contact had. The contact store keeps one per contact. */
#ifndef TS_COLLIDE_COLLIDE_HULL_H
#define TS_COLLIDE_COLLIDE_HULL_H

#include "collide/collide_math.h"
#include "collide/hull.h"

typedef struct ts_sat_cache {
    uint32_t feature; /* TS_SAT_CACHE_MAKE(type, index in A, index in B) */
    float depth;      /* the contact's smallest separation when a face was cached */
} ts_sat_cache;

enum {
    TS_SAT_NONE = 0,
    TS_SAT_FACE_A = 1, /* A's face (index in A) */
    TS_SAT_FACE_B = 2, /* B's face (index in B) */
    TS_SAT_EDGES = 3,  /* a separating edge pair: A's half-edge, B's half-edge */
};
#define TS_SAT_CACHE_MAKE(type, a, b) ((uint32_t)(type) | ((uint32_t)(a) << 2) | ((uint32_t)(b) << 11))
#define TS_SAT_CACHE_TYPE(f) ((f) & 3u)
#define TS_SAT_CACHE_A(f) (((f) >> 2) & 511u)
#define TS_SAT_CACHE_B(f) (((f) >> 11) & 511u)

/* Hull A against hull B (world poses), with the pair's cache (NULL: none). */
void ts_collide_hulls_cached(const ts_hull_data *a, ts_transform xfa, const ts_hull_data *b, ts_transform xfb,
                             float margin, ts_manifold *m, ts_sat_cache *cache);
void ts_collide_hulls(const ts_hull_data *a, ts_transform xfa, const ts_hull_data *b, ts_transform xfb, float margin,
                      ts_manifold *m);
void ts_collide_box_hull(const ts_box *a, ts_transform xfa, const ts_hull_data *b, ts_transform xfb, float margin,
                         ts_manifold *m, ts_sat_cache *cache);
void ts_collide_sphere_hull(const ts_sphere *a, ts_transform xfa, const ts_hull_data *b, ts_transform xfb,
                            float margin, ts_manifold *m);
void ts_collide_capsule_hull(const ts_capsule *a, ts_transform xfa, const ts_hull_data *b, ts_transform xfb,
                             float margin, ts_manifold *m);

/* ---- pieces shared with the triangle tests and the edge pairs ---- */

/* |ea x eb|^2 below this times |ea|^2 |eb|^2: parallel edges, no axis. */
#define TSN_HULL_PARALLEL_SQ 1.0e-6f

/* The bounds that skip faces and edge pairs of the separating axis test
 * (collide_hull.c, collide_hull_edges.c) are exact in real numbers; they
 * are loosened by this fraction of the two hulls' radii against rounding. */
#define TSN_HULL_BOUND_SLACK 1.0e-4f

/* An axis of the separating axis test, in A's frame. */
typedef struct tsn_sat_result {
    float separation;
    int index_a; /* face of A, or A's half-edge */
    int index_b; /* face of B, or B's half-edge */
    ts_vec3 normal;
    bool valid;
} tsn_sat_result;

/* A's faces against hull B (placed in A's frame by r, t): the face of
 * largest separation (the first of equals), or the first face that
 * separates by more than the margin (collide_hull.c). */
tsn_sat_result tsn_hull_query_faces(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t,
                                    float margin);

/* The edge pairs of hulls A and B (B placed in A's frame by r, t) that form
 * a face of their Minkowski difference: the one of largest separation
 * (collide_hull_edges.c). */
tsn_sat_result tsn_hull_query_edges(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t);

/* The same over only the pairs that can separate by floor or more: equal to
 * tsn_hull_query_edges whenever that one's separation is above floor; below,
 * some pair at most floor, or none (valid false). */
tsn_sat_result tsn_hull_query_edges_above(const ts_hull_data *a, const ts_hull_data *b, const tsn_mat3 *r, ts_vec3 t,
                                          float floor);

/* The face of `inc` whose normal is most anti-parallel to n (n in inc's frame). */
int tsn_incident_face(const ts_hull_data *inc, ts_vec3 n_in_inc);

/* A face contact in ref's frame: the incident face of `inc` (placed in
 * ref's frame by r, t) clipped by the side planes of ref's face ref_face;
 * points with separation < margin, ids id_base | lines (collide_hull.c),
 * reduced to at most 4. Returns their number. */
int tsn_hull_face_contact(const ts_hull_data *ref, int ref_face, const ts_hull_data *inc, const tsn_mat3 *r,
                          ts_vec3 t, float margin, uint32_t id_base, ts_manifold_point out[4]);

#endif

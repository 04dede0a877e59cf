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

/* ---- pieces shared with the triangle tests ---- */

/* The face of `inc` whose normal is most anti-parallel to n (n in inc's frame). */
int tsn_incident_face(const ts_hull_data *inc, ts_vec3 n_in_inc);

/* A face contact in ref's frame: the incident face of `inc` (placed in
 * ref's frame by r, t) clipped by the side planes of ref's face ref_face;
 * points with separation < margin, ids id_base | lines (collide_hull.c),
 * reduced to at most 4. Returns their number. */
int tsn_hull_face_contact(const ts_hull_data *ref, int ref_face, const ts_hull_data *inc, const tsn_mat3 *r,
                          ts_vec3 t, float margin, uint32_t id_base, ts_manifold_point out[4]);

#endif

/* Mass, centre of mass and inertia of shapes and of compound bodies.
 * Setup code (runs when shapes change, never inside a step); uses cglm. */
#ifndef TS_MASS_H
#define TS_MASS_H

#include "soa/records.h"
#include "tessera/types.h"

/* Symmetric 3x3 inertia tensor. */
typedef struct ts_inertia {
    float xx, yy, zz, xy, xz, yz;
} ts_inertia;

/* Mass properties of one shape in its own frame: the inertia tensor about
 * its centre of mass, whose diagonal is `inertia` and whose off-diagonal
 * entries are `products` (xy, xz, yz; zero and the centre at the origin for
 * spheres, boxes and capsules, which are symmetric about their axes). */
typedef struct ts_shape_mass {
    float mass;
    ts_vec3 inertia;  /* moments about the shape's local axes through the centre of mass */
    ts_vec3 center;   /* centre of mass in the shape frame */
    ts_vec3 products; /* the tensor's xy, xz, yz entries */
} ts_shape_mass;

ts_shape_mass ts_sphere_mass(const ts_sphere *sphere, float density);
ts_shape_mass ts_box_mass(const ts_box *box, float density);
ts_shape_mass ts_capsule_mass(const ts_capsule *capsule, float density);
/* A hull's: its density-1 properties scaled (collide/hull.h). */
ts_shape_mass ts_hull_mass(const struct ts_hull_data *hull, float density);

/* The mass properties of a shape record, from its geometry and density
 * (zero for meshes and heightfields, which have no volume). */
ts_shape_mass ts_shape_compute_mass(const ts_shape *shape);

/* Accumulates shapes of a body, then finds the principal frame. */
typedef struct ts_mass_accumulator {
    double mass;
    double first_moment[3]; /* sum of m * c */
    double second[3][3];    /* sum of (R I R^T + m (|c|^2 E - c c^T)) about the body origin */
} ts_mass_accumulator;

void ts_mass_accumulate(ts_mass_accumulator *acc, ts_shape_mass shape, ts_transform local);

/* Total mass, centre of mass, and principal inertia about it. A tensor whose
 * off-diagonal part is negligible keeps the identity principal rotation. */
ts_mass_data ts_mass_finish(const ts_mass_accumulator *acc);

/* Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations.
 * Columns of vectors are the unit eigenvectors, a right-handed basis. */
void ts_symmetric_eigen(const double matrix[3][3], double values[3], double vectors[3][3]);

#endif

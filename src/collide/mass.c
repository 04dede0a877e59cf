/* Mass properties of shapes and compound bodies (see mass.h). */
#include "collide/mass.h"

#include "base/math3.h"
#include "collide/hull.h"

#include <cglm/cglm.h>
#include <math.h>

ts_shape_mass ts_sphere_mass(const ts_sphere *sphere, float density)
{
    float r = sphere->radius;
    float mass = density * (4.0f / 3.0f) * TS_PI * r * r * r;
    float i = 0.4f * mass * r * r; /* solid sphere: 2/5 m r^2 */
    return (ts_shape_mass){mass, {i, i, i}};
}

ts_shape_mass ts_box_mass(const ts_box *box, float density)
{
    ts_vec3 h = box->half_extents;
    float mass = density * 8.0f * h.x * h.y * h.z;
    /* I_xx = m (a^2 + b^2) / 12 with full widths a = 2 h.y, b = 2 h.z. */
    float k = mass / 3.0f;
    return (ts_shape_mass){mass, {k * (h.y * h.y + h.z * h.z), k * (h.x * h.x + h.z * h.z), k * (h.x * h.x + h.y * h.y)}};
}

/* A capsule is a cylinder (radius r, length 2h along y) and two hemispheres.
 * Axis: I_yy = m_c r^2 / 2 + 2/5 m_s r^2.
 * Across: the cylinder gives m_c (r^2 / 4 + h^2 / 3); each hemisphere has its
 * centroid 3r/8 from its flat face and 83/320 m r^2 about it, so by the
 * parallel-axis rule the pair gives m_s (83/320 r^2 + (h + 3r/8)^2)
 * = m_s (2/5 r^2 + h^2 + 3/4 h r). */
ts_shape_mass ts_capsule_mass(const ts_capsule *capsule, float density)
{
    float r = capsule->radius;
    float h = capsule->half_height;
    float cylinder = density * TS_PI * r * r * 2.0f * h;
    float ball = density * (4.0f / 3.0f) * TS_PI * r * r * r;
    float axial = 0.5f * cylinder * r * r + 0.4f * ball * r * r;
    float across = cylinder * (0.25f * r * r + h * h / 3.0f) + ball * (0.4f * r * r + h * h + 0.75f * h * r);
    return (ts_shape_mass){cylinder + ball, {across, axial, across}};
}

ts_shape_mass ts_hull_mass(const ts_hull_data *hull, float density)
{
    const float *t = hull->inertia;
    return (ts_shape_mass){density * hull->volume,
                           {density * t[0], density * t[1], density * t[2]},
                           hull->centroid,
                           {density * t[3], density * t[4], density * t[5]}};
}

void ts_mass_accumulate(ts_mass_accumulator *acc, ts_shape_mass shape, ts_transform local)
{
    mat3 r;
    versor q = {local.q.x, local.q.y, local.q.z, local.q.w};
    glm_quat_mat3(q, r); /* column major: r[column][row] */
    double t[3][3] = {{shape.inertia.x, shape.products.x, shape.products.y},
                      {shape.products.x, shape.inertia.y, shape.products.z},
                      {shape.products.y, shape.products.z, shape.inertia.z}};
    /* the centre of mass in the body frame: local.p + R center */
    double c[3];
    for (int i = 0; i < 3; ++i) {
        c[i] = (double)ts_component(local.p, i) + (double)r[0][i] * shape.center.x + (double)r[1][i] * shape.center.y +
               (double)r[2][i] * shape.center.z;
    }
    double m = shape.mass;
    double c_sq = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            /* (R T R^T)_ij = sum_k sum_l R_ik T_kl R_jl */
            double rotated = 0.0;
            for (int k = 0; k < 3; ++k) {
                for (int l = 0; l < 3; ++l) {
                    rotated += (double)r[k][i] * t[k][l] * (double)r[l][j];
                }
            }
            double shift = m * ((i == j ? c_sq : 0.0) - c[i] * c[j]);
            acc->second[i][j] += rotated + shift;
        }
        acc->first_moment[i] += m * c[i];
    }
    acc->mass += m;
}

ts_mass_data ts_mass_finish(const ts_mass_accumulator *acc)
{
    ts_mass_data out = {0.0f, {0, 0, 0}, {0, 0, 0}, TS_QUAT_IDENTITY};
    if (acc->mass <= 0.0) {
        return out;
    }
    double m = acc->mass;
    double c[3] = {acc->first_moment[0] / m, acc->first_moment[1] / m, acc->first_moment[2] / m};
    double c_sq = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    /* Parallel-axis rule backwards: move the tensor from the origin to the centre. */
    double centred[3][3];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            centred[i][j] = acc->second[i][j] - m * ((i == j ? c_sq : 0.0) - c[i] * c[j]);
        }
    }
    out.mass = (float)m;
    out.center = (ts_vec3){(float)c[0], (float)c[1], (float)c[2]};

    double largest = fmax(fabs(centred[0][0]), fmax(fabs(centred[1][1]), fabs(centred[2][2])));
    double off = fmax(fabs(centred[0][1]), fmax(fabs(centred[0][2]), fabs(centred[1][2])));
    if (off <= 1.0e-7 * largest) {
        /* Already principal in the body axes: keep the identity so that a
         * body's rotation passes through the API unchanged. */
        out.principal_inertia = (ts_vec3){(float)centred[0][0], (float)centred[1][1], (float)centred[2][2]};
        return out;
    }
    double values[3];
    double vectors[3][3];
    ts_symmetric_eigen(centred, values, vectors);
    out.principal_inertia = (ts_vec3){(float)values[0], (float)values[1], (float)values[2]};
    mat3 basis; /* columns are the principal axes in the body frame */
    for (int col = 0; col < 3; ++col) {
        for (int row = 0; row < 3; ++row) {
            basis[col][row] = (float)vectors[row][col];
        }
    }
    versor q;
    glm_mat3_quat(basis, q);
    out.principal_rotation = ts_quat_normalize((ts_quat){q[0], q[1], q[2], q[3]});
    return out;
}

void ts_symmetric_eigen(const double matrix[3][3], double values[3], double vectors[3][3])
{
    double a[3][3];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            a[i][j] = matrix[i][j];
            vectors[i][j] = i == j ? 1.0 : 0.0;
        }
    }
    /* Each rotation zeroes a[p][q]; cyclic sweeps converge quadratically. */
    for (int sweep = 0; sweep < 32; ++sweep) {
        double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]);
        double scale = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
        if (off <= 1.0e-15 * scale) {
            break;
        }
        for (int p = 0; p < 2; ++p) {
            for (int q = p + 1; q < 3; ++q) {
                if (a[p][q] == 0.0) {
                    continue;
                }
                /* Choose t = tan(theta) for the rotation that zeroes a[p][q]:
                 * theta = (a_qq - a_pp) / (2 a_pq), t = sign / (|theta| + sqrt(theta^2 + 1)). */
                double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                double cs = 1.0 / sqrt(t * t + 1.0);
                double sn = t * cs;
                for (int k = 0; k < 3; ++k) { /* a = J^T a J */
                    double akp = a[k][p];
                    double akq = a[k][q];
                    a[k][p] = cs * akp - sn * akq;
                    a[k][q] = sn * akp + cs * akq;
                }
                for (int k = 0; k < 3; ++k) {
                    double apk = a[p][k];
                    double aqk = a[q][k];
                    a[p][k] = cs * apk - sn * aqk;
                    a[q][k] = sn * apk + cs * aqk;
                }
                for (int k = 0; k < 3; ++k) {
                    double vkp = vectors[k][p];
                    double vkq = vectors[k][q];
                    vectors[k][p] = cs * vkp - sn * vkq;
                    vectors[k][q] = sn * vkp + cs * vkq;
                }
            }
        }
    }
    for (int i = 0; i < 3; ++i) {
        values[i] = a[i][i];
    }
    /* Jacobi rotations keep det = +1, so the basis is already right-handed. */
}

ts_shape_mass ts_shape_compute_mass(const ts_shape *shape)
{
    switch (shape->type) {
    case TS_SHAPE_SPHERE: return ts_sphere_mass(&shape->geometry.sphere, shape->density);
    case TS_SHAPE_BOX: return ts_box_mass(&shape->geometry.box, shape->density);
    case TS_SHAPE_CAPSULE: return ts_capsule_mass(&shape->geometry.capsule, shape->density);
    case TS_SHAPE_HULL: return ts_hull_mass(shape->geometry.hull.data, shape->density);
    case TS_SHAPE_MESH:
    case TS_SHAPE_HEIGHTFIELD:
    case TS_SHAPE_TYPE_COUNT: break;
    }
    return (ts_shape_mass){0.0f, {0, 0, 0}};
}

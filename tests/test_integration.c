/* Free-body integration: projectiles, damping, forces and impulses, kinematic
 * bodies, the gyroscopic (angular momentum) update, and thread independence. */
#include "test_common.h"

#include <string.h>

static ts_body_id ball(ts_world_id world, ts_vec3 position, ts_vec3 velocity)
{
    ts_body_id body = test_dynamic_body(world, position);
    ts_shape_def shape = ts_default_shape_def();
    ts_sphere sphere = {0.5f};
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &shape, &sphere)));
    assert_ok(ts_body_set_linear_velocity(body, velocity));
    return body;
}

/* A projectile follows x(t) = x0 + v0 t + g t^2 / 2. Semi-implicit Euler with
 * n substeps of h gives x0 + v0 t + g t^2 / 2 + g h t / 2 exactly (the sum of
 * h v_k with v_k = v0 + k h g), so: the discrete formula within 1e-4 m (float
 * rounding over 240 substeps of positions near 10 m), and the analytic answer
 * within |g| h t / 2 + 1e-4 m, the method's known first-order error. */
static void test_projectile(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_vec3 x0 = {1.0f, 2.0f, 3.0f};
    ts_vec3 v0 = {3.0f, 5.0f, -2.0f};
    ts_body_id body = ball(world, x0, v0);
    const int steps = 60;
    const float dt = 1.0f / 60.0f;
    for (int i = 0; i < steps; ++i) {
        assert_ok(ts_world_step(world, dt));
    }
    double t = 1.0, g = -10.0, h = 1.0 / 240.0;
    ts_vec3 x, v;
    assert_ok(ts_body_get_position(body, &x));
    assert_ok(ts_body_get_linear_velocity(body, &v));
    double discrete_y = x0.y + v0.y * t + 0.5 * g * t * t + 0.5 * g * h * t;
    assert_near(x.x, x0.x + v0.x * t, 1e-4);
    assert_near(x.z, x0.z + v0.z * t, 1e-4);
    assert_near(x.y, discrete_y, 1e-4);
    assert_near(x.y, x0.y + v0.y * t + 0.5 * g * t * t, fabs(g) * h * t / 2 + 1e-4);
    /* v(t) = v0 + g t is exact for semi-implicit Euler (up to rounding). */
    assert_near(v.x, v0.x, 1e-5);
    assert_near(v.y, v0.y + g * t, 1e-4);
    assert_near(v.z, v0.z, 1e-5);
    assert_ok(ts_destroy_world(world));
}

/* Linear damping c: v *= 1 / (1 + h c) per substep, so after n substeps
 * v = v0 (1 + h c)^-n exactly (checked within 1e-5 relative). That is
 * v0 exp(-c t + c^2 h t / 2 + ...), so it meets the exponential decay within
 * c^2 h t / 2 = 0.83% for c = 2, h = 1/240, t = 1: checked within 1%. */
static void test_linear_damping(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    assert_ok(ts_world_set_gravity(world, (ts_vec3){0, 0, 0}));
    ts_body_id body = ball(world, (ts_vec3){0, 0, 0}, (ts_vec3){4.0f, 0, 0});
    assert_ok(ts_body_set_linear_damping(body, 2.0f));
    for (int i = 0; i < 60; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    ts_vec3 v;
    assert_ok(ts_body_get_linear_velocity(body, &v));
    double discrete = 4.0 * pow(1.0 + 2.0 / 240.0, -240.0);
    assert_near(v.x, discrete, 1e-5 * 4.0);
    assert_near(v.x, 4.0 * exp(-2.0), 0.01 * 4.0 * exp(-2.0));
    assert_ok(ts_destroy_world(world));
}

/* A force F for one step of dt changes the velocity by F dt / m (exact up to
 * rounding: 1e-5), and is cleared afterwards: the next step adds nothing. */
static void test_force_lasts_one_step(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    assert_ok(ts_world_set_gravity(world, (ts_vec3){0, 0, 0}));
    ts_body_id body = ball(world, (ts_vec3){0, 0, 0}, (ts_vec3){0, 0, 0});
    float mass;
    assert_ok(ts_body_get_mass(body, &mass));
    assert_ok(ts_body_apply_force_to_center(body, (ts_vec3){6.0f, 0, 0}));
    assert_ok(ts_world_step(world, 0.1f));
    ts_vec3 v;
    assert_ok(ts_body_get_linear_velocity(body, &v));
    assert_near(v.x, 6.0 * 0.1 / mass, 1e-5);
    assert_ok(ts_world_step(world, 0.1f));
    ts_vec3 v2;
    assert_ok(ts_body_get_linear_velocity(body, &v2));
    assert_true(v2.x == v.x);
    assert_ok(ts_destroy_world(world));
}

/* An impulse J at a point r from the centre of a sphere changes v by J / m and
 * w by I^-1 (r x J), with I = 2/5 m r^2 (closed form; float rounding: 1e-5). */
static void test_impulse_at_point(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_id body = ball(world, (ts_vec3){0, 1, 0}, (ts_vec3){0, 0, 0});
    ts_mass_data md;
    assert_ok(ts_body_get_mass_data(body, &md));
    assert_ok(ts_body_apply_linear_impulse(body, (ts_vec3){0, 0, 2.0f}, (ts_vec3){0.5f, 1.0f, 0.0f}));
    ts_vec3 v, w;
    assert_ok(ts_body_get_linear_velocity(body, &v));
    assert_ok(ts_body_get_angular_velocity(body, &w));
    assert_near(v.z, 2.0 / md.mass, 1e-5);
    /* r x J = (0.5, 0, 0) x (0, 0, 2) = (0, -1, 0) */
    double inertia = 0.4 * md.mass * 0.25;
    assert_near(w.x, 0.0, 1e-6);
    assert_near(w.y, -1.0 / inertia, 1e-5);
    assert_near(w.z, 0.0, 1e-6);
    assert_near(md.principal_inertia.x, inertia, 1e-6);
    assert_ok(ts_destroy_world(world));
}

/* A kinematic body moves by its velocity alone: no gravity, no forces, and
 * its angular velocity is kept exactly (it has no inertia to conserve). After
 * 1 s: x = x0 + v t within 1e-4 m; rotated by w t = 1.2 rad about z, checked
 * through the rotated x axis within 2e-3 (the explicit quaternion step's
 * first-order error for 240 steps of 0.005 rad is ~1e-3). */
static void test_kinematic_moves_by_velocity(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_KINEMATIC;
    def.linear_velocity = (ts_vec3){1.0f, 2.0f, 0.0f};
    def.angular_velocity = (ts_vec3){0.0f, 0.0f, 1.2f};
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    ts_box box = {{1.0f, 0.2f, 0.3f}};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)));
    assert_ok(ts_body_apply_force_to_center(body, (ts_vec3){100.0f, 0, 0}));
    for (int i = 0; i < 60; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    ts_transform xf;
    ts_vec3 w;
    assert_ok(ts_body_get_transform(body, &xf));
    assert_ok(ts_body_get_angular_velocity(body, &w));
    assert_near(xf.p.x, 1.0, 1e-4);
    assert_near(xf.p.y, 2.0, 1e-4);
    assert_true(w.z == 1.2f && w.x == 0.0f && w.y == 0.0f);
    /* rotated x axis = (cos 1.2, sin 1.2, 0) */
    double qx = xf.q.x, qy = xf.q.y, qz = xf.q.z, qw = xf.q.w;
    double ax = 1.0 - 2.0 * (qy * qy + qz * qz);
    double ay = 2.0 * (qx * qy + qw * qz);
    assert_near(ax, cos(1.2), 2e-3);
    assert_near(ay, sin(1.2), 2e-3);
    assert_ok(ts_destroy_world(world));
}

/* World angular momentum L = R I R^T w from the API's mass data. */
static void world_momentum(ts_body_id body, double out[3], double *energy)
{
    ts_mass_data md;
    ts_transform xf;
    ts_vec3 w;
    assert_ok(ts_body_get_mass_data(body, &md));
    assert_ok(ts_body_get_transform(body, &xf));
    assert_ok(ts_body_get_angular_velocity(body, &w));
    /* principal frame in the world: q = body rotation * principal rotation */
    ts_quat a = xf.q, b = md.principal_rotation;
    double q[4] = {
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
    double r[3][3] = {
        {1 - 2 * (q[1] * q[1] + q[2] * q[2]), 2 * (q[0] * q[1] - q[3] * q[2]), 2 * (q[0] * q[2] + q[3] * q[1])},
        {2 * (q[0] * q[1] + q[3] * q[2]), 1 - 2 * (q[0] * q[0] + q[2] * q[2]), 2 * (q[1] * q[2] - q[3] * q[0])},
        {2 * (q[0] * q[2] - q[3] * q[1]), 2 * (q[1] * q[2] + q[3] * q[0]), 1 - 2 * (q[0] * q[0] + q[1] * q[1])},
    };
    double wv[3] = {w.x, w.y, w.z};
    double inertia[3] = {md.principal_inertia.x, md.principal_inertia.y, md.principal_inertia.z};
    double local[3];
    *energy = 0.0;
    for (int i = 0; i < 3; ++i) {
        local[i] = r[0][i] * wv[0] + r[1][i] * wv[1] + r[2][i] * wv[2]; /* R^T w */
        *energy += 0.5 * inertia[i] * local[i] * local[i];
        local[i] *= inertia[i];
    }
    for (int i = 0; i < 3; ++i) {
        out[i] = r[i][0] * local[0] + r[i][1] * local[1] + r[i][2] * local[2];
    }
}

/* A torque-free box with three different moments, spun about a non-principal
 * axis, tumbles; its world angular momentum must stay put (issue: within 1%
 * over 10 s). The momentum-keeping update conserves it up to float rounding,
 * so a drift above 1% would mean the gyroscopic update is wrong. Its kinetic
 * energy must stay too: the midpoint rotation keeps it within 2e-5 in double
 * precision and float rounding brings that to ~8e-4 over 2400 substeps;
 * checked within 0.5%, far below what a wrong scheme gives (40% without the
 * midpoint, 22% with an implicit one-Newton-step update). */
static void test_torque_free_box_keeps_angular_momentum(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    assert_ok(ts_world_set_gravity(world, (ts_vec3){0, 0, 0}));
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.rotation = (ts_quat){0.2f, 0.3f, 0.1f, 0.927362f}; /* unit to 1e-6 */
    def.angular_velocity = (ts_vec3){2.0f, 3.0f, -4.0f};
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    ts_box box = {{1.0f, 0.5f, 0.25f}};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)));

    double l0[3], e0;
    world_momentum(body, l0, &e0);
    double l0_len = sqrt(l0[0] * l0[0] + l0[1] * l0[1] + l0[2] * l0[2]);
    double worst = 0.0, worst_energy = 0.0;
    for (int step = 0; step < 600; ++step) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
        double l[3], e;
        world_momentum(body, l, &e);
        double d = sqrt((l[0] - l0[0]) * (l[0] - l0[0]) + (l[1] - l0[1]) * (l[1] - l0[1]) +
                        (l[2] - l0[2]) * (l[2] - l0[2]));
        worst = fmax(worst, d / l0_len);
        worst_energy = fmax(worst_energy, fabs(e - e0) / e0);
    }
    print_message("angular momentum drift %.2e, energy drift %.2e over 10 s\n", worst, worst_energy);
    assert_true(worst < 0.01);
    assert_true(worst_energy < 0.005);
    /* It did tumble: the angular velocity is no longer the initial one. */
    ts_vec3 w;
    assert_ok(ts_body_get_angular_velocity(body, &w));
    assert_true(fabs(w.x - 2.0) + fabs(w.y - 3.0) + fabs(w.z + 4.0) > 0.1);
    assert_ok(ts_destroy_world(world));
}

/* Builds 6000 spinning, falling bodies (above the parallel threshold) and
 * steps them; returns every awake transform and velocity in storage order. */
static void run_many(int threads, ts_transform *transforms, ts_vec3 *velocities, int n)
{
    ts_world_id world = test_world(4, threads);
    ts_shape_def shape = ts_default_shape_def();
    ts_box box = {{0.5f, 0.3f, 0.2f}};
    ts_body_id *ids = malloc(sizeof(ts_body_id) * (size_t)n);
    for (int i = 0; i < n; ++i) {
        ts_body_def def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        def.position = (ts_vec3){(float)(i % 100), (float)(i / 100), 0.0f};
        def.angular_velocity = (ts_vec3){0.01f * (float)(i % 13), 0.3f, -0.02f * (float)(i % 7)};
        def.linear_damping = 0.1f;
        ids[i] = ts_create_body(world, &def);
        assert_false(ts_shape_id_is_null(ts_create_box_shape(ids[i], &shape, &box)));
    }
    for (int step = 0; step < 30; ++step) {
        assert_ok(ts_body_apply_torque(ids[step], (ts_vec3){1.0f, 0.0f, 0.5f}));
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    int count = 0;
    assert_ok(ts_world_get_awake_transforms(world, NULL, transforms, n, &count));
    assert_int_equal(count, n);
    for (int i = 0; i < n; ++i) {
        assert_ok(ts_body_get_linear_velocity(ids[i], &velocities[2 * i]));
        assert_ok(ts_body_get_angular_velocity(ids[i], &velocities[2 * i + 1]));
    }
    free(ids);
    assert_ok(ts_destroy_world(world));
}

/* Per-body integration is independent of the split across threads, so the
 * state after 30 steps must be bitwise identical for 1, 2, 3 and 8 threads. */
/* A tumbling box (unequal moments: the gyroscopic update) with a force
 * applied every other step, so that both velocity paths run. */
static ts_body_id tumbling_box(ts_world_id world, ts_vec3 position)
{
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.position = position;
    def.rotation = (ts_quat){0.2f, 0.3f, 0.1f, 0.927362f};
    def.linear_velocity = (ts_vec3){1.0f, 2.0f, -0.5f};
    def.angular_velocity = (ts_vec3){2.0f, 3.0f, -4.0f};
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    shape.filter.mask_bits = 0; /* touches nothing: two may share a place */
    ts_box box = {{0.5f, 0.3f, 0.2f}};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)));
    return body;
}

/* What it checks: bodies without any contact or joint, in full bundles of
 * consecutive slots, run their whole step in the first velocity pass, from
 * the store's columns and back (integrate.h), and must come out as any
 * other body does (a force left uncleared there shows in the next step).
 * Bodies 0-15 fill two bundles of such bodies (at every width up to 16);
 * body 16 sits alone in a tail bundle, which the soft step never treats so,
 * at body 0's place (the boxes touch nothing). Same forces: after 2 s their
 * velocities and rotations are equal bit for bit, and body 0's position is
 * body 16's (the others' start elsewhere, so their positions round
 * otherwise). */
static void test_free_bodies_move_as_others(void **state)
{
    (void)state;
    ts_world_id world = test_world(4, 1);
    enum { FREE = 16 };
    ts_body_id bodies[FREE + 1];
    ts_vec3 start[FREE + 1];
    for (int k = 0; k <= FREE; ++k) {
        start[k] = (ts_vec3){k == FREE ? 0.0f : 10.0f * (float)k, 5.0f, 0.0f};
        bodies[k] = tumbling_box(world, start[k]);
    }
    for (int step = 0; step < 120; ++step) {
        if (step % 2 == 0) {
            for (int k = 0; k <= FREE; ++k) {
                assert_ok(ts_body_apply_force_to_center(bodies[k], (ts_vec3){3.0f, 0.0f, 1.0f}));
            }
        }
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    ts_vec3 v_alone, w_alone, p_alone;
    ts_quat q_alone;
    assert_ok(ts_body_get_linear_velocity(bodies[FREE], &v_alone));
    assert_ok(ts_body_get_angular_velocity(bodies[FREE], &w_alone));
    assert_ok(ts_body_get_rotation(bodies[FREE], &q_alone));
    assert_ok(ts_body_get_position(bodies[FREE], &p_alone));
    for (int k = 0; k < FREE; ++k) {
        ts_vec3 v, w, p;
        ts_quat q;
        assert_ok(ts_body_get_linear_velocity(bodies[k], &v));
        assert_ok(ts_body_get_angular_velocity(bodies[k], &w));
        assert_ok(ts_body_get_rotation(bodies[k], &q));
        assert_ok(ts_body_get_position(bodies[k], &p));
        assert_memory_equal(&v, &v_alone, sizeof v);
        assert_memory_equal(&w, &w_alone, sizeof w);
        assert_memory_equal(&q, &q_alone, sizeof q);
        if (k == 0) {
            assert_memory_equal(&p, &p_alone, sizeof p);
        }
    }
    assert_ok(ts_destroy_world(world));
}

static void test_threads_bitwise_identical(void **state)
{
    (void)state;
    /* The sanitizer jobs (test_short_run) step 2,100 bodies instead of
     * 6,000: the body stages' blocks (128 bodies) still give each of up to
     * 8 threads two blocks, so the same stages split across the threads
     * that ThreadSanitizer watches (the broadphase's enlarge and refit stay
     * on one worker below 8,192 moved proxies at either size), and the
     * bits are still compared for 2, 3 and 8 threads; the default build
     * compares the 6,000. */
    const int n = test_short_run() ? 2100 : 6000;
    ts_transform *reference = malloc(sizeof(ts_transform) * n);
    ts_transform *other = malloc(sizeof(ts_transform) * n);
    ts_vec3 *reference_v = malloc(sizeof(ts_vec3) * 2 * n);
    ts_vec3 *other_v = malloc(sizeof(ts_vec3) * 2 * n);
    run_many(1, reference, reference_v, n);
    int counts[] = {2, 3, 8};
    for (int k = 0; k < 3; ++k) {
        run_many(counts[k], other, other_v, n);
        assert_memory_equal(reference, other, sizeof(ts_transform) * n);
        assert_memory_equal(reference_v, other_v, sizeof(ts_vec3) * 2 * n);
    }
    free(reference);
    free(other);
    free(reference_v);
    free(other_v);
}

/* A world with no body at all steps (nothing to move, no array to make
 * room in: the step's reserve once computed an offset from a NULL array,
 * caught by the fuzzer under UBSan), and so does one whose only body was
 * destroyed; both stay empty. */
static void test_empty_world_steps(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    ts_world_id world = ts_create_world(&def);
    for (int i = 0; i < 3; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    ts_body_id body = ball(world, (ts_vec3){0, 1, 0}, (ts_vec3){0, 0, 0});
    assert_ok(ts_world_step(world, 1.0f / 60.0f));
    assert_ok(ts_destroy_body(body));
    for (int i = 0; i < 3; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(world, &counters));
    assert_int_equal(counters.body_count, 0);
    assert_int_equal(counters.step_count, 7);
    assert_ok(ts_destroy_world(world));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_projectile),
        cmocka_unit_test(test_empty_world_steps),
        cmocka_unit_test(test_linear_damping),
        cmocka_unit_test(test_force_lasts_one_step),
        cmocka_unit_test(test_impulse_at_point),
        cmocka_unit_test(test_kinematic_moves_by_velocity),
        cmocka_unit_test(test_torque_free_box_keeps_angular_momentum),
        cmocka_unit_test(test_free_bodies_move_as_others),
        cmocka_unit_test(test_threads_bitwise_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Rolling resistance (ts_shape_def.rolling_resistance, docs/shapes.md): a
 * ball rolling on flat ground slows at the rate the model predicts, also
 * when the resistance is the ground's (the contact's mix), rolls on
 * without it (and gains no energy), and a scene of rolling bodies with and
 * without it gives the same bits at every SIMD width and thread count.
 * Run for one solver: [soft_step|xpbd] [substeps] (ctest runs both). */
#include "test_common.h"

static ts_solver_type solver_type = TS_SOLVER_SOFT_STEP;
static int substep_count = 4;

#define GRAVITY 10.0f
#define RADIUS 0.5f
#define DT (1.0f / 60.0f)

static ts_shape_id ground_shape;

static ts_world_id make_world(int width, int threads)
{
    ts_world_def def = ts_default_world_def();
    def.gravity = (ts_vec3){0.0f, -GRAVITY, 0.0f};
    def.substeps = substep_count;
    def.solver = solver_type;
    def.simd_width = width;
    def.threads = threads;
    def.enable_sleep = false;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    /* ground: a static box whose top face is y = 0 */
    ts_body_id ground = test_box(world, TS_BODY_STATIC, (ts_vec3){0.0f, -1.0f, 0.0f}, TS_QUAT_IDENTITY,
                                 (ts_vec3){60.0f, 1.0f, 60.0f}, 1.0f);
    int count;
    assert_ok(ts_body_get_shapes(ground, &ground_shape, 1, &count));
    return world;
}

/* A ball resting on the ground, rolling along +x at speed without slipping
 * (angular velocity -speed / r about z). */
static ts_body_id rolling_ball(ts_world_id world, float x, float z, float speed, float rolling_resistance,
                               ts_shape_id *shape)
{
    ts_body_id body = test_dynamic_body(world, (ts_vec3){x, RADIUS, z});
    ts_shape_def def = ts_default_shape_def();
    def.rolling_resistance = rolling_resistance;
    *shape = ts_create_sphere_shape(body, &def, &(ts_sphere){RADIUS});
    assert_false(ts_shape_id_is_null(*shape));
    assert_ok(ts_body_set_linear_velocity(body, (ts_vec3){speed, 0.0f, 0.0f}));
    assert_ok(ts_body_set_angular_velocity(body, (ts_vec3){0.0f, 0.0f, -speed / RADIUS}));
    return body;
}

static void step(ts_world_id world, int steps)
{
    for (int i = 0; i < steps; ++i) {
        assert_ok(ts_world_step(world, DT));
    }
}

static ts_vec3 velocity(ts_body_id body)
{
    ts_vec3 v;
    assert_ok(ts_body_get_linear_velocity(body, &v));
    return v;
}

static ts_vec3 spin(ts_body_id body)
{
    ts_vec3 w;
    assert_ok(ts_body_get_angular_velocity(body, &w));
    return w;
}

static float height(ts_body_id body)
{
    ts_transform t;
    assert_ok(ts_body_get_transform(body, &t));
    return t.p.y;
}

/* Energy of a solid ball per unit mass: v^2 / 2 + (2/5) r^2 w^2 / 2 + g y. */
static double ball_energy(ts_body_id body)
{
    ts_vec3 v = velocity(body), w = spin(body);
    double v2 = (double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z;
    double w2 = (double)w.x * w.x + (double)w.y * w.y + (double)w.z * w.z;
    return 0.5 * v2 + 0.5 * 0.4 * RADIUS * RADIUS * w2 + GRAVITY * height(body);
}

/* How fast the ball's contact point slides along x: v + w x (contact
 * point - centre), at the contact's anchor, midway between the ball's
 * lowest point and the ground (the ball rests y - r into its soft contact). */
static double slip(ts_body_id body)
{
    return (double)velocity(body).x + (double)spin(body).z * 0.5 * ((double)height(body) + RADIUS);
}

/* The analytic rate. A solid ball (m, r, I = 2/5 m r^2) rolls without
 * slipping (v = w r) under a torque against its rolling of
 * tau = mu_r r N = mu_r r m g (the bound of the model, reached while it
 * rolls) and the ground's friction F at the contact:
 *     m dv/dt = F,   I dw/dt = -F r - tau,   dv/dt = r dw/dt
 * so (I + m r^2) dw/dt = -tau and
 *     dv/dt = -tau r / (I + m r^2) = -(5/7) mu_r g
 * (F = (5/7) mu_r m g, within the friction 0.6 N: it keeps rolling).
 * The resistance is set through ts_shape_set_rolling_resistance once the
 * ball rests on its contact (the setter reaches existing contacts), and the
 * speed is read 1 s later. Tolerance 1% of the change (0.014 m/s at mu_r =
 * 0.2): the bound uses each substep's normal impulse, which carries the
 * weight only on average over a step (a fast-rolling ball's contact pushes
 * in some substeps, not in others), and the soft contact lets the ball sink
 * and rise by a fraction of a millimetre; measured 0.2% (soft step) and
 * 0.05% (XPBD) at 4 substeps. The ball also keeps rolling without
 * slipping (|slip| < 1 mm/s: friction takes out what the rolling impulse
 * turns, 0.1 mm/s measured) and its speed stays along x. */
static void test_ball_decelerates_at_analytic_rate(void **state)
{
    (void)state;
    const float mu = 0.2f, v0 = 4.0f;
    ts_world_id world = make_world(1, 1);
    ts_shape_id shape;
    ts_body_id ball = rolling_ball(world, -20.0f, 0.0f, v0, 0.0f, &shape);
    step(world, 10);
    float before = velocity(ball).x;
    assert_ok(ts_shape_set_rolling_resistance(shape, mu));
    float got;
    assert_ok(ts_shape_get_rolling_resistance(shape, &got));
    assert_true(got == mu);
    step(world, 60);
    ts_vec3 v = velocity(ball);
    double change = (double)before - v.x;
    double expected = 5.0 / 7.0 * mu * GRAVITY * 60.0 * DT;
    printf("rolling ball, mu_r %.2f: speed %.5f -> %.5f m/s in 1 s: %.5f m/s^2 (analytic %.5f), slip %.2g m/s\n",
           (double)mu, (double)before, (double)v.x, change / (60.0 * DT), expected / (60.0 * DT), slip(ball));
    assert_near(change, expected, 0.01 * expected);
    assert_near(slip(ball), 0.0, 1e-3);
    assert_near(v.z, 0.0, 1e-4);
    assert_ok(ts_destroy_world(world));
}

/* The mix: a ball without rolling resistance on ground with 0.2 slows as
 * if it had 0.2 itself (the contact takes the larger coefficient) and on
 * its own radius 0.5, not the ground box's 1 (the smaller rolling radius):
 * the analytic rate of the test above, same tolerance. */
static void test_ground_resistance_slows_a_ball_on_its_radius(void **state)
{
    (void)state;
    const float mu = 0.2f, v0 = 4.0f;
    ts_world_id world = make_world(1, 1);
    assert_ok(ts_shape_set_rolling_resistance(ground_shape, mu));
    ts_shape_id shape;
    ts_body_id ball = rolling_ball(world, -20.0f, 0.0f, v0, 0.0f, &shape);
    step(world, 10);
    float before = velocity(ball).x;
    step(world, 60);
    double change = (double)before - velocity(ball).x;
    double expected = 5.0 / 7.0 * mu * GRAVITY * 60.0 * DT;
    assert_near(change, expected, 0.01 * expected);
    assert_ok(ts_destroy_world(world));
}

/* Without rolling resistance (the default) the ball rolls on: after 2 s its
 * speed is within 0.5% of the start (sinking into its soft contact turns
 * the ball onto a slightly smaller rolling radius: 0.07% measured) and its
 * energy (kinetic and potential) has not grown (1e-6 relative: float
 * rounding of v, w and y). */
static void test_ball_without_resistance_rolls_on(void **state)
{
    (void)state;
    const float v0 = 4.0f;
    ts_world_id world = make_world(1, 1);
    ts_shape_id shape;
    ts_body_id ball = rolling_ball(world, -20.0f, 0.0f, v0, 0.0f, &shape);
    step(world, 2);
    double start = ball_energy(ball);
    step(world, 120);
    double end = ball_energy(ball);
    printf("rolling ball, mu_r 0: speed %.6f m/s after 2 s (start %.6f), energy %.9g -> %.9g J/kg\n",
           (double)velocity(ball).x, (double)v0, start, end);
    assert_near(velocity(ball).x, v0, 0.005 * v0);
    assert_true(end <= start * (1.0 + 1e-6));
    assert_ok(ts_destroy_world(world));
}

/* Rolling bodies with and without rolling resistance in one world, so that
 * bundles mix lanes with and without it: balls, capsules lying across
 * their motion and boxes, on the ground and on each other, all pushed. */
static uint64_t rolling_scene_hash(int width, int threads)
{
    ts_world_id world = make_world(width, threads);
    const float resistance[3] = {0.0f, 0.1f, 0.3f};
    for (int i = 0; i < 30; ++i) {
        float x = -15.0f + 1.5f * (float)(i % 10), z = -3.0f + 3.0f * (float)(i / 10);
        ts_body_def body_def = ts_default_body_def();
        body_def.type = TS_BODY_DYNAMIC;
        body_def.position = (ts_vec3){x, 0.6f + 0.05f * (float)(i % 3), z};
        ts_body_id body = ts_create_body(world, &body_def);
        ts_shape_def def = ts_default_shape_def();
        def.rolling_resistance = resistance[i % 3];
        ts_shape_id shape;
        switch (i % 4) {
        case 0: shape = ts_create_sphere_shape(body, &def, &(ts_sphere){0.5f}); break;
        case 1: /* a capsule along z: rolls along x */
            shape = ts_create_capsule_shape(body, &def, &(ts_capsule){0.4f, 0.3f});
            assert_ok(ts_body_set_transform(body, body_def.position, (ts_quat){0.70710678f, 0.0f, 0.0f, 0.70710678f}));
            break;
        case 2: shape = ts_create_box_shape(body, &def, &(ts_box){{0.4f, 0.4f, 0.4f}}); break;
        default: shape = ts_create_sphere_shape(body, &def, &(ts_sphere){0.3f}); break;
        }
        assert_false(ts_shape_id_is_null(shape));
        assert_ok(ts_body_set_linear_velocity(body, (ts_vec3){3.0f + 0.2f * (float)i, 0.0f, 0.5f}));
        assert_ok(ts_body_set_angular_velocity(body, (ts_vec3){0.5f, 0.0f, -4.0f}));
    }
    step(world, 90);
    uint64_t hash;
    assert_ok(ts_world_state_hash(world, &hash));
    assert_ok(ts_destroy_world(world));
    return hash;
}

/* Same state hash (tolerance: none, every bit) at widths 4, 8, 16 and on 2
 * threads as at width 1 on one thread. */
static void test_rolling_same_bits_at_every_width(void **state)
{
    (void)state;
    uint64_t reference = rolling_scene_hash(1, 1);
    const int widths[] = {4, 8, 16, 8, 1};
    const int threads[] = {1, 1, 1, 2, 2};
    for (int k = 0; k < 5; ++k) {
        int width = test_entry_width(widths[k], threads[k]);
        if (width == 0) {
            continue;
        }
        uint64_t other = rolling_scene_hash(width, threads[k]);
        if (other != reference) {
            fail_msg("rolling scene, width %d on %d threads: hash %016llx, width 1: %016llx", width, threads[k],
                     (unsigned long long)other, (unsigned long long)reference);
        }
    }
}

int main(int argc, char **argv)
{
    if (!test_solver_args(argc, argv, "test_rolling", &solver_type, &substep_count)) {
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ball_decelerates_at_analytic_rate),
        cmocka_unit_test(test_ground_resistance_slows_a_ball_on_its_radius),
        cmocka_unit_test(test_ball_without_resistance_rolls_on),
        cmocka_unit_test(test_rolling_same_bits_at_every_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Classic scenes of robustness: bodies confined in a box after spawning
 * overlapped, a stack far from the origin, a fast small sphere against a
 * thin wall, and a spinning top. ctest runs the file with the soft step at
 * 4 and 8 substeps. */
#include "test_classic.h"

/* ---- bodies confined in a closed box ---- */

#define CONFINED_SIDE 5 /* 5 x 5 x 5 = 125 bodies */
#define CONFINED_INNER 2.0f /* the walls' inner faces at +-2 m */

/* A closed static box (six walls 1 m thick, inner faces at +-2 m), no
 * gravity, and 125 bodies spawned on a 0.6 m lattice: spheres of radius 0.4
 * and boxes of half-extent 0.35, alternating, so every neighbour pair starts
 * 0.1 to 0.2 m overlapped. (They fill 60% of the room's 64 m^3: tight,
 * but boxes pack far denser than that and the spheres' random close
 * packing is 64%, so there is space for all.) 5 s.
 *
 * No body escapes: a body's centre can come no closer to a wall than its
 * smallest half-extent (0.35 m, a box face-on), so every centre stays
 * within |x|, |y|, |z| < 2 - 0.35 + 0.05 = 1.7 m at every step (5 cm of
 * soft overlap with a wall allowed, 2.5 times the 2 cm depth beyond which
 * the solver moves overlap out by positions). The escape speed is bounded:
 * overlap is no stored energy, the solver pushes it out at most at the
 * world's contact_push_speed (3 m/s); no body may move faster than that
 * plus 1 m/s (what test_solver's overlap recovery allows). By 5 s the
 * bodies, in inelastic contact (restitution 0) with nothing driving them,
 * have nearly stopped: mean speed below 0.1 m/s. */
static void test_confined_after_overlapped_spawn(void **state)
{
    (void)state;
    ts_world_id world = classic_world(false);
    for (int axis = 0; axis < 3; ++axis) {
        for (int side = -1; side <= 1; side += 2) {
            float c[3] = {0, 0, 0}, half[3] = {3, 3, 3};
            c[axis] = (float)side * (CONFINED_INNER + 0.5f);
            half[axis] = 0.5f;
            classic_box(world, TS_BODY_STATIC, (ts_vec3){c[0], c[1], c[2]}, TS_QUAT_IDENTITY,
                        (ts_vec3){half[0], half[1], half[2]}, 1, 0.6f, 0);
        }
    }
    enum { count = CONFINED_SIDE * CONFINED_SIDE * CONFINED_SIDE };
    ts_body_id bodies[count];
    int n = 0;
    for (int i = 0; i < CONFINED_SIDE; ++i) {
        for (int j = 0; j < CONFINED_SIDE; ++j) {
            for (int k = 0; k < CONFINED_SIDE; ++k) {
                ts_vec3 p = {0.6f * (float)(k - 2), 0.6f * (float)(i - 2), 0.6f * (float)(j - 2)};
                bodies[n] = n % 2 == 0 ? classic_sphere(world, p, 0.4f, 1, 0.6f, 0)
                                       : classic_box(world, TS_BODY_DYNAMIC, p, TS_QUAT_IDENTITY,
                                                     (ts_vec3){0.35f, 0.35f, 0.35f}, 1, 0.6f, 0);
                n += 1;
            }
        }
    }
    float push = ts_default_world_def().contact_push_speed;
    float reach = 0.0f, fastest = 0.0f, mean = 0.0f;
    for (int step = 0; step < 300; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        mean = 0.0f;
        for (int b = 0; b < n; ++b) {
            ts_vec3 p = classic_position(bodies[b]);
            float v = classic_length(classic_velocity(bodies[b]));
            reach = fmaxf(reach, fmaxf(fabsf(p.x), fmaxf(fabsf(p.y), fabsf(p.z))));
            fastest = fmaxf(fastest, v);
            mean += v / (float)n;
        }
    }
    print_message("confined: 125 bodies, 5 s: farthest centre %.4f m from the middle (walls at 2, bound 1.7), "
                  "fastest %.3f m/s (bound %.1f), mean speed at 5 s %.4f m/s\n",
                  (double)reach, (double)fastest, (double)(push + 1.0f), (double)mean);
    assert_true(reach < CONFINED_INNER - 0.35f + 0.05f);
    assert_true(fastest < push + 1.0f);
    assert_true(mean < 0.1f);
    assert_ok(ts_destroy_world(world));
}

/* ---- a stack far from the origin ---- */

#define FAR_STACK 10

/* Ten unit boxes stacked on a ground whose centre is (x0, 0, z0); 10 s.
 * Returns the largest horizontal move of any box from its start and the
 * top box's final height. */
static void run_far_stack(float x0, float z0, float *sideways, float *top_y)
{
    ts_world_id world = classic_world(true);
    classic_ground(world, x0, z0, 50, 0.6f);
    ts_body_id boxes[FAR_STACK];
    for (int i = 0; i < FAR_STACK; ++i) {
        boxes[i] = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){x0, 0.5f + (float)i, z0}, TS_QUAT_IDENTITY,
                               (ts_vec3){0.5f, 0.5f, 0.5f}, 1, 0.6f, 0);
    }
    *sideways = 0.0f;
    for (int step = 0; step < 600; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        for (int i = 0; i < FAR_STACK; ++i) {
            ts_vec3 p = classic_position(boxes[i]);
            *sideways = fmaxf(*sideways, sqrtf((p.x - x0) * (p.x - x0) + (p.z - z0) * (p.z - z0)));
        }
    }
    *top_y = classic_position(boxes[FAR_STACK - 1]).y;
    assert_ok(ts_destroy_world(world));
}

/* The stack at (10 km, 0, 10 km) stands as it does at the origin. Floats
 * there are spaced 2^-10 m = 0.98 mm apart in x and z, so a body's
 * horizontal position moves in ~1 mm steps and a move below 0.5 mm per
 * step is lost to rounding (y stays near 0, where floats are fine). Nothing
 * pushes the stack sideways; the largest horizontal move of any box at any
 * step may exceed the origin stack's by two such spacings, 2 mm, no more
 * (the origin stack's own drift is printed: the physics answer is 0, and
 * the soft step gives ~9 mm at 4 substeps, 4 mm at 8); and the top box's
 * height (the stack's soft compression) matches the origin stack's within
 * 1 mm, one spacing: the contact geometry is computed from differences of
 * positions, exact between floats this close (Sterbenz), so the only
 * difference is which way positions round. */
static void test_far_from_origin_stack(void **state)
{
    (void)state;
    float near_sideways, near_top, far_sideways, far_top;
    run_far_stack(0.0f, 0.0f, &near_sideways, &near_top);
    run_far_stack(1.0e4f, 1.0e4f, &far_sideways, &far_top);
    print_message("stack of 10 at the origin: sideways %.3f mm, top at %.5f m; at (10 km, 0, 10 km): sideways "
                  "%.3f mm, top at %.5f m\n",
                  1e3 * (double)near_sideways, (double)near_top, 1e3 * (double)far_sideways, (double)far_top);
    assert_true(far_sideways < near_sideways + 0.002f);
    assert_near(far_top, near_top, 0.001);
}

/* ---- a fast small sphere against a thin wall ---- */

/* A sphere of radius 0.05 m (density 1000: 0.52 kg) flies at the centre of
 * a thin wall, a static box 0.1 m thick (faces at x = -0.05 and 0.05) and
 * 4 m square (|y|, |z| <= 2), from `distance` away along its line of
 * flight, no gravity, friction 0.6, restitution 0. 1 s.
 *
 * At 100 m/s it covers 1.67 m a step, 17 times the wall's thickness: a
 * solver that looked only at the poses at the ends of steps would never
 * see the wall. The sphere must stay on the near side: its centre never
 * reaches the near face (x = -0.05; resting against the wall it sits at
 * -0.10) while it is in front of the wall (|z| < 2), and its path never
 * crosses the wall's middle plane x = 0 within the wall (the crossing
 * point interpolated between steps). Returns whether it stayed, and
 * through *deepest the largest x its centre reached in front of the wall.
 * (Nothing here is a bound to tune: a sphere is either stopped by the
 * wall or found behind it.) */
static bool shoot(float speed, float degrees, float distance, float *deepest)
{
    ts_world_id world = classic_world(false);
    classic_box(world, TS_BODY_STATIC, (ts_vec3){0, 0, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.05f, 2, 2}, 1, 0.6f, 0);
    float angle = degrees * CLASSIC_PI / 180.0f;
    ts_vec3 dir = {cosf(angle), 0, sinf(angle)};
    ts_body_id ball =
        classic_sphere(world, (ts_vec3){-distance * dir.x, 0, -distance * dir.z}, 0.05f, 1000, 0.6f, 0);
    /* a 400 m/s shot is at the default speed limit (tessera/limits.h): lift it so the shot is not scaled */
    assert_ok(ts_world_set_speed_limits(world, 1000.0f, TS_DEFAULT_MAX_ROTATION));
    assert_ok(ts_body_set_linear_velocity(ball, (ts_vec3){speed * dir.x, 0, speed * dir.z}));
    ts_vec3 before = classic_position(ball);
    bool stayed = true;
    *deepest = -INFINITY;
    for (int step = 0; step < 60; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        ts_vec3 p = classic_position(ball);
        if (fabsf(p.z) < 2.0f) {
            *deepest = fmaxf(*deepest, p.x);
            stayed = stayed && p.x < -0.05f;
        }
        if (before.x < 0.0f && p.x >= 0.0f) {
            float z = before.z + (p.z - before.z) * (-before.x) / (p.x - before.x);
            stayed = stayed && fabsf(z) >= 2.0f;
        }
        before = p;
    }
    assert_ok(ts_destroy_world(world));
    return stayed;
}

/* Shots at `count` speeds and angles, each from every one of the
 * distances (where a step ends relative to the wall changes with the
 * distance, and with it what the step before the hit sees); failures
 * printed, then the verdict. */
static void shots(const float *speeds, const float *degrees, int count, const float *distances, int distance_count)
{
    int failed = 0;
    for (int k = 0; k < count; ++k) {
        for (int d = 0; d < distance_count; ++d) {
            float deepest;
            bool stayed = shoot(speeds[k], degrees[k], distances[d], &deepest);
            if (!stayed) {
                print_message("sphere at %.0f m/s, %.0f degrees off the wall's normal, from %.0f m: went through\n",
                              (double)speeds[k], (double)degrees[k], (double)distances[d]);
            }
            failed += !stayed;
        }
    }
    print_message("%d of %d shots went through the wall\n", failed, count * distance_count);
    if (failed > 0) {
        fail_msg("%d of %d spheres went through the wall", failed, count * distance_count);
    }
}

static const float shot_distances[3] = {10.0f, 20.0f, 30.0f};

/* Head on at 100, 200 and 400 m/s from 10, 20 and 30 m (the wall one step
 * or more away: 1.5 to 18 steps). */
static void test_fast_sphere_head_on(void **state)
{
    (void)state;
    const float speeds[3] = {100, 200, 400}, degrees[3] = {0, 0, 0};
    shots(speeds, degrees, 3, shot_distances, 3);
}

/* At 20, 30 and 45 degrees off the wall's normal, 100 to 400 m/s: the
 * sphere also slides along the wall by up to 4.7 m a step, so the face
 * point it will hit is not the one nearest at the step's start. */
static void test_fast_sphere_oblique(void **state)
{
    (void)state;
    const float speeds[9] = {100, 100, 100, 200, 200, 200, 400, 400, 400};
    const float degrees[9] = {20, 30, 45, 20, 30, 45, 20, 30, 45};
    shots(speeds, degrees, 9, shot_distances, 3);
}

/* The velocity given before the first step: at 500 m/s from 5 m the sphere
 * reaches the wall within its first step, before any step has seen it
 * move. */
static void test_fast_sphere_in_first_step(void **state)
{
    (void)state;
    const float speeds[1] = {500}, degrees[1] = {0}, distance[1] = {5.0f};
    shots(speeds, degrees, 1, distance, 1);
}

/* ---- a spinning top ---- */

/* A top: a square plate 1 x 0.1 x 1 m (density 1) on a stem, a capsule of
 * radius 0.05 from 0.05 to 0.55 m below the plate's centre, whose round
 * end, the tip, touches the ground. Tilted by `tilt` about z around the
 * tip, spinning at w about its own axis (the tip then at rest: the centre
 * of mass is on the axis). Returns the largest tilt (degrees) over `steps`. */
static float spin_top(float w, float tilt, int steps, float *critical)
{
    ts_world_id world = classic_world(true);
    classic_ground(world, 0, 0, 50, 0.6f);
    const float tip = 0.6f; /* the tip's lowest point, below the plate's centre */
    ts_quat q = classic_axis_angle((ts_vec3){0, 0, 1}, tilt);
    ts_vec3 axis = classic_rotate(q, (ts_vec3){0, 1, 0});
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.rotation = q;
    def.position = (ts_vec3){tip * axis.x, tip * axis.y, 0}; /* the tip point at the origin */
    def.angular_velocity = (ts_vec3){w * axis.x, w * axis.y, w * axis.z};
    ts_body_id top = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    ts_box plate = {{0.5f, 0.05f, 0.5f}};
    assert_false(ts_shape_id_is_null(ts_create_box_shape(top, &shape, &plate)));
    shape.local_position = (ts_vec3){0, -0.3f, 0};
    ts_capsule stem = {0.25f, 0.05f};
    assert_false(ts_shape_id_is_null(ts_create_capsule_shape(top, &shape, &stem)));
    /* The sleeping top is stable when I3^2 w^2 > 4 I1 m g l (Lagrange's top
     * about a fixed point): I3 the moment about the axis, I1 the one across
     * it about the tip, l the tip-to-centre-of-mass distance. */
    ts_mass_data m;
    assert_ok(ts_body_get_mass_data(top, &m));
    float l = m.center.y + tip;
    float i1 = m.principal_inertia.x + m.mass * l * l; /* the plate is square: x and z moments are equal */
    float i3 = m.principal_inertia.y;
    *critical = sqrtf(4.0f * i1 * m.mass * CLASSIC_G * l) / i3;
    /* the principal frame must be the body frame for the moments above */
    assert_near(classic_turned_degrees(TS_QUAT_IDENTITY, m.principal_rotation), 0.0, 1e-3);
    float most = 0.0f;
    for (int step = 0; step < steps; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        most = fmaxf(most, classic_tilt(top, (ts_vec3){0, 1, 0}, (ts_vec3){0, 1, 0}) * 180.0f / CLASSIC_PI);
    }
    assert_ok(ts_destroy_world(world));
    return most;
}

/* The top's figures: m = 0.104 kg, l = 0.587 m, I3 = 0.0167 kg m^2, I1 about
 * the tip = 0.045 kg m^2, so w_c = sqrt(4 I1 m g l) / I3 = 19.9 rad/s
 * (computed from the body's mass data in spin_top). Spun at 3 w_c and started
 * 3 degrees off the vertical, a fast top precesses about the vertical and
 * nutates by about (w_c / w)^2 / 2 sin(3 deg) = 0.17 degrees: over 5 s its
 * tilt must stay below 6 degrees, twice the start (room for the round
 * tip's rolling, which a fixed-point top does not have). The same top
 * without spin falls: past 45 degrees within 2 s (a check that the spin,
 * not the solver's symmetry, holds it up). */
static void test_spinning_top_stays_up(void **state)
{
    (void)state;
    const float start = 3.0f * CLASSIC_PI / 180.0f;
    float critical;
    spin_top(0.0f, start, 1, &critical);
    float spun = spin_top(3.0f * critical, start, 300, &critical);
    float still = spin_top(0.0f, start, 120, &critical);
    print_message("top: critical spin %.2f rad/s; spun at %.2f rad/s its tilt stayed below %.3f degrees over 5 s; "
                  "without spin it reached %.1f degrees in 2 s\n",
                  (double)critical, 3.0 * (double)critical, (double)spun, (double)still);
    assert_true(spun < 6.0f);
    assert_true(still > 45.0f);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_confined_after_overlapped_spawn),
        cmocka_unit_test(test_far_from_origin_stack),
        cmocka_unit_test(test_fast_sphere_head_on),
        cmocka_unit_test(test_fast_sphere_oblique),
        cmocka_unit_test(test_fast_sphere_in_first_step),
        cmocka_unit_test(test_spinning_top_stays_up),
    };
    return classic_main(argc, argv, "test_classic_misc", tests, sizeof tests / sizeof tests[0]);
}

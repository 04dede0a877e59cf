/* The 2D scenes of the seed engines (the bevy_xpbd tutorial, Starframe) in a
 * planar world (ts_world_def.planar: every dynamic body kept in its x-y
 * plane, turning about z alone), for both solvers: balls bouncing in a box
 * with restitution never gain energy; a stack of boxes comes to rest and
 * stays; boxes sliding on the ground stop at v0^2 / (2 mu g); a 2D pyramid
 * of 20 rows stands. ctest runs the file with both solvers at 4 and 8
 * substeps:
 *
 *     test_planar_scenes [soft_step|xpbd] [substeps] [only=a,b] [skip=a,b] */
#include "test_classic.h"

/* A planar world of the run's solver and substeps, one thread, sleeping off. */
static ts_world_id planar_world(void)
{
    ts_world_def def = ts_default_world_def();
    def.substeps = classic_substeps;
    def.solver = classic_solver;
    def.threads = 1;
    def.enable_sleep = false;
    def.planar = true;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    return world;
}

/* Kinetic plus potential energy (m g y) of the bodies. */
static double total_energy(const ts_body_id *bodies, int count)
{
    double e = classic_kinetic_energy(bodies, count);
    for (int i = 0; i < count; ++i) {
        float mass;
        assert_ok(ts_body_get_mass(bodies[i], &mass));
        e += (double)mass * CLASSIC_G * (double)classic_position(bodies[i]).y;
    }
    return e;
}

/* ---- bouncing balls ---- */

/* 24 balls (radius 0.25 m, restitution 0.8, no friction) dropped from up to
 * 5 m in a 6 m wide box, some thrown sideways, bouncing off the floor, the
 * walls and each other for 10 s. Their energy (kinetic + potential) never
 * grows: at no step above its start by more than 0.5% of the start's
 * kinetic-plus-drop energy (contacts are soft: a ball pressed into another
 * for a substep stores a little spring energy that it gives back, and the
 * restitution velocity is the approach the step began with); and the
 * bounces lose it: by 10 s it is below 90% of the start's. */
static void test_bouncing_balls_never_gain_energy(void **state)
{
    (void)state;
    ts_world_id world = planar_world();
    classic_ground(world, 0, 0, 10, 0.0f);
    classic_box(world, TS_BODY_STATIC, (ts_vec3){-3.5f, 4, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 4, 1}, 1, 0, 0.8f);
    classic_box(world, TS_BODY_STATIC, (ts_vec3){3.5f, 4, 0}, TS_QUAT_IDENTITY, (ts_vec3){0.5f, 4, 1}, 1, 0, 0.8f);
    enum { N = 24 };
    ts_body_id balls[N];
    for (int i = 0; i < N; ++i) {
        ts_vec3 p = {-2.5f + 0.7f * (float)(i % 8), 1.5f + 1.2f * (float)(i / 8) + 0.1f * (float)(i % 3), 0};
        balls[i] = classic_sphere(world, p, 0.25f, 1000.0f, 0.0f, 0.8f);
        assert_ok(ts_body_set_linear_velocity(balls[i], (ts_vec3){(float)(i % 5) - 2.0f, 0, 0}));
    }
    double start = total_energy(balls, N), ground_level = 0.0;
    for (int i = 0; i < N; ++i) {
        float mass;
        assert_ok(ts_body_get_mass(balls[i], &mass));
        ground_level += (double)mass * CLASSIC_G * 0.25;
    }
    double scale = start - ground_level, worst = -1e30, now = start;
    for (int step = 0; step < 600; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        now = total_energy(balls, N);
        worst = fmax(worst, (now - start) / scale);
    }
    print_message("bouncing balls: energy at most %+.3f%% of the start's (above resting), %.1f%% left at 10 s\n",
                  100.0 * worst, 100.0 * (now - ground_level) / scale);
    assert_true(worst <= 0.005);
    assert_true((now - ground_level) / scale < 0.9);
    assert_ok(ts_destroy_world(world));
}

/* ---- a stack ---- */

/* Ten unit boxes stacked on the ground (friction 0.6) come to rest: after
 * 4 s every box is within 1 cm of its start in x and 5 cm in y, turned by
 * less than 1 degree and slower than 1 cm/s; and it stays: from 4 s to
 * 10 s no box moves by 2 mm more. Why 5 cm: contacts are soft springs
 * (ts_world_def.contact_hertz), so the stack settles; its contacts have two
 * points per face in a planar world (manifold_locks.c), the contact of a
 * 2D engine, and the ten boxes settle by 3.3 cm (the same stack in 3D, four
 * points per face: 2.6 cm). It sways by about a millimetre while it
 * settles, as the 3D stack does. */
static void test_box_stack_rests_and_stays(void **state)
{
    (void)state;
    ts_world_id world = planar_world();
    classic_ground(world, 0, 0, 10, 0.6f);
    enum { N = 10 };
    ts_body_id boxes[N];
    for (int i = 0; i < N; ++i) {
        boxes[i] = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 0.5f + (float)i, 0}, TS_QUAT_IDENTITY,
                               (ts_vec3){0.5f, 0.5f, 0.5f}, 1, 0.6f, 0);
    }
    classic_step(world, 240);
    ts_vec3 rested[N];
    float worst_x = 0, worst_y = 0, worst_turn = 0, fastest = 0;
    for (int i = 0; i < N; ++i) {
        rested[i] = classic_position(boxes[i]);
        ts_quat q;
        assert_ok(ts_body_get_rotation(boxes[i], &q));
        worst_x = fmaxf(worst_x, fabsf(rested[i].x));
        worst_y = fmaxf(worst_y, fabsf(rested[i].y - (0.5f + (float)i)));
        worst_turn = fmaxf(worst_turn, (float)classic_turned_degrees(TS_QUAT_IDENTITY, q));
        fastest = fmaxf(fastest, classic_length(classic_velocity(boxes[i])));
    }
    classic_step(world, 360);
    float drift = 0;
    for (int i = 0; i < N; ++i) {
        drift = fmaxf(drift, classic_distance(classic_position(boxes[i]), rested[i]));
    }
    print_message("stack of %d: at 4 s off by %.4f m in x, %.4f m in y, turned %.3f deg, fastest %.4f m/s; moved "
                  "%.5f m more by 10 s\n",
                  N, (double)worst_x, (double)worst_y, (double)worst_turn, (double)fastest, (double)drift);
    assert_true(worst_x < 0.01f && worst_y < 0.05f && worst_turn < 1.0f && fastest < 0.01f);
    assert_true(drift < 0.002f);
    assert_ok(ts_destroy_world(world));
}

/* ---- sliding boxes ---- */

/* Coulomb friction stops a box sliding at v0 after d = v0^2 / (2 mu g):
 * three unit boxes side by side in z = 0 on grounds of their own... in
 * one plane they would collide, so each slides in a world of its own. 1%
 * as in test_friction_scenes.c (the substep integrator counts each
 * substep's slide at the speed it ends with: v0 h / 2 short). */
static void test_sliding_boxes_stop(void **state)
{
    (void)state;
    const struct {
        float v0, mu;
    } cases[3] = {{5.0f, 0.5f}, {3.0f, 0.2f}, {4.0f, 0.8f}};
    int failed = 0;
    for (int k = 0; k < 3; ++k) {
        ts_world_id world = planar_world();
        classic_ground(world, 0, 0, 50, cases[k].mu);
        ts_body_id box = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 0.5f, 0}, TS_QUAT_IDENTITY,
                                     (ts_vec3){0.5f, 0.5f, 0.5f}, 1, cases[k].mu, 0);
        assert_ok(ts_body_set_linear_velocity(box, (ts_vec3){cases[k].v0, 0, 0}));
        classic_step(world, 180);
        float d = classic_position(box).x, speed = classic_length(classic_velocity(box));
        float expected = cases[k].v0 * cases[k].v0 / (2.0f * cases[k].mu * CLASSIC_G);
        print_message("slide v0 %.1f m/s, mu %.2f: %.4f m, v0^2 / (2 mu g) = %.4f m (%+.2f%%), speed at 3 s %.2g\n",
                      (double)cases[k].v0, (double)cases[k].mu, (double)d, (double)expected,
                      100.0 * (double)((d - expected) / expected), (double)speed);
        failed += !(fabsf(d - expected) <= 0.01f * expected && speed < 1e-3f);
        assert_ok(ts_destroy_world(world));
    }
    if (failed > 0) {
        fail_msg("%d of 3 slides missed v0^2 / (2 mu g) by more than 1%% (or did not stop)", failed);
    }
}

/* ---- a 2D pyramid ---- */

/* scenes.md's large_pyramid with B = 20 rows (210 boxes of half-extent 0.5,
 * density 100, friction 0.6) in a planar world stands, with the scene's
 * quality check over 10 s: every centre above y = 0.4 at every step, the
 * top box within 0.1 m of its start, the mean speed at 10 s below 0.05 m/s;
 * and the plane kept exactly (z = 0 at every step). */
static void test_pyramid_20_rows_stands(void **state)
{
    (void)state;
    enum { B = 20, N = B * (B + 1) / 2 };
    ts_world_id world = planar_world();
    classic_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){400, 1, 400}, 1, 0.6f, 0);
    ts_body_id boxes[N];
    int n = 0;
    const float h = 0.5f;
    for (int r = 0; r < B; ++r) {
        for (int j = r; j < B; ++j) {
            float x = (float)(r + 1) * h + 2.0f * (float)(j - r) * h - (float)B * h;
            boxes[n++] = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){x, (float)(2 * r + 1) * h, 0}, TS_QUAT_IDENTITY,
                                     (ts_vec3){h, h, h}, 100, 0.6f, 0);
        }
    }
    ts_vec3 top = classic_position(boxes[N - 1]);
    float lowest = 1e30f;
    int off_plane = 0;
    for (int step = 0; step < 600; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        for (int i = 0; i < N; ++i) {
            ts_vec3 p = classic_position(boxes[i]);
            lowest = fminf(lowest, p.y);
            off_plane += p.z != 0.0f;
        }
    }
    double speed = 0;
    for (int i = 0; i < N; ++i) {
        speed += classic_length(classic_velocity(boxes[i]));
    }
    speed /= N;
    float moved = classic_distance(classic_position(boxes[N - 1]), top);
    print_message("2D pyramid B = %d: top moved %.4f m (pass < 0.1), lowest centre %.4f (pass > 0.4), mean speed "
                  "%.2g m/s (pass < 0.05), %d body-steps off z = 0\n",
                  B, (double)moved, (double)lowest, speed, off_plane);
    assert_true(moved < 0.1f && lowest > 0.4f && speed < 0.05);
    assert_int_equal(off_plane, 0);
    assert_ok(ts_destroy_world(world));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bouncing_balls_never_gain_energy),
        cmocka_unit_test(test_box_stack_rests_and_stays),
        cmocka_unit_test(test_sliding_boxes_stop),
        cmocka_unit_test(test_pyramid_20_rows_stands),
    };
    return classic_main(argc, argv, "test_planar_scenes", tests, sizeof tests / sizeof tests[0]);
}

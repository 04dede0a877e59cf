/* Newton's cradles that must keep their energy: five spheres of radius 0.5
 * and density 1 (0.5236 kg each) in a row along x, restitution 1, friction
 * 0, no gravity, the first thrown at 2 m/s into the others. ctest runs the
 * file for both solvers at 4 and 8 substeps (issue 20, item 4: "no cradle
 * variant gains kinetic energy with either solver").
 *
 * What physics asks of every variant: no force acts from outside, so the
 * total momentum stays m v0 (the contact impulses are equal and opposite:
 * only float rounding, 1e-5 relative, may move it); restitution 1 returns at
 * most the energy a collision stores, so the kinetic energy never exceeds
 * its start. The bound is out/in <= 1.001 at every step: 0.1% is far above
 * the rounding of a few hundred float steps (~1e-6) and far below any real
 * gain (the bug of issue 20 gave x1.58 and x3.6).
 *
 * With gaps between the spheres every collision is one of two equal masses
 * and e = 1, which swaps their velocities: the ideal cradle ends with the
 * last sphere at 2 m/s and the others at rest. The issue allows 5% (last
 * >= 1.9 m/s, others < 0.1 m/s): with 2 cm gaps at 2 m/s the next
 * collision is due 10 ms after the last one began, inside the same 16.7 ms
 * step, so a step may hold three spheres in contact at once.
 *
 * Spheres that touch at rest are a different case: a rigid-body solver
 * meets a simultaneous collision, whose outcome momentum and energy alone do
 * not fix (a real cradle's answer comes from the elastic wave through the
 * steel, which rigid bodies do not have). For the touching rows only
 * momentum and the energy bound are asserted; the speeds are printed. */
#include "test_classic.h"

#define CRADLE_RADIUS 0.5f
#define CRADLE_SPEED 2.0f
#define CRADLE_STEPS 150 /* 2.5 s: the slowest variant (4 gaps of 30 cm at 2 m/s) is done by 0.6 s */

typedef struct cradle_result {
    double most_energy; /* the largest kinetic energy over the run / the start's */
    double end_energy;  /* at the end / the start's */
    double momentum_error; /* largest |p - p0| / |p0| over the run */
    float speed[8];      /* final x velocities */
} cradle_result;

/* Spheres at x[0..count), all at rest but the first (2 m/s along +x). */
static cradle_result run_cradle(const float *x, int count)
{
    ts_world_id world = classic_world(false);
    ts_body_id balls[8];
    for (int i = 0; i < count; ++i) {
        balls[i] = classic_sphere(world, (ts_vec3){x[i], 0, 0}, CRADLE_RADIUS, 1.0f, 0.0f, 1.0f);
    }
    assert_ok(ts_body_set_linear_velocity(balls[0], (ts_vec3){CRADLE_SPEED, 0, 0}));
    float mass;
    assert_ok(ts_body_get_mass(balls[0], &mass));
    double e0 = classic_kinetic_energy(balls, count);
    double p0 = (double)mass * CRADLE_SPEED;
    cradle_result r = {1.0, 1.0, 0.0, {0}};
    for (int step = 0; step < CRADLE_STEPS; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        double e = classic_kinetic_energy(balls, count) / e0;
        r.most_energy = fmax(r.most_energy, e);
        r.end_energy = e;
        double px = 0.0, py = 0.0, pz = 0.0;
        for (int i = 0; i < count; ++i) {
            ts_vec3 v = classic_velocity(balls[i]);
            px += (double)mass * v.x;
            py += (double)mass * v.y;
            pz += (double)mass * v.z;
        }
        r.momentum_error = fmax(r.momentum_error, sqrt((px - p0) * (px - p0) + py * py + pz * pz) / p0);
    }
    for (int i = 0; i < count; ++i) {
        r.speed[i] = classic_velocity(balls[i]).x;
    }
    assert_ok(ts_destroy_world(world));
    return r;
}

static void print_cradle(const char *name, cradle_result r, int count)
{
    print_message("%s: energy out/in %.5f (most %.5f), momentum error %.1e, speeds", name, r.end_energy,
                  r.most_energy, r.momentum_error);
    for (int i = 0; i < count; ++i) {
        print_message(" %.3f", (double)r.speed[i]);
    }
    print_message(" m/s\n");
}

/* Every variant: momentum kept, energy never above its start (see the top). */
static bool conserving(cradle_result r) { return r.momentum_error < 1e-5 && r.most_energy <= 1.001; }

static void assert_conserving(cradle_result r)
{
    assert_true(r.momentum_error < 1e-5);
    if (!(r.most_energy <= 1.001)) {
        fail_msg("kinetic energy grew to %.4f x its start (bound 1.001)", r.most_energy);
    }
}

/* The ideal cradle with gaps: the last sphere leaves at >= 1.9 m/s, the
 * others end below 0.1 m/s (5% of the ideal's 2 m/s and 0; see the top). */
static bool passed_on(cradle_result r, int count)
{
    bool ok = r.speed[count - 1] >= 1.9f;
    for (int i = 0; i < count - 1; ++i) {
        ok = ok && fabsf(r.speed[i]) < 0.1f;
    }
    return ok;
}

static void assert_passed_on(cradle_result r, int count)
{
    if (!(r.speed[count - 1] >= 1.9f)) {
        fail_msg("last sphere leaves at %.3f m/s (wanted >= 1.9)", (double)r.speed[count - 1]);
    }
    for (int i = 0; i < count - 1; ++i) {
        if (!(fabsf(r.speed[i]) < 0.1f)) {
            fail_msg("sphere %d ends at %.3f m/s (wanted below 0.1)", i, (double)r.speed[i]);
        }
    }
}

/* Five spheres in a row with a gap between each two, the first thrown. */
static cradle_result gapped_cradle(float gap)
{
    float x[5];
    for (int i = 0; i < 5; ++i) {
        x[i] = (float)i * (2.0f * CRADLE_RADIUS + gap);
    }
    return run_cradle(x, 5);
}

/* Five spheres touching (centres 1 m apart), the first moving at 2 m/s
 * into the others from the start. */
static void test_touching_row(void **state)
{
    (void)state;
    const float x[5] = {0, 1, 2, 3, 4};
    cradle_result r = run_cradle(x, 5);
    print_cradle("touching row of 5", r, 5);
    assert_conserving(r);
}

/* The cradle: 2 cm gaps, the first sphere at 2 m/s. */
static void test_gaps_2cm(void **state)
{
    (void)state;
    cradle_result r = gapped_cradle(0.02f);
    print_cradle("2 cm gaps", r, 5);
    assert_conserving(r);
    assert_passed_on(r, 5);
}

/* The same for gaps of 5, 10, 20 and 30 cm: from a collision inside one step
 * with the next sphere's contact speculative (5 cm) to collisions steps
 * apart (30 cm: 9 steps between them). */
static void test_gaps_5_to_30cm(void **state)
{
    (void)state;
    const float gaps[4] = {0.05f, 0.10f, 0.20f, 0.30f};
    int failed = 0;
    for (int k = 0; k < 4; ++k) { /* every gap printed, then the verdict */
        cradle_result r = gapped_cradle(gaps[k]);
        char name[32];
        snprintf(name, sizeof name, "%.0f cm gaps", (double)(100.0f * gaps[k]));
        print_cradle(name, r, 5);
        failed += !conserving(r) || !passed_on(r, 5);
    }
    if (failed > 0) {
        fail_msg("%d of 4 gaps gained energy or did not pass the speed on", failed);
    }
}

/* The first sphere flies a gap and hits a touching row of four: a
 * simultaneous collision at its far end (see the top), so only momentum and
 * the energy bound are asserted. */
static cradle_result gap_into_row(float gap)
{
    const float x[5] = {-1.0f - gap, 0, 1, 2, 3};
    return run_cradle(x, 5);
}

/* The case: a 10 cm gap. */
static void test_gap_into_touching_row(void **state)
{
    (void)state;
    cradle_result r = gap_into_row(0.10f);
    print_cradle("10 cm gap into a touching row of 4", r, 5);
    assert_conserving(r);
}

/* Gaps of 2, 5, 20 and 30 cm before the touching row. */
static void test_gaps_2_to_30cm_into_touching_row(void **state)
{
    (void)state;
    const float gaps[4] = {0.02f, 0.05f, 0.20f, 0.30f};
    int failed = 0;
    for (int k = 0; k < 4; ++k) {
        cradle_result r = gap_into_row(gaps[k]);
        char name[48];
        snprintf(name, sizeof name, "%.0f cm gap into a touching row of 4", (double)(100.0f * gaps[k]));
        print_cradle(name, r, 5);
        failed += !conserving(r);
    }
    if (failed > 0) {
        fail_msg("%d of 4 gaps gained energy", failed);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_touching_row),
        cmocka_unit_test(test_gaps_2cm),
        cmocka_unit_test(test_gaps_5_to_30cm),
        cmocka_unit_test(test_gap_into_touching_row),
        cmocka_unit_test(test_gaps_2_to_30cm_into_touching_row),
    };
    return classic_main(argc, argv, "test_cradle", tests, sizeof tests / sizeof tests[0]);
}

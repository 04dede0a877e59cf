/* Heavy bodies held by light ones (issue 20, item 3 and its ball and
 * chain): a heavy box on three unit boxes at mass ratios 10, 100 and 1,000,
 * and a 1,000 kg ball hanging from 30 links of 1 kg. ctest runs the file
 * with the soft step at 4 and 8 substeps.
 *
 * Why heavy-on-light is hard for a soft-contact solver: a soft contact is a
 * spring of stiffness k = m (2 pi f)^2, f = 30 Hz, with m the effective mass
 * of the pair, here that of the light box (1 kg): k = 35.5 kN/m. A rigid
 * contact would hold the load at zero depth; the plain soft spring holds a
 * light box's third of the weight, M g / 3, at a depth of M g / (3 k):
 * 0.94 mm at 10:1, 9.4 mm at 100:1, 9.4 cm at 1,000:1 (Box3D, which uses
 * that model, measured 8.6 cm). The issue asks for less than 5 cm at
 * 1,000:1 (goal 2 cm) and 1 cm at 100:1 (the spring's own depth, 9.4 mm,
 * and little more); at 10:1 the bound is 2 mm, twice the spring's 0.94 mm
 * (the landing of the load, which starts touching at rest, overshoots).
 * The ground contact under a light box is stiffer (a static body: twice the
 * frequency, four times k) and carries M g / 3 + 10 N: 0.3, 2.4 and 24 mm. */
#include "test_classic.h"

/* ---- the heavy box on three unit boxes ---- */

#define LIGHT_HALF 0.5f
static const ts_vec3 heavy_half = {1.0f, 0.25f, 1.0f};

typedef struct stack_result {
    float on_light;  /* deepest overlap of the heavy box's bottom below a light box's top, m */
    float on_ground; /* deepest overlap of a light box's bottom below the ground (y = 0), m */
    float lowest_heavy; /* lowest centre y of the heavy box (starts at 1.25) */
    float drift;        /* largest horizontal distance of the heavy box from its start */
} stack_result;

/* Three unit boxes (1 kg) on the ground along x, 10 cm apart (no side
 * contacts), under a box of half-extents (1, 0.25, 1) of mass `heavy`
 * (density heavy / 2 m^3) centred over the middle one: it covers all of the
 * middle box's top and 0.4 m of each outer box's. 5 s.
 *
 * Penetration, from body poses: between the heavy box and the light ones,
 * the highest corner of any light box less the lowest corner of the heavy
 * box (the overlap of their vertical extents: exact while the boxes stay
 * level, an overestimate when they tilt); between a light box and the
 * ground, minus its lowest corner's y. Both are taken at every step. */
static stack_result run_heavy_on_light(float heavy)
{
    ts_world_id world = classic_world(true);
    classic_ground(world, 0, 0, 50, 0.6f);
    ts_body_id light[3];
    for (int i = 0; i < 3; ++i) {
        light[i] = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){1.1f * (float)(i - 1), LIGHT_HALF, 0},
                               TS_QUAT_IDENTITY, (ts_vec3){LIGHT_HALF, LIGHT_HALF, LIGHT_HALF}, 1, 0.6f, 0);
    }
    ts_body_id box = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 2.0f * LIGHT_HALF + heavy_half.y, 0},
                                 TS_QUAT_IDENTITY, heavy_half, heavy / 2.0f, 0.6f, 0);
    float mass;
    assert_ok(ts_body_get_mass(box, &mass));
    assert_near(mass, heavy, 1e-3 * heavy);
    stack_result r = {0, 0, INFINITY, 0};
    for (int step = 0; step < 300; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        float heavy_low, heavy_high, top = -INFINITY;
        classic_box_y_range(box, heavy_half, &heavy_low, &heavy_high);
        for (int i = 0; i < 3; ++i) {
            float low, high;
            classic_box_y_range(light[i], (ts_vec3){LIGHT_HALF, LIGHT_HALF, LIGHT_HALF}, &low, &high);
            top = fmaxf(top, high);
            r.on_ground = fmaxf(r.on_ground, -low);
        }
        r.on_light = fmaxf(r.on_light, top - heavy_low);
        ts_vec3 p = classic_position(box);
        r.lowest_heavy = fminf(r.lowest_heavy, p.y);
        r.drift = fmaxf(r.drift, sqrtf(p.x * p.x + p.z * p.z));
    }
    print_message("heavy box %g kg on three 1 kg boxes, 5 s: deepest %.2f mm into the light boxes, %.2f mm into "
                  "the ground; heavy centre lowest at %.4f m (start 1.25), drifted %.2f mm\n",
                  (double)heavy, 1e3 * (double)r.on_light, 1e3 * (double)r.on_ground, (double)r.lowest_heavy,
                  1e3 * (double)r.drift);
    assert_ok(ts_destroy_world(world));
    return r;
}

/* The heavy box stays on the light ones: centre above their tops (y = 1)
 * and less than 5 cm sideways of where it started; both overlaps below
 * `bound`. */
static void assert_stays_on(stack_result r, float bound)
{
    assert_true(r.lowest_heavy > 2.0f * LIGHT_HALF);
    assert_true(r.drift < 0.05f);
    if (!(r.on_light < bound && r.on_ground < bound)) {
        fail_msg("deepest penetration %.2f mm (light boxes) / %.2f mm (ground), bound %.1f mm",
                 1e3 * (double)r.on_light, 1e3 * (double)r.on_ground, 1e3 * (double)bound);
    }
}

static void test_heavy_on_light_10(void **state)
{
    (void)state;
    assert_stays_on(run_heavy_on_light(10.0f), 0.002f);
}

static void test_heavy_on_light_100(void **state)
{
    (void)state;
    assert_stays_on(run_heavy_on_light(100.0f), 0.01f);
}

static void test_heavy_on_light_1000(void **state)
{
    (void)state;
    assert_stays_on(run_heavy_on_light(1000.0f), 0.05f);
}

/* ---- a 1,000 kg ball on 30 light links ---- */

static ts_joint_id ball_joint(ts_world_id world, ts_body_id a, ts_body_id b, ts_vec3 local_a, ts_vec3 local_b)
{
    ts_ball_joint_def def = ts_default_ball_joint_def();
    def.base.body_a = a;
    def.base.body_b = b;
    def.base.local_frame_a.p = local_a;
    def.base.local_frame_b.p = local_b;
    ts_joint_id joint = ts_create_ball_joint(world, &def);
    if (ts_joint_id_is_null(joint)) {
        fail_msg("ts_create_ball_joint: %s", ts_last_error());
    }
    return joint;
}

static float anchor_gap(ts_joint_id joint)
{
    ts_vec3 a, b;
    assert_ok(ts_joint_get_world_anchors(joint, &a, &b));
    return classic_distance(a, b);
}

/* tests/test_joints.c's ball and chain grown to 30 links and 1,000:1: links
 * of 0.1 x 1 x 0.1 m at 100 kg/m^3 (1 kg) joined end to end by ball joints
 * from a static pivot, laid out horizontally, the ball (radius 0.5, 1,000
 * kg) at the far end; released, the whole swings down as a 31 m pendulum
 * and passes the bottom at ~3.3 s, where the pull on each link peaks near
 * 3 M g = 30 kN (a pendulum released from the horizontal). 5 s.
 *
 * What may hold it: a soft joint is a spring of stiffness m (2 pi 90 Hz)^2,
 * m the effective mass of the pair (world def joint_hertz; 90 Hz is 3/8 of
 * the 240 Hz substep rate at 4 substeps, the cap), so a pull of 30 kN opens
 * a joint between two 1 kg links (m = 0.5 kg) by
 * 30 kN / (0.5 kg (2 pi 90 Hz)^2) = 19 cm: that is the stretch of a solver
 * that does what its springs say. The bound, 20 cm on the largest gap at any
 * step, asks for that and no more; a torn chain (the links' ends metres
 * apart) is far past it. (Hanging straight down from rest, the same chain
 * reaches 17 cm: the 10 kN load, suddenly applied, overshoots its static
 * 6.3 cm twice over, as an undamped spring does.) */
static void test_heavy_ball_on_30_links(void **state)
{
    (void)state;
    ts_world_id world = classic_world(true);
    ts_body_id previous = classic_box(world, TS_BODY_STATIC, (ts_vec3){0, 40, 0}, TS_QUAT_IDENTITY,
                                      (ts_vec3){0.05f, 0.05f, 0.05f}, 1, 0.6f, 0);
    ts_joint_id joints[31];
    ts_quat q = classic_axis_angle((ts_vec3){0, 0, 1}, -0.5f * CLASSIC_PI); /* link's +y along world +x */
    for (int k = 0; k < 30; ++k) {
        ts_body_id link = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){-0.5f - (float)k, 40, 0}, q,
                                      (ts_vec3){0.05f, 0.5f, 0.05f}, 100.0f, 0.6f, 0);
        joints[k] = ball_joint(world, previous, link, k == 0 ? (ts_vec3){0, 0, 0} : (ts_vec3){0, -0.5f, 0},
                               (ts_vec3){0, 0.5f, 0});
        previous = link;
    }
    const float ball_mass = 1000.0f;
    ts_body_id heavy = classic_sphere(world, (ts_vec3){-30.5f, 40, 0}, 0.5f,
                                      ball_mass / (4.0f / 3.0f * CLASSIC_PI * 0.125f), 0.6f, 0);
    joints[30] = ball_joint(world, previous, heavy, (ts_vec3){0, -0.5f, 0}, (ts_vec3){0.5f, 0, 0});
    float worst = 0.0f, worst_sum = 0.0f;
    int worst_joint = -1;
    for (int step = 0; step < 300; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        float sum = 0.0f;
        for (int k = 0; k < 31; ++k) {
            float gap = anchor_gap(joints[k]);
            sum += gap;
            if (gap > worst) {
                worst = gap;
                worst_joint = k;
            }
        }
        worst_sum = fmaxf(worst_sum, sum);
    }
    ts_vec3 p = classic_position(heavy);
    print_message("1000 kg ball on 30 links, 5 s: largest joint gap %.4f m (joint %d), largest total stretch "
                  "%.4f m; ball at (%.2f, %.2f)\n",
                  (double)worst, worst_joint, (double)worst_sum, (double)p.x, (double)p.y);
    assert_true(worst < 0.20f);
    assert_ok(ts_destroy_world(world));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heavy_on_light_10),
        cmocka_unit_test(test_heavy_on_light_100),
        cmocka_unit_test(test_heavy_on_light_1000),
        cmocka_unit_test(test_heavy_ball_on_30_links),
    };
    return classic_main(argc, argv, "test_mass_ratio", tests, sizeof tests / sizeof tests[0]);
}

/* Classic scenes that friction holds or stops: a sliding box that stops at
 * v0^2 / (2 mu g), a house of cards, and a row of dominoes that topple in
 * order. ctest runs the file with the soft step at 4 and 8 substeps. */
#include "test_classic.h"

/* ---- a sliding box ---- */

/* A unit box (1 kg) on the ground, both of friction mu (the pair's is their
 * geometric mean: mu), thrown at v0 along the ground in direction (dx, dz).
 * Returns the distance it slid before it stopped (2 s later it must be at
 * rest) and, through *spun, the largest turn it picked up (degrees). */
static float slide(float v0, float mu, float dx, float dz, float *spun)
{
    ts_world_id world = classic_world(true);
    classic_ground(world, 0, 0, 50, mu);
    ts_body_id box = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 0.5f, 0}, TS_QUAT_IDENTITY,
                                 (ts_vec3){0.5f, 0.5f, 0.5f}, 1, mu, 0);
    float n = sqrtf(dx * dx + dz * dz);
    assert_ok(ts_body_set_linear_velocity(box, (ts_vec3){v0 * dx / n, 0, v0 * dz / n}));
    *spun = 0.0f;
    for (int step = 0; step < 180; ++step) { /* 3 s: the slowest case stops at 1.5 s */
        assert_ok(ts_world_step(world, CLASSIC_DT));
        ts_quat q;
        assert_ok(ts_body_get_rotation(box, &q));
        *spun = fmaxf(*spun, (float)classic_turned_degrees(TS_QUAT_IDENTITY, q));
    }
    ts_vec3 p = classic_position(box);
    float speed = classic_length(classic_velocity(box));
    assert_ok(ts_destroy_world(world));
    assert_true(speed < 1e-3f);
    return sqrtf(p.x * p.x + p.z * p.z);
}

/* Coulomb friction decelerates a sliding body at mu g, so it stops after
 * d = v0^2 / (2 mu g): 2.5 m for v0 = 5 m/s, mu = 0.5; 2.25 m for 3 m/s,
 * 0.2. The same along x and along the diagonal x = z: friction is a cone,
 * the same in every direction of the ground (a solver that clamped the two
 * friction directions apart would let the diagonal slide decelerate at up
 * to sqrt(2) mu g and stop at d / sqrt(2)).
 *
 * Tolerance 1%: the substep integrator (velocity first, then position)
 * counts each substep's slide at the speed it ends with, which shortens d
 * by v0 h / 2 (1 cm for 5 m/s at h = 1/240 s: 0.42%, what the soft step
 * measures); 1% (2.5 cm) leaves room for the friction bound following a
 * normal impulse that settles in the first steps. The box must not turn
 * either (a symmetric load: below 1 degree). */
static void test_sliding_box_stops(void **state)
{
    (void)state;
    const struct {
        float v0, mu, dx, dz;
    } cases[3] = {{5.0f, 0.5f, 1, 0}, {5.0f, 0.5f, 1, 1}, {3.0f, 0.2f, 1, 0}};
    int failed = 0;
    for (int k = 0; k < 3; ++k) {
        float spun;
        float d = slide(cases[k].v0, cases[k].mu, cases[k].dx, cases[k].dz, &spun);
        float expected = cases[k].v0 * cases[k].v0 / (2.0f * cases[k].mu * CLASSIC_G);
        print_message("slide v0 %.1f m/s, mu %.2f, direction (%.0f, 0, %.0f): %.4f m, v0^2 / (2 mu g) = %.4f m "
                      "(%+.2f%%), turned %.4f deg\n",
                      (double)cases[k].v0, (double)cases[k].mu, (double)cases[k].dx, (double)cases[k].dz, (double)d,
                      (double)expected, 100.0 * (double)((d - expected) / expected), (double)spun);
        failed += !(fabsf(d - expected) <= 0.01f * expected && spun < 1.0f);
    }
    if (failed > 0) {
        fail_msg("%d of 3 slides missed v0^2 / (2 mu g) by more than 1%% (or turned)", failed);
    }
}

/* ---- a house of cards ---- */

/* Cards of 1 m x 0.7 m x 2 cm (half-extents: thickness t along local x,
 * a along local y, w along z), density 500 (7 kg). */
#define CARD_T 0.01f
#define CARD_A 0.5f
#define CARD_W 0.35f
#define CARD_LEAN (20.0f * CLASSIC_PI / 180.0f) /* from the vertical */
#define CARD_MU 0.6f

/* Two cards leaning on each other, their feet on the surface y = base,
 * their inner top edges meeting at x = apex_x. The left card is turned by
 * -lean about z (its top toward +x): its lowest corner touches the surface
 * when its centre is t sin + a cos above it, and its inner top corner
 * reaches the apex when its centre is t cos + a sin to the left. */
static int a_frame(ts_world_id world, float apex_x, float base, float mu, ts_body_id *cards)
{
    float s = sinf(CARD_LEAN), c = cosf(CARD_LEAN);
    float dx = CARD_T * c + CARD_A * s, y = base + CARD_T * s + CARD_A * c;
    for (int side = 0; side < 2; ++side) {
        float sign = side == 0 ? -1.0f : 1.0f;
        ts_quat q = classic_axis_angle((ts_vec3){0, 0, 1}, sign * CARD_LEAN);
        cards[side] = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){apex_x + sign * dx, y, 0}, q,
                                  (ts_vec3){CARD_T, CARD_A, CARD_W}, 500, mu, 0);
    }
    return 2;
}

/* Two A-frames on the ground at x = -0.5 and 0.5, a flat card (half-length
 * 0.75 m) laid across their tops, a third A-frame on it: seven cards. The
 * A-frame's highest points are its outer top edges, 2 t sin + 2 a cos
 * above its feet; the flat card rests on those four edges.
 *
 * Statics (lean theta = 20 degrees from the vertical, a card of weight W,
 * a vertical load P on the apex shared by the two cards): by the mirror
 * symmetry the cards push on each other horizontally, with H; a card's
 * moments about its foot, H L cos(theta) = (W / 2 + P / 2) L sin(theta),
 * give H = (W + P) tan(theta) / 2, and the foot carries N = W + P / 2, so the
 * foot needs mu >= H / N = tan(theta) (W + P) / (2 W + P), between
 * tan(theta) / 2 (no load) and tan(theta) (heavy load). The inner top edges
 * touch on a card's face, tilted by theta from the vertical, so a
 * horizontal push there needs mu >= tan(theta) too. Every contact thus
 * needs mu <= tan(20 deg) = 0.364; the cards have 0.6, 1.65 times that.
 *
 * Stands for 5 s: every card stays within 1 cm of its start and turned by
 * less than 1 degree (the soft contacts settle by a millimetre or two under
 * 7 to 30 kg; a card that slips or a frame that opens moves by its own
 * size). The same house with mu = 0.1, below even the unloaded frame's
 * tan(theta) / 2 = 0.18, must fall (a card moves more than 10 cm): the
 * check that friction, not the solver, holds it. */
static void house_of_cards(float mu, float *moved_out, float *turned_out)
{
    ts_world_id world = classic_world(true);
    classic_ground(world, 0, 0, 50, mu);
    ts_body_id cards[7];
    int n = 0;
    n += a_frame(world, -0.5f, 0.0f, mu, cards + n);
    n += a_frame(world, 0.5f, 0.0f, mu, cards + n);
    float top = 2.0f * CARD_T * sinf(CARD_LEAN) + 2.0f * CARD_A * cosf(CARD_LEAN);
    cards[n++] = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){0, top + CARD_T, 0}, TS_QUAT_IDENTITY,
                             (ts_vec3){0.75f, CARD_T, CARD_W}, 500, mu, 0);
    n += a_frame(world, 0.0f, top + 2.0f * CARD_T, mu, cards + n);
    ts_transform start[7];
    assert_ok(ts_world_get_body_transforms(world, cards, n, start));
    float moved = 0.0f, turned = 0.0f;
    for (int step = 0; step < 300; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        for (int i = 0; i < n; ++i) {
            ts_transform t;
            assert_ok(ts_body_get_transform(cards[i], &t));
            moved = fmaxf(moved, classic_distance(t.p, start[i].p));
            turned = fmaxf(turned, (float)classic_turned_degrees(start[i].q, t.q));
        }
    }
    *moved_out = moved;
    *turned_out = turned;
    assert_ok(ts_destroy_world(world));
}

static void test_house_of_cards_stands(void **state)
{
    (void)state;
    float moved, turned, slip_moved, slip_turned;
    house_of_cards(CARD_MU, &moved, &turned);
    house_of_cards(0.1f, &slip_moved, &slip_turned);
    print_message("house of 7 cards, mu %.2f, 5 s: a card moved at most %.2f mm and turned at most %.4f degrees; "
                  "with mu 0.1 a card moved %.3f m\n",
                  (double)CARD_MU, 1e3 * (double)moved, (double)turned, (double)slip_moved);
    if (!(moved < 0.01f && turned < 1.0f)) {
        fail_msg("the house fell: a card moved %.3f m (bound 0.01) or turned %.2f degrees (bound 1)",
                 (double)moved, (double)turned);
    }
    assert_true(slip_moved > 0.1f);
}

/* ---- dominoes ---- */

#define DOMINOES 12
static const ts_vec3 domino_half = {0.05f, 0.5f, 0.25f}; /* 0.1 x 1 x 0.5 m, 100 kg/m^3: 5 kg */

/* Twelve dominoes 0.5 m apart along x. The first starts tipped by 8 degrees
 * towards the others, standing on its front bottom edge: past its tipping
 * angle atan(0.1 / 1) = 5.7 degrees, so gravity alone topples it, and no
 * push from outside sets the pace. A domino falls when it tilts past 15
 * degrees (well past 5.7, it cannot come back). Each must fall after the
 * one before it (the first falling is what pushes the next), all must fall
 * within 8 s, and the last, with nothing ahead, must lie on the ground
 * (tilt > 80 degrees). The others end leaning on their neighbours. */
static void test_dominoes_topple_in_order(void **state)
{
    (void)state;
    ts_world_id world = classic_world(true);
    classic_ground(world, 0, 0, 50, 0.6f);
    ts_body_id row[DOMINOES];
    const float spacing = 0.5f, tip = 8.0f * CLASSIC_PI / 180.0f;
    for (int i = 0; i < DOMINOES; ++i) {
        ts_vec3 p = {(float)i * spacing, domino_half.y, 0};
        ts_quat q = TS_QUAT_IDENTITY;
        if (i == 0) {
            /* turned by -tip about z around its front bottom edge (0.05, 0): the centre, (-0.05, 0.5) from
             * that edge, goes to (-0.05 cos + 0.5 sin, 0.05 sin + 0.5 cos) */
            q = classic_axis_angle((ts_vec3){0, 0, 1}, -tip);
            p.x = domino_half.x - domino_half.x * cosf(tip) + domino_half.y * sinf(tip);
            p.y = domino_half.x * sinf(tip) + domino_half.y * cosf(tip);
        }
        row[i] = classic_box(world, TS_BODY_DYNAMIC, p, q, domino_half, 100, 0.6f, 0);
    }
    float fell_at[DOMINOES];
    for (int i = 0; i < DOMINOES; ++i) {
        fell_at[i] = -1.0f;
    }
    for (int step = 0; step < 480; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        for (int i = 0; i < DOMINOES; ++i) {
            if (fell_at[i] < 0.0f && classic_tilt(row[i], (ts_vec3){0, 1, 0}, (ts_vec3){0, 1, 0}) > 15.0f * CLASSIC_PI / 180.0f) {
                fell_at[i] = (float)(step + 1) * CLASSIC_DT;
            }
        }
    }
    float last_tilt = classic_tilt(row[DOMINOES - 1], (ts_vec3){0, 1, 0}, (ts_vec3){0, 1, 0}) * 180.0f / CLASSIC_PI;
    print_message("dominoes fell at (s):");
    for (int i = 0; i < DOMINOES; ++i) {
        print_message(" %.3f", (double)fell_at[i]);
    }
    print_message("; the last lies at %.1f degrees\n", (double)last_tilt);
    for (int i = 0; i < DOMINOES; ++i) {
        if (fell_at[i] < 0.0f) {
            fail_msg("domino %d did not fall", i);
        }
        if (i > 0 && !(fell_at[i] > fell_at[i - 1])) {
            fail_msg("domino %d fell at %.3f s, not after domino %d (%.3f s)", i, (double)fell_at[i], i - 1,
                     (double)fell_at[i - 1]);
        }
    }
    assert_true(last_tilt > 80.0f);
    assert_ok(ts_destroy_world(world));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sliding_box_stops),
        cmocka_unit_test(test_house_of_cards_stands),
        cmocka_unit_test(test_dominoes_topple_in_order),
    };
    return classic_main(argc, argv, "test_friction_scenes", tests, sizeof tests / sizeof tests[0]);
}

/* A tall single-plane pyramid stands in its plane (issue 20, item 2):
 * scenes.md's large_pyramid at B = 50 (1,275 boxes of half-extent 0.5 and
 * density 100, all centred at z = 0), 10 s with the soft step at 4
 * substeps.
 *
 * Nothing pushes a box out of the plane z = 0: every contact normal and
 * every force starts in the x-y plane, and a mirror in z maps the scene onto
 * itself. A box leaving the plane is the solver breaking that symmetry
 * (float rounding, the order of points and friction directions) and then
 * amplifying it, which is the buckling of issue 20. The bound, |z| < 0.05 m
 * for every box at every step, is scenes.md's large_pyramid check.
 *
 * The top box sinks as the soft contacts below it compress: a soft contact
 * is a spring k = m (2 pi 30 Hz)^2, and the load on row r grows with the
 * boxes above it, so the sag summed down B rows grows as B^2 (scenes.md:
 * max(0.1, 0.1 (B/30)^2) m, 0.28 m at B = 50; Box3D at the same
 * settings sags 0.18 m). The issue asks for 0.2 m at B = 50. Every box also
 * stays above y = 0.4 (scenes.md: nothing falls through the ground or
 * through the row below).
 *
 * This file is the slowest of the classic scenes (1,275 boxes x 600 steps:
 * ~2 s at 4 substeps, ~4 s at 8 in the default build; ~4x that in the
 * SIMD-off build and ~10x under ThreadSanitizer): ctest gives it the label
 * "slow", so that those builds can leave it out (tests/CMakeLists.txt). */
#include "test_classic.h"

#define BASE 50
#define BOXES (BASE * (BASE + 1) / 2)

static void test_pyramid_50_in_plane(void **state)
{
    (void)state;
    ts_world_id world = classic_world(true);
    const float h = 0.5f;
    classic_box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_vec3){400, 1, 400}, 1, 0.6f, 0);
    static ts_body_id boxes[BOXES];
    static ts_transform poses[BOXES];
    int n = 0;
    for (int r = 0; r < BASE; ++r) {
        for (int j = r; j < BASE; ++j) {
            float x = (float)(r + 1) * h + 2.0f * (float)(j - r) * h - (float)BASE * h;
            boxes[n++] = classic_box(world, TS_BODY_DYNAMIC, (ts_vec3){x, (2.0f * (float)r + 1.0f) * h, 0},
                                     TS_QUAT_IDENTITY, (ts_vec3){h, h, h}, 100, 0.6f, 0);
        }
    }
    ts_vec3 top_start = classic_position(boxes[BOXES - 1]);
    float most_z = 0.0f, lowest = INFINITY;
    int first_out = -1; /* the first step with a box out of the plane */
    for (int step = 0; step < 600; ++step) {
        assert_ok(ts_world_step(world, CLASSIC_DT));
        assert_ok(ts_world_get_body_transforms(world, boxes, BOXES, poses));
        for (int i = 0; i < BOXES; ++i) {
            most_z = fmaxf(most_z, fabsf(poses[i].p.z));
            lowest = fminf(lowest, poses[i].p.y);
        }
        if (first_out < 0 && most_z >= 0.05f) {
            first_out = step;
        }
    }
    float moved = classic_distance(classic_position(boxes[BOXES - 1]), top_start);
    print_message("pyramid B = 50, 10 s: top box moved %.4f m, largest |z| %.4f m (first past 0.05 m at %.2f s), "
                  "lowest centre y %.4f m\n",
                  (double)moved, (double)most_z, first_out < 0 ? -1.0 : (double)(first_out + 1) * CLASSIC_DT,
                  (double)lowest);
    bool ok = most_z < 0.05f && moved <= 0.2f && lowest > 0.4f;
    assert_ok(ts_destroy_world(world));
    if (!ok) {
        fail_msg("bounds: |z| < 0.05 m, top moved <= 0.2 m, every centre above y = 0.4 m");
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pyramid_50_in_plane),
    };
    return classic_main(argc, argv, "test_pyramid_plane", tests, sizeof tests / sizeof tests[0]);
}

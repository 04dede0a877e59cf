/* tessera-sweep's description parser and run decoding (sweep_desc.c), and
 * the seeded perturbation (sweep_run.c): what a description expands to, in
 * which order, and a clear error naming the line for every kind of bad
 * input. No MPI and no stepping: the sweep's hashes are checked against
 * tessera-bench by check_sweep.py. */
#include "sweep_desc.h"
#include "sweep_run.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* Globals apply to every block, a block's own key wins over a global one,
 * ranges expand, comments and blank lines are skipped, and runs count
 * block by block with the last key fastest. */
static void test_expands_in_order(void **state)
{
    (void)state;
    const char *text = "# a sweep\n"
                       "steps = 30   ; global\n"
                       "threads = 1, 2\n"
                       "\n"
                       "[sweep]\n"
                       "scene = pile\n"
                       "count = 100..102\n"
                       "[sweep]\n"
                       "scene = pyramid_3d\n"
                       "steps = 7\n"
                       "seed = 5\n";
    sweep_desc d;
    char error[256] = "";
    assert_true(sweep_parse(text, &d, error, sizeof(error)));
    assert_int_equal(d.block_count, 2);
    assert_int_equal(d.run_count, 2 * 3 + 2);
    sweep_run run;
    sweep_get_run(&d, 4, &run); /* threads = 2 (slowest), count = 101 */
    assert_string_equal(run.scene->name, "pile");
    assert_int_equal(run.params.count, 101);
    assert_int_equal(run.config.settings.threads, 2);
    assert_true(run.threads_given);
    assert_int_equal(run.config.steps, 30);
    assert_false(run.perturb);
    assert_string_equal(run.json, "\"steps\":30,\"threads\":2,\"scene\":\"pile\",\"count\":101");
    sweep_get_run(&d, 7, &run); /* second block: its own steps, a seed, the default jitter */
    assert_string_equal(run.scene->name, "pyramid_3d");
    assert_int_equal(run.config.steps, 7);
    assert_int_equal(run.config.settings.threads, 2);
    assert_true(run.perturb);
    assert_int_equal(run.seed, 5);
    assert_true(run.jitter == 0.1f);
    assert_int_equal(run.params.base, run.scene->defaults.base);
    sweep_free(&d);
}

/* Settings not given take tessera-bench's defaults (the world's substeps and
 * contact stiffness, soft step, width 0, no quality check); small = true
 * starts from the scene's small variant. A file without [sweep] is one block. */
static void test_defaults_and_small(void **state)
{
    (void)state;
    sweep_desc d;
    char error[256] = "";
    assert_true(sweep_parse("scene = many_pyramids\nsmall = true\nsolver = xpbd\ncontact_hertz = 45.5\n", &d, error,
                            sizeof(error)));
    assert_int_equal(d.run_count, 1);
    sweep_run run;
    sweep_get_run(&d, 0, &run);
    ts_world_def world = ts_default_world_def();
    assert_int_equal(run.config.settings.substeps, world.substeps);
    assert_int_equal(run.config.settings.width, 0);
    assert_int_equal(run.config.settings.solver, TS_SOLVER_XPBD);
    assert_true(run.config.settings.contact_hertz == 45.5f);
    assert_false(run.threads_given);
    assert_false(run.config.quality);
    assert_int_equal(run.params.grid, run.scene->small.grid);
    assert_int_equal(run.params.base, run.scene->small.base);
    sweep_free(&d);
}

/* Each bad input is refused with the line it is on and what is wrong. */
static void test_bad_input_names_the_line(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *expected; /* a part of the message */
    } cases[] = {
        {"scene = pile\ncolour = red\n", "line 2: unknown key 'colour'"},
        {"[runs]\nscene = pile\n", "line 1: unknown section '[runs]'"},
        {"scene pile\n", "line 1: expected 'key = value, ...'"},
        {"scene = pile\ncount = 1,,2\n", "line 2: count has an empty value"},
        {"scene = pile\ncount = many\n", "line 2: count needs integers, got 'many'"},
        {"scene = pile\ncount = 5..2\n", "line 2: count: a range is LOW..HIGH"},
        {"scene = pile\ncount = 0\n", "line 2: count must be in 1..1000000, got 0"},
        {"scene = pile\nseed = 0..200000\n", "line 2: seed: the range 0..200000 has more than 100000 values"},
        {"scene = heap\n", "line 1: scene 'heap' is not a scene"},
        {"scene = pile\nsolver = euler\n", "line 2: solver is soft_step or xpbd, got 'euler'"},
        {"scene = pile\nquality = yes\n", "line 2: quality is true or false, got 'yes'"},
        {"scene = pile\ncontact_hertz = 0\n", "line 2: contact_hertz needs a finite number > 0"},
        {"scene = pile\njitter = -1\n", "line 2: jitter needs a finite number >= 0"},
        {"scene = pile\ncount = 1\ncount = 2\n", "line 3: count is given twice in this block (first on line 2)"},
        {"steps = 5\n[sweep]\ncount = 3\n", "line 2: this block names no scene"},
        {"scene = pile\nseed = 0..99999\ncount = 1..99999\nbase = 1..9\n", "the sweep has more than 10000000 runs"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        sweep_desc d;
        char error[256] = "";
        bool ok = sweep_parse(cases[i].text, &d, error, sizeof(error));
        if (ok || strstr(error, cases[i].expected) == NULL) {
            fail_msg("case %zu: got %s '%s', expected '%s'", i, ok ? "success" : "error", error, cases[i].expected);
        }
        assert_int_equal(d.run_count, 0); /* refused: nothing left to free */
    }
}

/* The perturbation is a pure function of the seed (the same velocities on
 * every rank), stays within +-jitter per component, and leaves static
 * bodies and positions alone. */
static void test_perturbation(void **state)
{
    (void)state;
    scene_desc a, b;
    const scene_info *pile = scene_find("pile");
    scene_describe(pile, &pile->small, &a);
    scene_describe(pile, &pile->small, &b);
    sweep_perturb(&a, 7, 0.25f);
    sweep_perturb(&b, 7, 0.25f);
    assert_memory_equal(a.bodies, b.bodies, sizeof(scene_body) * (size_t)a.body_count);
    bool moved = false;
    for (int i = 0; i < a.body_count; ++i) {
        scene_vec3 v = a.bodies[i].linear_velocity;
        if (a.bodies[i].type == SCENE_STATIC) {
            assert_true(v.x == 0.0f && v.y == 0.0f && v.z == 0.0f);
            continue;
        }
        assert_true(v.x >= -0.25f && v.x <= 0.25f && v.y >= -0.25f && v.y <= 0.25f && v.z >= -0.25f && v.z <= 0.25f);
        moved = moved || v.x != 0.0f;
    }
    assert_true(moved);
    sweep_perturb(&b, 8, 0.25f); /* another seed, other velocities */
    assert_memory_not_equal(a.bodies, b.bodies, sizeof(scene_body) * (size_t)a.body_count);
    scene_desc_free(&a);
    scene_desc_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expands_in_order),
        cmocka_unit_test(test_defaults_and_small),
        cmocka_unit_test(test_bad_input_names_the_line),
        cmocka_unit_test(test_perturbation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

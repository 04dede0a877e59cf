/* Smoke test of the benchmark scenes (not a timing test): every scene's
 * description has the body and joint counts of scenes.md's formulas and is a
 * pure function; the quality checks pass on a scene's initial state and fail
 * on a broken one; every scene tessera can build runs its small variant for a
 * few steps through tessera_run (the code path of tessera-bench), twice, on
 * 1 and 2 threads and at width 1 and the widest, to the same state hash; a
 * run's JSON line has every key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bench_report.h"
#include "run_tessera.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct expected_counts {
    const char *scene;
    scene_params params;
    int dynamic, total, joints;
} expected_counts;

/* scenes.md's formulas, small variants and defaults. */
static const expected_counts expected[] = {
    {"free_fall", {.count = 1000}, 1000, 1000, 0},
    {"large_pyramid", {.base = 20}, 210, 211, 0},          /* B (B + 1) / 2, + ground */
    {"large_pyramid", {.base = 100}, 5050, 5051, 0},
    {"large_pyramid_2d", {.base = 20}, 210, 211, 0},
    {"large_pyramid_2d", {.base = 100}, 5050, 5051, 0},
    {"pyramid_3d", {.base = 8}, 204, 205, 0},              /* B (B + 1) (2 B + 1) / 6 */
    {"pyramid_3d", {.base = 20}, 2870, 2871, 0},
    {"many_pyramids", {.grid = 2, .base = 3}, 24, 25, 0},  /* G^2 B (B + 1) / 2 */
    {"many_pyramids", {.grid = 14, .base = 10}, 10780, 10781, 0},
    {"wide_pyramid", {.height = 3}, 14, 15, 0},            /* sum of (H - i)^2 = H (H + 1) (2 H + 1) / 6 */
    {"wide_pyramid", {.height = 15}, 1240, 1241, 0},
    {"pile", {.count = 200}, 200, 205, 0},                 /* N + ground + 4 walls */
    {"joint_grid", {.side = 10}, 90, 100, 180},            /* S (S - 1) dynamic, 2 S (S - 1) joints */
    {"joint_grid", {.side = 100}, 9900, 10000, 19800},
    {"sleep_field", {.stacks = 2}, 20, 21, 0},             /* 10 K */
    {"convex_pile", {.layers = 4}, 256, 257, 0},           /* 64 L, + ground */
    {"convex_pile", {.layers = 80}, 5120, 5121, 0},
    {"mesh_terrain", {.count = 100}, 100, 101, 0},         /* N, + the terrain */
    {"mesh_terrain", {.count = 2000}, 2000, 2001, 0},
};

static void test_counts_match_formulas(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i) {
        const expected_counts *e = &expected[i];
        const scene_info *scene = scene_find(e->scene);
        assert_non_null(scene);
        scene_desc d;
        scene_describe(scene, &e->params, &d);
        if (scene_dynamic_count(&d) != e->dynamic || d.body_count != e->total || d.joint_count != e->joints) {
            fail_msg("%s: %d dynamic, %d bodies, %d joints; expected %d, %d, %d", e->scene, scene_dynamic_count(&d),
                     d.body_count, d.joint_count, e->dynamic, e->total, e->joints);
        }
        scene_desc_free(&d);
    }
}

static void test_small_variants_are_listed(void **state)
{
    (void)state;
    for (const scene_info *s = scene_table; s->name != NULL; ++s) {
        bool found = false;
        for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i) {
            found = found || (strcmp(expected[i].scene, s->name) == 0 &&
                              memcmp(&expected[i].params, &s->small, sizeof(scene_params)) == 0);
        }
        if (!found) {
            fail_msg("scene %s: its small variant has no expected counts in this test", s->name);
        }
    }
}

static void test_descriptions_are_pure(void **state)
{
    (void)state;
    for (const scene_info *s = scene_table; s->name != NULL; ++s) {
        scene_desc a, b;
        scene_describe(s, &s->small, &a);
        scene_describe(s, &s->small, &b);
        assert_int_equal(a.body_count, b.body_count);
        assert_memory_equal(a.bodies, b.bodies, sizeof(scene_body) * (size_t)a.body_count);
        assert_int_equal(a.joint_count, b.joint_count);
        if (a.joint_count > 0) {
            assert_memory_equal(a.joints, b.joints, sizeof(scene_joint) * (size_t)a.joint_count);
        }
        scene_desc_free(&a);
        scene_desc_free(&b);
    }
}

static body_state *initial_states(const scene_desc *d)
{
    body_state *states = calloc((size_t)d->body_count, sizeof(body_state));
    for (int i = 0; i < d->body_count; ++i) {
        const scene_body *b = &d->bodies[i];
        states[i] = (body_state){b->position, b->rotation, b->linear_velocity, b->angular_velocity};
    }
    return states;
}

/* A scene at rest in its initial state passes its check; moving the last
 * body 10 m down (a pyramid's top, a stack's top, a pile body below the
 * ground) or tearing a joint fails it. */
static void test_quality_checks(void **state)
{
    (void)state;
    const char *names[] = {"large_pyramid", "pyramid_3d", "many_pyramids", "wide_pyramid",
                           "pile",          "joint_grid", "mesh_terrain"};
    for (int n = 0; n < 7; ++n) {
        const scene_info *scene = scene_find(names[n]);
        scene_desc d;
        scene_describe(scene, &scene->small, &d);
        body_state *states = initial_states(&d);
        quality_input in = {.desc = &d, .states = states, .steps = 600, .dt = BENCH_DT, .awake_count = -1};
        quality_result q = {0};
        scene->quality(&in, &q);
        if (!q.evaluated || !q.pass) {
            fail_msg("%s: the initial state fails its quality check: %s", names[n], q.detail);
        }
        states[d.body_count - 1].p.y -= 10.0f;
        scene->quality(&in, &q);
        if (q.pass) {
            fail_msg("%s: a broken state passes its quality check: %s", names[n], q.detail);
        }
        free(states);
        scene_desc_free(&d);
    }
}

static tessera_run_config small_config(int threads)
{
    tessera_run_config c = {.settings = {.threads = threads, .substeps = 4, .width = 0, .solver = TS_SOLVER_SOFT_STEP},
                            .steps = 3,
                            .quality = false};
    return c;
}

/* Every scene tessera can build (those without joints), available or not:
 * the code path of tessera-bench, on its small variant, for a few steps. */
static void test_small_runs_are_deterministic(void **state)
{
    (void)state;
    for (const scene_info *s = scene_table; s->name != NULL; ++s) {
        scene_desc desc;
        scene_describe(s, &s->small, &desc);
        bool has_joints = desc.joint_count > 0;
        scene_desc_free(&desc);
        if (has_joints) {
            continue;
        }
        bench_result a, b, c, d;
        tessera_run_config one = small_config(1), two = small_config(2), scalar = small_config(2);
        scalar.settings.width = 1;
        if (!tessera_run(s, &s->small, &one, 0, &a) || !tessera_run(s, &s->small, &one, 1, &b) ||
            !tessera_run(s, &s->small, &two, 0, &c) || !tessera_run(s, &s->small, &scalar, 0, &d)) {
            fail_msg("%s: %s %s %s %s", s->name, a.error, b.error, c.error, d.error);
        }
        assert_int_equal(a.total_steps, s->warmup_steps + 3);
        assert_int_equal(a.step_errors, 0);
        assert_true(a.stage_count > 0);
        assert_int_equal(d.width, 1);
        if (a.state_hash != b.state_hash || a.state_hash != c.state_hash || a.state_hash != d.state_hash) {
            fail_msg("%s: state hashes differ: %016llx, again %016llx, on 2 threads %016llx, at width 1 "
                     "(not %d) %016llx", s->name, (unsigned long long)a.state_hash, (unsigned long long)b.state_hash,
                     (unsigned long long)c.state_hash, a.width, (unsigned long long)d.state_hash);
        }
    }
}

/* The keys issue 5 asks every JSON line to carry. */
static void test_json_line_has_every_key(void **state)
{
    (void)state;
    const char *keys[] = {"engine", "version", "git", "compiler", "cpu", "simd", "width", "threads", "solver",
                          "substeps", "scene", "params", "steps", "bodies", "contact_points", "colors",
                          "overflow", "ms_mean", "ms_median", "ms_max", "stages", "quality_pass",
                          "quality_figure", "state_hash"};
    tessera_run_config c = small_config(1);
    c.quality = true;
    bench_result r;
    assert_true(tessera_run(scene_find("free_fall"), &scene_find("free_fall")->small, &c, 0, &r));
    assert_true(r.quality.evaluated && r.quality.pass);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    bench_print_json(out, &r);
    fclose(out);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i) {
        char quoted[64];
        snprintf(quoted, sizeof(quoted), "\"%s\":", keys[i]);
        if (strstr(text, quoted) == NULL) {
            fail_msg("the JSON line has no %s: %s", keys[i], text);
        }
    }
    assert_non_null(strchr(text, '\n'));
    assert_ptr_equal(strchr(text, '\n'), text + size - 1); /* one line */
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_match_formulas),
        cmocka_unit_test(test_small_variants_are_listed),
        cmocka_unit_test(test_descriptions_are_pure),
        cmocka_unit_test(test_quality_checks),
        cmocka_unit_test(test_small_runs_are_deterministic),
        cmocka_unit_test(test_json_line_has_every_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

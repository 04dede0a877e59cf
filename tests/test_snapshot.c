/* Snapshots resume exactly (issue 28): every bench scene's small variant,
 * both solvers, every built SIMD width and 1 and 2 threads: run N steps,
 * save, run M more; load into a new world (at another width and thread
 * count), run M: the state hashes are equal, bit for bit. Also: a loaded
 * world is the saved one before it steps (hash, counters, contacts), sleep
 * resumes (islands asleep at the save stay asleep, timers go on), a file
 * round trip, ts_world_state_hash is the bench's hash, and the new
 * functions' bad arguments.
 *
 * Why exact equality and no tolerance: the promise is bitwise (design.md,
 * "Threads and determinism"); one flipped bit anywhere in the kept state
 * (a warm-start impulse, a sleep timer, a tree's free list) shows as a
 * different hash within these steps. */
#include "test_common.h"

#include <unistd.h>

#include "snapshot_scenes.h"
#include "api/world.h"      /* ts_world_lookup */
#include "islands/island.h" /* ts_island_validate */
#include "solver/solver.h" /* ts_simd_width_is_built */

#define STATE_HASH_CORE_ONLY
#include "state_hash.h"

static const int widths[] = {1, 4, 8, 16};
#define WIDTHS 4

/* TESSERA_TEST_MAX_STEPS (the sanitizer jobs) shortens the matrix: each
 * scene and solver saved at one width, 1 or test_wide_width() in turn (see
 * test_exact_resume_matrix). */
static bool short_run(void) { return test_short_run(); }

static uint64_t hash_of(ts_world_id world)
{
    uint64_t h = 0;
    assert_ok(ts_world_state_hash(world, &h));
    return h;
}

static void step(ts_world_id world, int steps)
{
    for (int i = 0; i < steps; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
}

/* One cell of the matrix: the scene saved after `before` steps at (width,
 * threads), resumed at (load_width, load_threads), both run `after` more. */
static void expect_exact_resume(const scene_info *s, ts_solver_type solver, int width, int threads, int load_width,
                                int load_threads, bool sleep, int before, int after)
{
    ts_world_id a = snapshot_scene_world(s, solver, width, threads, sleep);
    if (ts_world_id_is_null(a)) {
        return; /* a scene tessera cannot build yet */
    }
    step(a, before);
    size_t size = 0;
    uint8_t *data = snapshot_save(a, &size);
    assert_non_null(data);
    uint64_t at_save = hash_of(a);
    ts_world_counters ca, cb;
    assert_ok(ts_world_get_counters(a, &ca));
    step(a, after);
    uint64_t expected = hash_of(a);

    ts_world_def def = snapshot_load_def(load_width, load_threads);
    ts_world_id b;
    assert_ok(ts_world_load(data, size, &def, &b));
    assert_true(hash_of(b) == at_save);
    assert_ok(ts_world_get_counters(b, &cb));
    assert_int_equal(cb.body_count, ca.body_count);
    assert_int_equal(cb.awake_body_count, ca.awake_body_count);
    assert_int_equal(cb.contact_count, ca.contact_count);
    assert_int_equal(cb.touching_count, ca.touching_count);
    assert_int_equal(cb.point_count, ca.point_count);
    assert_int_equal(cb.island_count, ca.island_count);
    assert_int_equal(cb.step_count, ca.step_count);
    assert_int_equal(cb.simd_width, load_width);
    if (sleep) { /* the sleeping islands' wake bounds, taken again by the load, hold */
        const ts_world *wb = ts_world_lookup(b, "test");
        assert_true(ts_island_validate(&wb->records, &wb->islands));
    }
    step(b, after);
    uint64_t got = hash_of(b);
    if (got != expected) {
        fail_msg("%s (%s, sleep %d): saved at width %d on %d threads after %d steps, resumed at width %d on %d: "
                 "hash %016llx after %d more steps, the saved world %016llx",
                 s->name, solver == TS_SOLVER_XPBD ? "xpbd" : "soft step", sleep, width, threads, before, load_width,
                 load_threads, (unsigned long long)got, after, (unsigned long long)expected);
    }
    free(data);
    assert_ok(ts_destroy_world(a));
    assert_ok(ts_destroy_world(b));
}

/* The scenes of hulls and meshes (format 3), the matrix's slowest: widths
 * 1 and test_wide_width() only (each still resumed at another width). */
static bool shapes_scene(const scene_info *s)
{
    return strcmp(s->name, "convex_pile") == 0 || strcmp(s->name, "mesh_terrain") == 0;
}

/* The matrix: every scene, both solvers, every width, 1 and 2 threads;
 * each save resumed at the next width and the other thread count. */
static void test_exact_resume_matrix(void **state)
{
    (void)state;
    int cells = 0;
    for (const scene_info *s = scene_table; s->name != NULL; ++s) {
        for (int solver = 0; solver < 2; ++solver) {
            /* The sanitizer jobs save each scene and solver at one width,
             * 1 and the wide one in turn (scene and solver both alternate),
             * still resumed at the other width and the other thread count:
             * every scene, solver, width and thread count still runs (each
             * scene's both widths, each width both solvers), each cell still
             * asserts the exact resume, and a save at the other width is
             * the same code under the sanitizer. Halves the matrix there
             * (61 -> ~30 s of a loaded TSan run); the default build runs
             * the whole matrix. */
            bool short_width_one = ((s - scene_table) + solver) % 2 == 0;
            for (int w = 0; w < WIDTHS; ++w) {
                if (!ts_simd_width_is_built(widths[w]) ||
                    ((short_run() || shapes_scene(s)) && widths[w] != 1 && widths[w] != test_wide_width()) ||
                    (short_run() && test_wide_width() != 1 && (widths[w] == 1) != short_width_one)) {
                    continue;
                }
                int load_width = widths[(w + 1) % WIDTHS];
                for (int next = 2; !ts_simd_width_is_built(load_width); ++next) { /* the next built width */
                    load_width = widths[(w + next) % WIDTHS];
                }
                for (int threads = 1; threads <= 2; ++threads) {
                    expect_exact_resume(s, (ts_solver_type)solver, widths[w], threads, load_width, 3 - threads,
                                        false, 20, 25);
                    cells += 1;
                }
            }
        }
    }
    print_message("exact resume: %d cells of the matrix\n", cells);
}

/* Sleeping on: saved once islands sleep (many_pyramids and pile settle
 * within 150 steps), resumed; the sleeping islands, their timers and the
 * waking when they are hit must all come out the same. Also saved at a
 * step whose count is a multiple of the ball joints' refresh period and
 * one after it (joint_grid, the kept ball lanes). */
static void test_exact_resume_sleeping_and_refresh(void **state)
{
    (void)state;
    const char *sleepy[] = {"many_pyramids", "sleep_field", "pile"};
    for (int k = 0; k < 3; ++k) {
        const scene_info *s = scene_find(sleepy[k]);
        ts_world_id probe = snapshot_scene_world(s, TS_SOLVER_SOFT_STEP, 1, 1, true);
        step(probe, 150);
        ts_world_counters c;
        assert_ok(ts_world_get_counters(probe, &c));
        assert_true(c.awake_body_count < c.body_count - c.static_body_count); /* some island sleeps */
        assert_ok(ts_destroy_world(probe));
        expect_exact_resume(s, TS_SOLVER_SOFT_STEP, 1, 1, test_wide_width(), 2, true, 150, 60);
        expect_exact_resume(s, TS_SOLVER_XPBD, test_wide_width(), 2, 1, 1, true, 150, 60);
    }
    /* mesh_terrain once its bodies lie on the mesh (the matrix saves it
     * at step 20, before they reach it): hull, box, sphere and capsule
     * contacts on mesh triangles, their features and impulses resumed */
    const scene_info *terrain = scene_find("mesh_terrain");
    ts_world_id probe = snapshot_scene_world(terrain, TS_SOLVER_SOFT_STEP, 1, 1, false);
    step(probe, 80);
    ts_world_counters c;
    assert_ok(ts_world_get_counters(probe, &c));
    assert_true(c.touching_count > 20); /* most of the 100 bodies touch the terrain */
    assert_ok(ts_destroy_world(probe));
    expect_exact_resume(terrain, TS_SOLVER_SOFT_STEP, 1, 1, test_wide_width(), 2, false, 80, 30);
    expect_exact_resume(terrain, TS_SOLVER_XPBD, test_wide_width(), 2, 1, 1, false, 80, 30);
    const scene_info *grid = scene_find("joint_grid");
    int four = test_width_built(4) ? 4 : 1;
    expect_exact_resume(grid, TS_SOLVER_SOFT_STEP, test_wide_width(), 1, four, 2, false, 31, 40); /* the save just before a refresh */
    expect_exact_resume(grid, TS_SOLVER_SOFT_STEP, four, 1, 1, 1, false, 32, 40);
    expect_exact_resume(grid, TS_SOLVER_SOFT_STEP, 1, 2, 16, 1, false, 33, 40);
}

/* Saved at step 0 (nothing stepped) and after a body was moved by hand
 * and a velocity set between steps: the loaded world goes on as the saved
 * one (the move buffer, the swept bounds, the refilled ball lanes). */
static void test_exact_resume_between_api_calls(void **state)
{
    (void)state;
    expect_exact_resume(scene_find("pile"), TS_SOLVER_SOFT_STEP, test_wide_width(), 1, 1, 1, false, 0, 30);
    ts_world_id a = snapshot_scene_world(scene_find("joint_grid"), TS_SOLVER_SOFT_STEP, test_wide_width(), 1, false);
    step(a, 10);
    ts_body_id ids[200];
    int count = 0;
    assert_ok(ts_world_get_bodies(a, ids, 200, &count));
    assert_int_equal(count, 100);
    assert_ok(ts_body_set_position(ids[55], (ts_vec3){5.1f, -5.0f, 0.2f}));
    assert_ok(ts_body_set_linear_velocity(ids[56], (ts_vec3){0.0f, 3.0f, 1.0f}));
    size_t size = 0;
    uint8_t *data = snapshot_save(a, &size);
    step(a, 30);
    ts_world_def def = snapshot_load_def(test_width_built(4) ? 4 : 1, 2);
    ts_world_id b;
    assert_ok(ts_world_load(data, size, &def, &b));
    step(b, 30);
    assert_true(hash_of(a) == hash_of(b));
    free(data);
    assert_ok(ts_destroy_world(a));
    assert_ok(ts_destroy_world(b));
}

/* A loaded world saves to the same bytes (nothing is lost or added on the
 * way), and its bodies, contacts and events read the same. */
static void test_load_then_save_is_identical(void **state)
{
    (void)state;
    ts_world_id a = snapshot_scene_world(scene_find("pile"), TS_SOLVER_SOFT_STEP, test_wide_width(), 2, false);
    step(a, 60);
    size_t size = 0, again = 0;
    uint8_t *data = snapshot_save(a, &size);
    ts_world_id b;
    assert_ok(ts_world_load(data, size, NULL, &b));
    uint8_t *second = snapshot_save(b, &again);
    assert_int_equal(again, size);
    assert_memory_equal(second, data, size);
    ts_contact_events ea, eb;
    assert_ok(ts_world_get_contact_events(a, &ea));
    assert_ok(ts_world_get_contact_events(b, &eb));
    assert_int_equal(ea.begin_count, eb.begin_count);
    assert_int_equal(ea.end_count, eb.end_count);
    for (int i = 0; i < ea.begin_count; ++i) {
        assert_int_equal(ea.begin[i].shape_a.index1, eb.begin[i].shape_a.index1);
        assert_int_equal(ea.begin[i].shape_b.index1, eb.begin[i].shape_b.index1);
    }
    ts_body_id ia[205], ib[205];
    int na = 0, nb = 0;
    assert_ok(ts_world_get_bodies(a, ia, 205, &na));
    assert_ok(ts_world_get_bodies(b, ib, 205, &nb));
    assert_int_equal(na, nb);
    for (int i = 0; i < na; i += 17) {
        ts_contact_data ca[16], cb[16];
        int ka = 0, kb = 0;
        assert_ok(ts_body_get_contacts(ia[i], ca, 16, &ka));
        assert_ok(ts_body_get_contacts(ib[i], cb, 16, &kb));
        assert_int_equal(ka, kb);
        for (int k = 0; k < ka && k < 16; ++k) {
            assert_int_equal(ca[k].point_count, cb[k].point_count);
            assert_memory_equal(ca[k].points, cb[k].points, sizeof(ts_contact_point) * (size_t)ca[k].point_count);
        }
        assert_int_equal(ia[i].index1, ib[i].index1);
        assert_int_equal(ia[i].generation, ib[i].generation);
    }
    free(data);
    free(second);
    assert_ok(ts_destroy_world(a));
    assert_ok(ts_destroy_world(b));
}

/* ts_world_save_file / ts_world_load_file round trip; a missing file and
 * an unwritable path give TS_ERROR_IO naming the path. */
static void test_file_round_trip(void **state)
{
    (void)state;
    ts_world_id a = snapshot_scene_world(scene_find("large_pyramid"), TS_SOLVER_SOFT_STEP, 1, 1, false);
    step(a, 10);
    char path[] = "/tmp/tessera_snapshot_testXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_ok(ts_world_save_file(a, path));
    ts_world_id b;
    assert_ok(ts_world_load_file(path, NULL, &b));
    step(a, 20);
    step(b, 20);
    assert_true(hash_of(a) == hash_of(b));
    remove(path);
    assert_int_equal(ts_world_load_file(path, NULL, &b), TS_ERROR_IO);
    assert_non_null(strstr(ts_last_error(), path));
    assert_true(ts_world_id_is_null(b));
    assert_int_equal(ts_world_save_file(a, "/nonexistent-dir/x.snap"), TS_ERROR_IO);
    assert_non_null(strstr(ts_last_error(), "/nonexistent-dir/x.snap"));
    assert_ok(ts_destroy_world(a));
}

/* ts_world_state_hash is the bench's hash (bench/state_hash.h, the core
 * the Bullet peer and tessera-split use): FNV-1a over what the getters give. */
static void test_state_hash_is_the_bench_hash(void **state)
{
    (void)state;
    ts_world_id a = snapshot_scene_world(scene_find("pyramid_3d"), TS_SOLVER_SOFT_STEP, 0, 1, false);
    step(a, 15);
    ts_body_id ids[300];
    int n = 0;
    assert_ok(ts_world_get_bodies(a, ids, 300, &n));
    uint64_t h = STATE_HASH_SEED;
    for (int i = 0; i < n; ++i) {
        ts_transform t;
        ts_vec3 v, w;
        assert_ok(ts_body_get_transform(ids[i], &t));
        assert_ok(ts_body_get_linear_velocity(ids[i], &v));
        assert_ok(ts_body_get_angular_velocity(ids[i], &w));
        float p[3] = {t.p.x, t.p.y, t.p.z}, q[4] = {t.q.x, t.q.y, t.q.z, t.q.w};
        float lv[3] = {v.x, v.y, v.z}, av[3] = {w.x, w.y, w.z};
        h = state_hash_body(h, p, q, lv, av);
    }
    assert_true(hash_of(a) == h);
    assert_ok(ts_destroy_world(a));
}

/* Bad arguments: NULL outputs, a buffer NULL with a capacity, a buffer too
 * small (TS_ERROR_CAPACITY with the size set), stale ids, an
 * uninitialised def: each refused with its code and nothing made. */
static void test_bad_arguments(void **state)
{
    (void)state;
    ts_world_id a = snapshot_scene_world(scene_find("free_fall"), TS_SOLVER_SOFT_STEP, 1, 1, false);
    size_t size = 0;
    assert_int_equal(ts_world_save(a, NULL, 0, NULL), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_save(a, NULL, 10, &size), TS_ERROR_NULL_POINTER);
    assert_ok(ts_world_save(a, NULL, 0, &size));
    uint8_t small[16];
    size_t wanted = 0;
    assert_int_equal(ts_world_save(a, small, sizeof small, &wanted), TS_ERROR_CAPACITY);
    assert_int_equal(wanted, size);
    assert_non_null(strstr(ts_last_error(), "buffer"));
    uint8_t *data = snapshot_save(a, &size);
    ts_world_id b = {7, 7};
    assert_int_equal(ts_world_load(NULL, size, NULL, &b), TS_ERROR_NULL_POINTER);
    assert_true(ts_world_id_is_null(b));
    assert_int_equal(ts_world_load(data, size, NULL, NULL), TS_ERROR_NULL_POINTER);
    ts_world_def zeroed = {0};
    assert_int_equal(ts_world_load(data, size, &zeroed, &b), TS_ERROR_UNINITIALIZED_DEF);
    ts_world_def bad = ts_default_world_def();
    bad.threads = -1;
    assert_int_equal(ts_world_load(data, size, &bad, &b), TS_ERROR_OUT_OF_RANGE);
    assert_true(ts_world_id_is_null(b));
    uint64_t h;
    assert_int_equal(ts_world_state_hash(a, NULL), TS_ERROR_NULL_POINTER);
    int count;
    assert_int_equal(ts_world_get_bodies(a, NULL, 3, &count), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_get_bodies(a, NULL, -1, &count), TS_ERROR_OUT_OF_RANGE);
    assert_int_equal(ts_world_get_bodies(a, NULL, 0, NULL), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_save_file(a, NULL), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_load_file(NULL, NULL, &b), TS_ERROR_NULL_POINTER);
    assert_ok(ts_destroy_world(a));
    assert_int_equal(ts_world_save(a, NULL, 0, &size), TS_ERROR_STALE_ID);
    assert_int_equal(ts_world_state_hash(a, &h), TS_ERROR_STALE_ID);
    assert_int_equal(ts_world_get_bodies(a, NULL, 0, &count), TS_ERROR_STALE_ID);
    assert_int_equal(ts_world_save_file(a, "/tmp/x"), TS_ERROR_STALE_ID);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_resume_matrix),
        cmocka_unit_test(test_exact_resume_sleeping_and_refresh),
        cmocka_unit_test(test_exact_resume_between_api_calls),
        cmocka_unit_test(test_load_then_save_is_identical),
        cmocka_unit_test(test_file_round_trip),
        cmocka_unit_test(test_state_hash_is_the_bench_hash),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

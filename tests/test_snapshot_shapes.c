/* Snapshot format 3 (issue 28): hulls, meshes, heightfields, sensors and
 * custom constraints resume exactly. A small world of all of them
 * (snapshot_mixed.h) is run 30 steps, saved, run 40 more; the snapshot
 * loaded into a new world (custom constraints' callbacks given back by a
 * resolver) and run 40: the state hashes are equal, and so are the sensor
 * events of every one of those steps and of the step before the save.
 * Both solvers; the save at one width and thread count, the load at
 * another. Also: a loaded world saves to the same bytes (the hulls shared
 * again, the mesh's tree rebuilt the same), a snapshot with custom
 * constraints and no resolver, or a resolver that refuses, makes no world,
 * and the new functions' bad arguments; crafted GEOM sections (a mesh
 * triangle twice, naming a missing vertex or of zero area; a heightfield
 * larger than the file, with a bad scale or height; a hull of flat or three
 * points or naming no earlier hull) and a mesh on a dynamic body are
 * refused; a hull's move buffer longer than the shape count loads.
 *
 * Why exact equality: the promise is bitwise (docs/snapshots.md); a hull
 * built from other points, a mesh tree in another order or a sensor's lost
 * overlap would show in the hash or the events within these steps. */
#include "test_common.h"

#include "snapshot_mixed.h"
#include "snapshot_scenes.h"

#include "api/world.h" /* ts_world_lookup: the contact stores' separating-axis caches */

#define XXH_INLINE_ALL
#include <xxhash.h>

static uint64_t hash_of(ts_world_id world)
{
    uint64_t h = 0;
    assert_ok(ts_world_state_hash(world, &h));
    return h;
}

/* The two worlds' sensor events of the last step are the same (ids by
 * index and generation: the worlds' slots differ); returns their count. */
static int expect_same_sensor_events(ts_world_id a, ts_world_id b)
{
    ts_sensor_events ea, eb;
    assert_ok(ts_world_get_sensor_events(a, &ea));
    assert_ok(ts_world_get_sensor_events(b, &eb));
    assert_int_equal(ea.begin_count, eb.begin_count);
    assert_int_equal(ea.end_count, eb.end_count);
    for (int pass = 0; pass < 2; ++pass) {
        const ts_sensor_event *x = pass == 0 ? ea.begin : ea.end, *y = pass == 0 ? eb.begin : eb.end;
        int n = pass == 0 ? ea.begin_count : ea.end_count;
        for (int k = 0; k < n; ++k) {
            assert_int_equal(x[k].sensor.index1, y[k].sensor.index1);
            assert_int_equal(x[k].sensor.generation, y[k].sensor.generation);
            assert_int_equal(x[k].visitor.index1, y[k].visitor.index1);
            assert_int_equal(x[k].visitor.generation, y[k].visitor.generation);
        }
    }
    return ea.begin_count + ea.end_count;
}

static ts_world_id load_mixed(const uint8_t *data, size_t size, int width, int threads)
{
    ts_world_def def = snapshot_load_def(width, threads);
    ts_snapshot_load_options options = ts_default_snapshot_load_options();
    options.resolve_constraint = mixed_resolve;
    ts_world_id b;
    assert_ok(ts_world_load_with(data, size, &def, &options, &b));
    return b;
}

/* One save and resume: the hashes and every step's sensor events equal. */
static void expect_mixed_resume(ts_solver_type solver, int width, int threads, int load_width, int load_threads)
{
    ts_world_id a = mixed_world(solver, width, threads, true);
    assert_false(ts_world_id_is_null(a));
    for (int i = 0; i < 30; ++i) {
        assert_ok(ts_world_step(a, 1.0f / 60.0f));
    }
    size_t size = 0;
    uint8_t *data = snapshot_save(a, &size);
    assert_non_null(data);
    ts_world_id b = load_mixed(data, size, load_width, load_threads);
    assert_true(hash_of(a) == hash_of(b));
    int events = expect_same_sensor_events(a, b); /* the last step's, as loaded */
    for (int i = 0; i < 40; ++i) {
        assert_ok(ts_world_step(a, 1.0f / 60.0f));
        assert_ok(ts_world_step(b, 1.0f / 60.0f));
        events += expect_same_sensor_events(a, b);
    }
    assert_true(events >= 3); /* the spheres passed through the sensor while compared */
    if (hash_of(a) != hash_of(b)) {
        fail_msg("mixed world (%s) saved at width %d on %d threads, resumed at width %d on %d: hashes differ",
                 solver == TS_SOLVER_XPBD ? "xpbd" : "soft step", width, threads, load_width, load_threads);
    }
    free(data);
    assert_ok(ts_destroy_world(a));
    assert_ok(ts_destroy_world(b));
}

static void test_mixed_world_resumes_exactly(void **state)
{
    (void)state;
    int wide = test_wide_width();
    for (int solver = 0; solver < 2; ++solver) {
        expect_mixed_resume((ts_solver_type)solver, 1, 1, wide, 2);
        expect_mixed_resume((ts_solver_type)solver, wide, 2, 1, 1);
    }
}

/* Loaded, then saved again: the same bytes (each hull's points, the shared
 * hull's reference, the mesh in its program order, the heightfield's
 * scaled heights and scale, the sensor state, the custom constraints). */
static void test_mixed_load_then_save_is_identical(void **state)
{
    (void)state;
    ts_world_id a = mixed_world(TS_SOLVER_SOFT_STEP, 1, 1, true);
    for (int i = 0; i < 35; ++i) {
        assert_ok(ts_world_step(a, 1.0f / 60.0f));
    }
    size_t size = 0, again = 0;
    uint8_t *data = snapshot_save(a, &size);
    ts_world_id b = load_mixed(data, size, 1, 1);
    uint8_t *second = snapshot_save(b, &again);
    assert_int_equal(again, size);
    assert_memory_equal(second, data, size);
    /* the mesh's triangles read back as made, in the program's order */
    ts_body_id bodies[16];
    int n = 0;
    assert_ok(ts_world_get_bodies(b, bodies, 16, &n));
    ts_shape_id mesh;
    int shapes = 0;
    assert_ok(ts_body_get_shapes(bodies[0], &mesh, 1, &shapes));
    ts_vec3 corners[54];
    int count = 0;
    assert_ok(ts_shape_get_triangles(mesh, &count, corners, 18));
    assert_int_equal(count, 18);
    assert_true(corners[3].x == -3.0f && corners[4].y == 0.4f && corners[5].z == -3.0f); /* triangle 1: v0, v5, v1 */
    free(data);
    free(second);
    assert_ok(ts_destroy_world(a));
    assert_ok(ts_destroy_world(b));
}

/* Custom constraints need their callbacks back: without a resolver, with
 * one that refuses or gives NULL, the load makes no world and says which
 * joint; the resolver sees each constraint's user data and saved context. */
typedef struct resolver_log {
    int calls;
    int pins;
    bool contexts_kept;
    bool refuse;
    bool give_null;
} resolver_log;

static bool logging_resolve(ts_joint_id joint, void *user_data, void *saved_context, void *resolver_context,
                            ts_constraint_fn **evaluate, void **context)
{
    resolver_log *log = resolver_context;
    log->calls += 1;
    uintptr_t tag = (uintptr_t)user_data;
    log->pins += tag == MIXED_PIN_TAG ? 1 : 0;
    const void *expected = tag == MIXED_PIN_TAG ? (const void *)&mixed_pin_point : (const void *)&mixed_link_length;
    log->contexts_kept = log->contexts_kept && saved_context == expected && *context == saved_context;
    bool ok = mixed_resolve(joint, user_data, saved_context, NULL, evaluate, context);
    if (log->give_null) {
        *evaluate = NULL;
    }
    return ok && !log->refuse;
}

static void test_custom_constraints_need_a_resolver(void **state)
{
    (void)state;
    ts_world_id a = mixed_world(TS_SOLVER_XPBD, 1, 1, true);
    for (int i = 0; i < 5; ++i) {
        assert_ok(ts_world_step(a, 1.0f / 60.0f));
    }
    size_t size = 0;
    uint8_t *data = snapshot_save(a, &size);
    ts_world_id b = {3, 3};
    assert_int_equal(ts_world_load(data, size, NULL, &b), TS_ERROR_INVALID_OPERATION);
    assert_non_null(strstr(ts_last_error(), "custom constraint"));
    assert_true(ts_world_id_is_null(b));
    ts_snapshot_load_options options = ts_default_snapshot_load_options();
    assert_int_equal(ts_world_load_with(data, size, NULL, &options, &b), TS_ERROR_INVALID_OPERATION);
    resolver_log log = {0, 0, true, true, false};
    options.resolve_constraint = logging_resolve;
    options.resolver_context = &log;
    assert_int_equal(ts_world_load_with(data, size, NULL, &options, &b), TS_ERROR_INVALID_OPERATION);
    assert_non_null(strstr(ts_last_error(), "no callback"));
    assert_true(ts_world_id_is_null(b));
    log = (resolver_log){0, 0, true, false, true};
    assert_int_equal(ts_world_load_with(data, size, NULL, &options, &b), TS_ERROR_INVALID_OPERATION);
    log = (resolver_log){0, 0, true, false, false};
    assert_ok(ts_world_load_with(data, size, NULL, &options, &b));
    assert_int_equal(log.calls, 3);
    assert_int_equal(log.pins, 1);
    assert_true(log.contexts_kept);
    for (int i = 0; i < 10; ++i) {
        assert_ok(ts_world_step(a, 1.0f / 60.0f));
        assert_ok(ts_world_step(b, 1.0f / 60.0f));
    }
    assert_true(hash_of(a) == hash_of(b));
    /* bad arguments of the new functions */
    assert_int_equal(ts_world_load_with(data, size, NULL, &options, NULL), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_load_with(NULL, size, NULL, &options, &b), TS_ERROR_NULL_POINTER);
    assert_true(ts_world_id_is_null(b));
    assert_int_equal(ts_world_load_file_with(NULL, NULL, &options, &b), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_world_load_file_with("/nonexistent-dir/x.tsw", NULL, &options, &b), TS_ERROR_IO);
    assert_int_equal(ts_world_load_file_with("/tmp/x.tsw", NULL, &options, NULL), TS_ERROR_NULL_POINTER);
    free(data);
    assert_ok(ts_destroy_world(a));
}

/* A falling hull body leaves its fat box every few steps: the refit
 * keeps a place for it in the move buffer and, a hull being off its fast
 * path, queues it again after the places, so the buffer holds more entries
 * than the world has shapes (the loader refused such a buffer before: a
 * 5,120-hull convex_pile after 100 steps). Saved and loaded after each of
 * 40 steps, each resumes exactly. */
static void test_move_buffer_longer_than_the_shapes(void **state)
{
    (void)state;
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    ts_world_id a = ts_create_world(&def);
    ts_shape_def shape = ts_default_shape_def();
    ts_cylinder cylinder = {0.3f, 0.4f, 6};
    ts_create_cylinder_shape(mixed_body(a, TS_BODY_DYNAMIC, (ts_vec3){0.0f, 5.0f, 0.0f}), &shape, &cylinder);
    for (int i = 0; i < 40; ++i) {
        assert_ok(ts_world_step(a, 1.0f / 60.0f));
        size_t size = 0;
        uint8_t *data = snapshot_save(a, &size);
        ts_world_id b;
        if (ts_world_load(data, size, NULL, &b) != TS_OK) {
            fail_msg("step %d: %s", i, ts_last_error());
        }
        assert_ok(ts_world_step(a, 1.0f / 60.0f));
        assert_ok(ts_world_step(b, 1.0f / 60.0f));
        assert_true(hash_of(a) == hash_of(b));
        assert_ok(ts_destroy_world(b));
        free(data);
    }
    assert_ok(ts_destroy_world(a));
}

/* Every contact's separating-axis cache (feature and depth) is the same in
 * both worlds (the hashes show it only when it decides a manifold); returns
 * how many of them belong to a pair apart (no points) with an axis cached. */
static int same_sat_caches(ts_world_id a, ts_world_id b)
{
    const ts_world *wa = ts_world_lookup(a, __func__), *wb = ts_world_lookup(b, __func__);
    const ts_records *ra = &wa->records, *rb = &wb->records;
    assert_int_equal(ra->contact_ids.next_index, rb->contact_ids.next_index);
    int apart = 0;
    for (int32_t id = 0; id < ra->contact_ids.next_index; ++id) {
        assert_int_equal(ra->contacts[id].alive, rb->contacts[id].alive);
        if (!ra->contacts[id].alive) {
            continue;
        }
        int32_t i = ra->contact_store.table.slot_of_id[id], j = rb->contact_store.table.slot_of_id[id];
        assert_int_equal(ra->contact_store.sat_feature[i], rb->contact_store.sat_feature[j]);
        assert_memory_equal(&ra->contact_store.sat_depth[i], &rb->contact_store.sat_depth[j], sizeof(float));
        apart += ra->contact_store.point_count[i] == 0 && ra->contact_store.sat_feature[i] != 0 ? 1 : 0;
    }
    return apart;
}

/* A hull pair's separating-axis cache (the contact store's sat columns)
 * is kept while the pair is apart too: one hull falls onto another, tilted,
 * saved every 3 steps of 60 (apart, within reach, landing, resting), each
 * snapshot resumed beside the saved world for those 3 steps: every
 * contact's cache is the loaded world's as the saved one's, and the hashes
 * equal. (Format 3's first
 * save dropped the cache of a pair apart: a 5,120-hull convex_pile
 * resumed differently from step 100 on.) */
static void test_hull_pair_cache_resumes(void **state)
{
    (void)state;
    for (int solver = 0; solver < 2; ++solver) {
        ts_world_def def = ts_default_world_def();
        def.threads = 1;
        def.solver = (ts_solver_type)solver;
        def.enable_sleep = false;
        ts_world_id a = ts_create_world(&def);
        ts_shape_def shape = ts_default_shape_def();
        ts_box ground = {{4.0f, 0.5f, 4.0f}};
        ts_create_box_shape(mixed_body(a, TS_BODY_STATIC, (ts_vec3){0.0f, -0.5f, 0.0f}), &shape, &ground);
        ts_vec3 points[8] = {{-0.4f, -0.3f, -0.3f}, {0.4f, -0.3f, -0.3f}, {-0.3f, 0.3f, -0.4f}, {0.3f, 0.3f, -0.4f},
                             {-0.4f, -0.3f, 0.3f},  {0.4f, -0.3f, 0.3f},  {-0.3f, 0.3f, 0.4f},  {0.3f, 0.3f, 0.4f}};
        ts_hull_def hull = {points, 8};
        ts_create_hull_shape(mixed_body(a, TS_BODY_DYNAMIC, (ts_vec3){0.0f, 0.31f, 0.0f}), &shape, &hull);
        ts_body_def top = ts_default_body_def();
        top.type = TS_BODY_DYNAMIC;
        top.position = (ts_vec3){0.15f, 1.3f, -0.1f};
        top.rotation = (ts_quat){0.0f, 0.0f, 0.17364818f, 0.98480775f}; /* 20 degrees about z */
        ts_create_hull_shape(ts_create_body(a, &top), &shape, &hull);
        int apart_cached = 0;
        for (int i = 0; i < 20; ++i) { /* saved at steps 0, 3, ..., 57; each resumed 3 steps beside the saved world */
            size_t size = 0;
            uint8_t *data = snapshot_save(a, &size);
            ts_world_id b;
            assert_ok(ts_world_load(data, size, NULL, &b));
            apart_cached += same_sat_caches(a, b);
            for (int k = 0; k < 3; ++k) {
                assert_ok(ts_world_step(a, 1.0f / 60.0f));
                assert_ok(ts_world_step(b, 1.0f / 60.0f));
            }
            if (hash_of(a) != hash_of(b)) {
                fail_msg("solver %d: saved at step %d, resumed 3 steps: hashes differ", solver, 3 * i);
            }
            free(data);
            assert_ok(ts_destroy_world(b));
        }
        assert_true(apart_cached > 0); /* the case: a pair apart with its axis cached was saved */
        assert_ok(ts_destroy_world(a));
    }
}

/* Rolling resistance (merged beside format 3): each shape's coefficient,
 * the world's flag and the contacts' rolling impulses are saved, their
 * mixed levers mixed again on load. Balls rolling on a box ground with
 * rolling resistance 0.37 (and one without), both solvers, saved while
 * rolling, resumed at another width and thread count: equal hashes, and
 * the same bytes saved again. A coefficient beyond
 * TS_MAX_ROLLING_RESISTANCE in a crafted file is refused. */
static size_t section_at(const uint8_t *data, size_t size, const char tag[4], size_t *length);

static void test_rolling_resistance_resumes(void **state)
{
    (void)state;
    for (int solver = 0; solver < 2; ++solver) {
        ts_world_def def = ts_default_world_def();
        def.threads = 1;
        def.solver = (ts_solver_type)solver;
        ts_world_id a = ts_create_world(&def);
        ts_shape_def shape = ts_default_shape_def();
        ts_box ground = {{20.0f, 0.5f, 20.0f}};
        ts_create_box_shape(mixed_body(a, TS_BODY_STATIC, (ts_vec3){0.0f, -0.5f, 0.0f}), &shape, &ground);
        for (int k = 0; k < 3; ++k) {
            ts_body_def bd = ts_default_body_def();
            bd.type = TS_BODY_DYNAMIC;
            bd.position = (ts_vec3){0.0f, 0.3f, 1.0f * (float)k};
            bd.linear_velocity = (ts_vec3){3.0f, 0.0f, 0.0f};
            ts_shape_def rolling = ts_default_shape_def();
            rolling.rolling_resistance = k == 2 ? 0.0f : 0.37f;
            ts_create_sphere_shape(ts_create_body(a, &bd), &rolling, &(ts_sphere){0.3f});
        }
        for (int i = 0; i < 30; ++i) {
            assert_ok(ts_world_step(a, 1.0f / 60.0f));
        }
        size_t size = 0, again = 0;
        uint8_t *data = snapshot_save(a, &size);
        ts_world_def load = snapshot_load_def(test_wide_width(), 2);
        ts_world_id b;
        assert_ok(ts_world_load(data, size, &load, &b));
        uint8_t *second = snapshot_save(b, &again);
        assert_int_equal(again, size);
        assert_memory_equal(second, data, size);
        for (int i = 0; i < 40; ++i) {
            assert_ok(ts_world_step(a, 1.0f / 60.0f));
            assert_ok(ts_world_step(b, 1.0f / 60.0f));
        }
        assert_true(hash_of(a) == hash_of(b));
        /* the coefficient's bytes in SHAP made 11 */
        size_t length = 0, at = section_at(data, size, "SHAP", &length);
        float value = 0.37f, beyond = 11.0f;
        int found = 0;
        for (size_t i = at; i + 4 <= at + length; ++i) {
            if (memcmp(data + i, &value, 4) == 0) {
                memcpy(data + i, &beyond, 4);
                found += 1;
            }
        }
        assert_int_equal(found, 2);
        uint64_t checksum = XXH3_64bits(data + 32, size - 32);
        for (int k = 0; k < 8; ++k) {
            data[24 + k] = (uint8_t)(checksum >> (8 * k));
        }
        assert_int_equal(ts_world_load(data, size, NULL, &b), TS_ERROR_INVALID_DATA);
        assert_non_null(strstr(ts_last_error(), "rolling resistance is 11"));
        free(data);
        free(second);
        assert_ok(ts_destroy_world(a));
    }
}

/* ---- crafted GEOM sections ---- */

typedef struct bytes {
    uint8_t data[512];
    size_t size;
} bytes;

static void put_varint(bytes *b, uint64_t v)
{
    while (v >= 0x80u) {
        b->data[b->size++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    b->data[b->size++] = (uint8_t)v;
}

static void put_f32(bytes *b, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    for (int k = 0; k < 4; ++k) {
        b->data[b->size++] = (uint8_t)(bits >> (8 * k));
    }
}

static void put_point(bytes *b, float x, float y, float z)
{
    put_f32(b, x);
    put_f32(b, y);
    put_f32(b, z);
}

/* GEOM of the crafted world (a mesh, a heightfield, two hulls): each part
 * as saved unless `bad` (0: none) names the one to break. */
enum { GOOD, MESH_TWICE, MESH_VERTEX, MESH_FLAT, HF_HUGE, HF_SCALE, HF_NAN, HULL_FLAT, HULL_THREE, HULL_REF };

static bytes crafted_geometry(int bad)
{
    bytes b = {{0}, 0};
    /* the mesh: 4 vertices, 2 triangles (program order 0, 1) */
    put_varint(&b, 4);
    put_point(&b, -1, 0, -1);
    put_point(&b, -1, 0, 1);
    put_point(&b, 1, 0, 1);
    put_point(&b, bad == MESH_FLAT ? 0.0f : 1.0f, 0, bad == MESH_FLAT ? 0.0f : -1.0f); /* flat: triangle 1 of zero area */
    put_varint(&b, 2);
    const int32_t tris[2][3] = {{0, 1, 2}, {0, 2, 3}};
    for (int t = 0; t < 2; ++t) {
        put_varint(&b, bad == MESH_TWICE ? 0u : (uint64_t)t);
        for (int k = 0; k < 3; ++k) {
            put_varint(&b, bad == MESH_VERTEX && t == 1 && k == 2 ? 9u : (uint64_t)tris[t][k]);
        }
    }
    /* the heightfield: 2 x 2 */
    put_varint(&b, bad == HF_HUGE ? 100000u : 2u);
    put_varint(&b, bad == HF_HUGE ? 100000u : 2u);
    put_point(&b, 1.0f, bad == HF_SCALE ? -1.0f : 1.0f, 1.0f);
    for (int k = 0; k < 4; ++k) {
        put_f32(&b, bad == HF_NAN && k == 3 ? NAN : 0.1f * (float)k);
    }
    /* the first hull: 5 points (a pyramid), the second: shape 2's */
    put_varint(&b, 0);
    put_varint(&b, bad == HULL_THREE ? 3u : 5u);
    put_point(&b, -0.5f, 0, -0.5f);
    put_point(&b, 0.5f, 0, -0.5f);
    put_point(&b, 0.5f, 0, 0.5f);
    if (bad != HULL_THREE) {
        put_point(&b, -0.5f, 0, 0.5f);
        put_point(&b, 0, bad == HULL_FLAT ? 0.0f : 0.7f, 0);
    }
    put_varint(&b, bad == HULL_REF ? 1u : 3u); /* 1 + shape index: shape 0 is the mesh */
    return b;
}

static ts_world_id crafted_world(void)
{
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    ts_world_id world = ts_create_world(&def);
    ts_shape_def shape = ts_default_shape_def();
    const ts_vec3 vertices[4] = {{-1, 0, -1}, {-1, 0, 1}, {1, 0, 1}, {1, 0, -1}};
    const int32_t indices[6] = {0, 1, 2, 0, 2, 3};
    ts_mesh_def mesh = {vertices, 4, indices, 2};
    assert_false(ts_shape_id_is_null(ts_create_mesh_shape(mixed_body(world, TS_BODY_STATIC, (ts_vec3){0, 0, 0}),
                                                          &shape, &mesh)));
    const float heights[4] = {0.0f, 0.1f, 0.2f, 0.3f};
    ts_heightfield_def hf = {heights, 2, 2, {1.0f, 1.0f, 1.0f}};
    assert_false(ts_shape_id_is_null(
        ts_create_heightfield_shape(mixed_body(world, TS_BODY_STATIC, (ts_vec3){5, 0, 0}), &shape, &hf)));
    const ts_vec3 points[5] = {{-0.5f, 0, -0.5f}, {0.5f, 0, -0.5f}, {0.5f, 0, 0.5f}, {-0.5f, 0, 0.5f}, {0, 0.7f, 0}};
    ts_hull_def hull = {points, 5};
    for (int k = 0; k < 2; ++k) {
        ts_body_id body = mixed_body(world, TS_BODY_DYNAMIC, (ts_vec3){(float)k, 2.0f, 0});
        assert_false(ts_shape_id_is_null(ts_create_hull_shape(body, &shape, &hull)));
    }
    return world;
}

/* The offset of a section's payload (0: none) and its length. */
static size_t section_at(const uint8_t *data, size_t size, const char tag[4], size_t *length)
{
    size_t at = 32;
    while (at + 12 <= size) {
        *length = 0;
        for (int k = 0; k < 8; ++k) {
            *length |= (size_t)data[at + 4 + (size_t)k] << (8 * k);
        }
        if (memcmp(data + at, tag, 4) == 0) {
            return at + 12;
        }
        at += 12 + *length;
    }
    return 0;
}

/* The file with its GEOM payload replaced by `geom`, its length and the
 * checksum made right (what a crafted file can do). */
static uint8_t *with_geometry(const uint8_t *data, size_t size, const bytes *geom, size_t *out_size)
{
    size_t length = 0, payload = section_at(data, size, "GEOM", &length);
    assert_true(payload > 0);
    *out_size = size - length + geom->size;
    uint8_t *out = malloc(*out_size);
    memcpy(out, data, payload);
    memcpy(out + payload, geom->data, geom->size);
    memcpy(out + payload + geom->size, data + payload + length, size - payload - length);
    for (int k = 0; k < 8; ++k) {
        out[payload - 8 + (size_t)k] = (uint8_t)((uint64_t)geom->size >> (8 * k));
        out[16 + (size_t)k] = (uint8_t)((uint64_t)(*out_size - 32) >> (8 * k));
    }
    uint64_t checksum = XXH3_64bits(out + 32, *out_size - 32);
    for (int k = 0; k < 8; ++k) {
        out[24 + (size_t)k] = (uint8_t)(checksum >> (8 * k));
    }
    return out;
}

/* Geometry the create calls refuse, or that names what it cannot: each
 * crafted GEOM refused with TS_ERROR_INVALID_DATA, a message naming the
 * problem, and no world; the section as saved (rebuilt here byte for byte)
 * loads. */
static void test_crafted_geometry_refused(void **state)
{
    (void)state;
    ts_world_id world = crafted_world();
    size_t size = 0;
    uint8_t *data = snapshot_save(world, &size);
    struct {
        int bad;
        const char *expect;
    } cases[] = {
        {MESH_TWICE, "lists triangle 0 twice"},
        {MESH_VERTEX, "names vertex 9 of 4"},
        {MESH_FLAT, "shape 0's mesh: ts_world_load: TS_ERROR_OUT_OF_RANGE"},
        {HF_HUGE, "heightfield of 100000 x 100000 heights"},
        {HF_SCALE, "scale.y is -1"},
        {HF_NAN, "shape 1's heightfield: ts_world_load: TS_ERROR_NOT_FINITE"},
        {HULL_FLAT, "shape 2's hull points: ts_world_load: TS_ERROR_OUT_OF_RANGE"},
        {HULL_THREE, "shape 2's hull points"},
        {HULL_REF, "shape 3's hull is that of shape 0, which is no earlier hull"},
    };
    bytes good = crafted_geometry(GOOD);
    size_t n = 0;
    uint8_t *same = with_geometry(data, size, &good, &n);
    assert_int_equal(n, size);
    assert_memory_equal(same, data, size); /* the crafted layout is the saved one */
    free(same);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        bytes geom = crafted_geometry(cases[k].bad);
        uint8_t *bad = with_geometry(data, size, &geom, &n);
        ts_world_id loaded = {5, 5};
        ts_result r = ts_world_load(bad, n, NULL, &loaded);
        if (r != TS_ERROR_INVALID_DATA || !ts_world_id_is_null(loaded) || strstr(ts_last_error(), cases[k].expect) == NULL) {
            fail_msg("case %d: %s \"%s\" (expected '%s')", cases[k].bad, ts_result_name(r), ts_last_error(),
                     cases[k].expect);
        }
        free(bad);
    }
    /* the mesh's body made dynamic (BODY: next index, free count, then
     * body 0's generation, alive flag and type): the API puts meshes on
     * static and kinematic bodies only */
    size_t body_length = 0, body = section_at(data, size, "BODY", &body_length);
    assert_true(body > 0 && data[body + 4] == TS_BODY_STATIC);
    data[body + 4] = TS_BODY_DYNAMIC;
    uint8_t *dynamic = with_geometry(data, size, &good, &n);
    ts_world_id loaded;
    assert_int_equal(ts_world_load(dynamic, n, NULL, &loaded), TS_ERROR_INVALID_DATA);
    assert_non_null(strstr(ts_last_error(), "shape 0 is a mesh or heightfield on dynamic body 0"));
    free(dynamic);
    free(data);
    assert_ok(ts_destroy_world(world));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_world_resumes_exactly),
        cmocka_unit_test(test_mixed_load_then_save_is_identical),
        cmocka_unit_test(test_custom_constraints_need_a_resolver),
        cmocka_unit_test(test_move_buffer_longer_than_the_shapes),
        cmocka_unit_test(test_crafted_geometry_refused),
        cmocka_unit_test(test_hull_pair_cache_resumes),
        cmocka_unit_test(test_rolling_resistance_resumes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

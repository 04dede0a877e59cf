// SPDX-License-Identifier: MIT
/* Bulk state (include/tessera/bulk.h): each call reads or writes what the
 * one-body calls read or write, through structure-of-arrays columns and
 * strided structs alike; a bulk setter leaves the world bitwise as a loop
 * of one-body setters would (checked by stepping both worlds on and
 * comparing every body's state bit for bit: the bulk setter moves the
 * broadphase differently, so only the simulation's bits can show that it
 * does the same); every bad argument is refused with its error, the
 * message names the body's index, and nothing is written (out of memory
 * too: no value is written). Comparisons are
 * exact: the calls copy the same floats. */
#include "test_common.h"

enum { GRID = 6, BOXES = GRID * GRID, BODIES = BOXES + 3 };

/* A world of BOXES boxes in a loose pile over a ground box, a kinematic
 * paddle, a body that is put to sleep, and a sphere; sleeping on. ids[0] is
 * the ground, ids[1] the kinematic body, ids[2] the sleeper. */
typedef struct scene {
    ts_world_id world;
    ts_body_id ids[BODIES];
} scene;

static ts_body_id add_body(ts_world_id world, ts_body_type type, ts_vec3 position, ts_quat rotation, ts_box box)
{
    ts_body_def def = ts_default_body_def();
    def.type = type;
    def.position = position;
    def.rotation = rotation;
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    shape.local_position = (ts_vec3){0.05f, 0.0f, -0.02f}; /* an off-centre shape: origin and centre differ */
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &box)));
    return body;
}

/* The scene on `allocator` (NULL: the default one). */
static void build_scene_on(scene *s, const ts_allocator *allocator)
{
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    if (allocator != NULL) {
        def.allocator = *allocator;
    }
    s->world = ts_create_world(&def);
    s->ids[0] = add_body(s->world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, TS_QUAT_IDENTITY, (ts_box){{20, 1, 20}});
    s->ids[1] = add_body(s->world, TS_BODY_KINEMATIC, (ts_vec3){-6, 0.5f, 0}, TS_QUAT_IDENTITY, (ts_box){{0.5f, 0.5f, 2}});
    s->ids[2] = add_body(s->world, TS_BODY_DYNAMIC, (ts_vec3){8, 0.5f, 8}, TS_QUAT_IDENTITY, (ts_box){{0.5f, 0.5f, 0.5f}});
    for (int i = 0; i < BOXES; ++i) {
        ts_quat q = {0.0f, 0.0998334f, 0.0f, 0.9950042f}; /* 0.2 rad about y */
        ts_vec3 p = {(float)(i % GRID) * 1.1f - 3.0f, 0.6f + (float)(i / GRID) * 0.3f, (float)(i / GRID) * 0.9f - 2.0f};
        s->ids[3 + i] = add_body(s->world, TS_BODY_DYNAMIC, p, q, (ts_box){{0.4f, 0.3f, 0.35f}});
    }
    for (int step = 0; step < 20; ++step) {
        assert_ok(ts_world_step(s->world, 1.0f / 60.0f));
    }
    assert_ok(ts_body_set_awake(s->ids[2], false));
}

static void build_scene(scene *s) { build_scene_on(s, NULL); }

/* Every body's origin pose and velocities, in ids order (AoS). */
typedef struct snapshot {
    ts_vec3 p[BODIES], v[BODIES], w[BODIES];
    ts_quat q[BODIES];
    bool awake[BODIES];
} snapshot;

static void take_snapshot(const scene *s, snapshot *out)
{
    for (int i = 0; i < BODIES; ++i) {
        ts_transform t;
        assert_ok(ts_body_get_transform(s->ids[i], &t));
        out->p[i] = t.p;
        out->q[i] = t.q;
        assert_ok(ts_body_get_linear_velocity(s->ids[i], &out->v[i]));
        assert_ok(ts_body_get_angular_velocity(s->ids[i], &out->w[i]));
        assert_ok(ts_body_is_awake(s->ids[i], &out->awake[i]));
    }
}

static void assert_same_snapshot(const snapshot *a, const snapshot *b)
{
    for (int i = 0; i < BODIES; ++i) {
        if (memcmp(&a->p[i], &b->p[i], sizeof a->p[i]) != 0 || memcmp(&a->q[i], &b->q[i], sizeof a->q[i]) != 0 ||
            memcmp(&a->v[i], &b->v[i], sizeof a->v[i]) != 0 || memcmp(&a->w[i], &b->w[i], sizeof a->w[i]) != 0 ||
            a->awake[i] != b->awake[i]) {
            fail_msg("body %d differs: p (%.9g %.9g %.9g) vs (%.9g %.9g %.9g)", i, (double)a->p[i].x,
                     (double)a->p[i].y, (double)a->p[i].z, (double)b->p[i].x, (double)b->p[i].y, (double)b->p[i].z);
        }
    }
}

static ts_body_state_arrays aos_arrays(snapshot *s)
{
    return (ts_body_state_arrays){ts_vec3_structs(s->p, sizeof(ts_vec3)), ts_quat_structs(s->q, sizeof(ts_quat)),
                                  ts_vec3_structs(s->v, sizeof(ts_vec3)), ts_vec3_structs(s->w, sizeof(ts_vec3))};
}

/* ---- reading ---- */

/* The list getter gives what the one-body getters give, through SoA
 * columns and through a field of the program's structs. */
static void test_get_matches_one_body_getters(void **state)
{
    (void)state;
    scene s;
    build_scene(&s);
    snapshot expected;
    take_snapshot(&s, &expected);

    snapshot aos = {0};
    ts_body_state_arrays arrays = aos_arrays(&aos);
    assert_ok(ts_world_get_body_states(s.world, s.ids, BODIES, &arrays));
    memcpy(aos.awake, expected.awake, sizeof aos.awake);
    assert_same_snapshot(&aos, &expected);

    /* SoA: one column per component; and a program struct with a stride */
    static float px[BODIES], py[BODIES], pz[BODIES], qx[BODIES], qy[BODIES], qz[BODIES], qw[BODIES];
    typedef struct object {
        int tag;
        ts_vec3 velocity;
        double padding;
    } object;
    static object objects[BODIES];
    ts_body_state_arrays soa = {0};
    soa.position = ts_vec3_columns(px, py, pz);
    soa.rotation = ts_quat_columns(qx, qy, qz, qw);
    soa.linear_velocity = ts_vec3_structs(&objects[0].velocity, sizeof(object));
    assert_ok(ts_world_get_body_states(s.world, s.ids, BODIES, &soa));
    for (int i = 0; i < BODIES; ++i) {
        ts_vec3 p = {px[i], py[i], pz[i]};
        ts_quat q = {qx[i], qy[i], qz[i], qw[i]};
        assert_memory_equal(&p, &expected.p[i], sizeof p);
        assert_memory_equal(&q, &expected.q[i], sizeof q);
        assert_memory_equal(&objects[i].velocity, &expected.v[i], sizeof(ts_vec3));
        assert_int_equal(objects[i].tag, 0); /* the stride skipped the rest of the struct */
    }
    ts_destroy_world(s.world);
}

/* The awake getter lists the awake range (as ts_world_get_awake_transforms)
 * with the one-body getters' values; capacity 0 counts. */
static void test_get_awake_matches_awake_range(void **state)
{
    (void)state;
    scene s;
    build_scene(&s);
    int awake = -1;
    ts_body_state_arrays none = {0};
    assert_ok(ts_world_get_awake_body_states(s.world, NULL, 0, &awake, &none));
    int expected_count = -1;
    assert_ok(ts_world_get_awake_transforms(s.world, NULL, NULL, 0, &expected_count));
    assert_int_equal(awake, expected_count);
    assert_true(awake > 0 && awake < BODIES); /* the ground and the sleeper are not in it */

    static ts_body_id ids[BODIES], transform_ids[BODIES];
    static ts_transform transforms[BODIES];
    snapshot got = {0};
    ts_body_state_arrays arrays = aos_arrays(&got);
    int count = 0;
    assert_ok(ts_world_get_awake_body_states(s.world, ids, BODIES, &count, &arrays));
    assert_ok(ts_world_get_awake_transforms(s.world, transform_ids, transforms, BODIES, &expected_count));
    assert_int_equal(count, awake);
    for (int k = 0; k < count; ++k) {
        assert_true(ts_body_id_equals(ids[k], transform_ids[k]));
        assert_memory_equal(&got.p[k], &transforms[k].p, sizeof(ts_vec3));
        assert_memory_equal(&got.q[k], &transforms[k].q, sizeof(ts_quat));
        ts_vec3 v, w;
        assert_ok(ts_body_get_linear_velocity(ids[k], &v));
        assert_ok(ts_body_get_angular_velocity(ids[k], &w));
        assert_memory_equal(&got.v[k], &v, sizeof v);
        assert_memory_equal(&got.w[k], &w, sizeof w);
    }
    /* a smaller capacity writes that many and still counts all */
    snapshot partial = {0};
    ts_body_state_arrays partial_arrays = aos_arrays(&partial);
    assert_ok(ts_world_get_awake_body_states(s.world, NULL, 2, &count, &partial_arrays));
    assert_int_equal(count, awake);
    assert_memory_equal(&partial.p[1], &got.p[1], sizeof(ts_vec3));
    assert_true(partial.p[2].x == 0.0f && partial.p[2].y == 0.0f && partial.p[2].z == 0.0f);
    ts_destroy_world(s.world);
}

/* ---- writing: the same bits as a loop of one-body setters ---- */

/* New values for body i (teleports across the pile, turns, pushes; the
 * ground and the kinematic body keep a zero / valid velocity). */
static void new_values(const scene *s, const snapshot *now, snapshot *to)
{
    for (int i = 0; i < BODIES; ++i) {
        float f = (float)i;
        to->p[i] = (ts_vec3){now->p[i].x + 0.3f * sinf(f), now->p[i].y + 0.5f, now->p[i].z - 0.2f * cosf(f)};
        float a = 0.1f * f;
        to->q[i] = (ts_quat){0.0f, sinf(0.5f * a), 0.0f, cosf(0.5f * a)};
        to->v[i] = (ts_vec3){0.5f * cosf(f), 1.0f, -0.3f};
        to->w[i] = (ts_vec3){0.2f, -0.1f * f, 0.05f};
        to->awake[i] = now->awake[i];
    }
    to->v[0] = to->w[0] = (ts_vec3){0, 0, 0}; /* static */
    to->p[3] = (ts_vec3){-6.0f, 1.6f, 0.0f};  /* onto the kinematic paddle */
    (void)s;
}

/* Which quantities a case sets. */
enum { SET_POSITION = 1, SET_ROTATION = 2, SET_LINEAR = 4, SET_ANGULAR = 8 };

/* Two equal worlds; one gets the bulk setter, the other the loop; after 40
 * more steps (new contacts with the moved bodies, the sleeper woken) every
 * body's state is the same bits. The list is in a scrambled order and names
 * one body twice (the last values win in both). */
static void check_set_matches_loop(int which)
{
    scene bulk, loop;
    build_scene(&bulk);
    build_scene(&loop);
    snapshot now, values = {0};
    take_snapshot(&bulk, &now);
    new_values(&bulk, &now, &values);

    enum { LISTED = BODIES + 1 };
    int order[LISTED];
    for (int k = 0; k < BODIES; ++k) {
        order[k] = (k * 7 + 2) % BODIES; /* 7 and BODIES = 39 are coprime: a permutation */
    }
    order[BODIES] = order[5];
    /* element k of the list: body order[k]'s new values */
    static ts_body_id ids[LISTED];
    static ts_vec3 p[LISTED], v[LISTED], w[LISTED];
    static ts_quat q[LISTED];
    for (int k = 0; k < LISTED; ++k) {
        int i = order[k];
        ids[k] = bulk.ids[i];
        p[k] = values.p[i];
        q[k] = values.q[i];
        v[k] = values.v[i];
        w[k] = values.w[i];
    }
    ts_body_state_arrays arrays = {0};
    if (which & SET_POSITION) {
        arrays.position = ts_vec3_structs(p, sizeof(ts_vec3));
    }
    if (which & SET_ROTATION) {
        arrays.rotation = ts_quat_structs(q, sizeof(ts_quat));
    }
    if (which & SET_LINEAR) {
        arrays.linear_velocity = ts_vec3_structs(v, sizeof(ts_vec3));
    }
    if (which & SET_ANGULAR) {
        arrays.angular_velocity = ts_vec3_structs(w, sizeof(ts_vec3));
    }
    assert_ok(ts_world_set_body_states(bulk.world, ids, LISTED, &arrays));
    for (int k = 0; k < LISTED; ++k) {
        int i = order[k];
        ts_body_id b = loop.ids[i];
        if ((which & SET_POSITION) && (which & SET_ROTATION)) {
            assert_ok(ts_body_set_transform(b, p[k], q[k]));
        } else if (which & SET_POSITION) {
            assert_ok(ts_body_set_position(b, p[k]));
        } else if (which & SET_ROTATION) {
            assert_ok(ts_body_set_rotation(b, q[k]));
        }
        if (which & SET_LINEAR) {
            assert_ok(ts_body_set_linear_velocity(b, v[k]));
        }
        if (which & SET_ANGULAR) {
            assert_ok(ts_body_set_angular_velocity(b, w[k]));
        }
    }
    snapshot a, b;
    take_snapshot(&bulk, &a);
    take_snapshot(&loop, &b);
    assert_same_snapshot(&a, &b);
    assert_true(a.awake[2]); /* the sleeper woke */
    for (int step = 0; step < 40; ++step) {
        assert_ok(ts_world_step(bulk.world, 1.0f / 60.0f));
        assert_ok(ts_world_step(loop.world, 1.0f / 60.0f));
    }
    take_snapshot(&bulk, &a);
    take_snapshot(&loop, &b);
    assert_same_snapshot(&a, &b);
    ts_world_counters ca, cb;
    assert_ok(ts_world_get_counters(bulk.world, &ca));
    assert_ok(ts_world_get_counters(loop.world, &cb));
    assert_int_equal(ca.touching_count, cb.touching_count);
    ts_destroy_world(bulk.world);
    ts_destroy_world(loop.world);
}

static void test_set_all_matches_loop(void **state)
{
    (void)state;
    check_set_matches_loop(SET_POSITION | SET_ROTATION | SET_LINEAR | SET_ANGULAR);
}

static void test_set_position_matches_loop(void **state)
{
    (void)state;
    check_set_matches_loop(SET_POSITION);
}

static void test_set_rotation_matches_loop(void **state)
{
    (void)state;
    check_set_matches_loop(SET_ROTATION);
}

static void test_set_velocities_match_loop(void **state)
{
    (void)state;
    check_set_matches_loop(SET_LINEAR | SET_ANGULAR);
}

/* The awake setter writes the awake range in the order the awake getter
 * read it: reading, changing and writing back equals a loop of one-body
 * setters over the same ids, SoA columns this time. */
static void test_set_awake_matches_loop(void **state)
{
    (void)state;
    scene bulk, loop;
    build_scene(&bulk);
    build_scene(&loop);
    static ts_body_id ids[BODIES];
    static float vx[BODIES], vy[BODIES], vz[BODIES], px[BODIES], py[BODIES], pz[BODIES];
    ts_body_state_arrays arrays = {0};
    arrays.linear_velocity = ts_vec3_columns(vx, vy, vz);
    arrays.position = ts_vec3_columns(px, py, pz);
    int count = 0;
    assert_ok(ts_world_get_awake_body_states(bulk.world, ids, BODIES, &count, &arrays));
    for (int k = 0; k < count; ++k) {
        vy[k] += 2.0f; /* everything jumps */
        px[k] += 0.01f * (float)k;
    }
    assert_ok(ts_world_set_awake_body_states(bulk.world, ids, count, &arrays));
    for (int k = 0; k < count; ++k) {
        ts_body_id b = loop.ids[0];
        for (int i = 0; i < BODIES; ++i) { /* the same body in the other world */
            if (bulk.ids[i].index1 == ids[k].index1) {
                b = loop.ids[i];
            }
        }
        assert_ok(ts_body_set_position(b, (ts_vec3){px[k], py[k], pz[k]}));
        assert_ok(ts_body_set_linear_velocity(b, (ts_vec3){vx[k], vy[k], vz[k]}));
    }
    for (int step = 0; step < 30; ++step) {
        assert_ok(ts_world_step(bulk.world, 1.0f / 60.0f));
        assert_ok(ts_world_step(loop.world, 1.0f / 60.0f));
    }
    snapshot a, b;
    take_snapshot(&bulk, &a);
    take_snapshot(&loop, &b);
    assert_same_snapshot(&a, &b);
    /* without ids too */
    assert_ok(ts_world_get_awake_body_states(bulk.world, NULL, BODIES, &count, &arrays));
    assert_ok(ts_world_set_awake_body_states(bulk.world, NULL, count, &arrays));
    ts_destroy_world(bulk.world);
    ts_destroy_world(loop.world);
}

/* A stride of 0 sets one value for every listed body (all stop at once). */
static void test_zero_stride_sets_one_value_for_all(void **state)
{
    (void)state;
    scene s;
    build_scene(&s);
    ts_vec3 zero = {0, 0, 0};
    ts_body_state_arrays arrays = {0};
    arrays.linear_velocity = ts_vec3_structs(&zero, 0);
    arrays.angular_velocity = ts_vec3_structs(&zero, 0);
    assert_ok(ts_world_set_body_states(s.world, s.ids + 3, BOXES, &arrays));
    for (int i = 3; i < BODIES; ++i) {
        ts_vec3 v;
        assert_ok(ts_body_get_linear_velocity(s.ids[i], &v));
        assert_true(v.x == 0.0f && v.y == 0.0f && v.z == 0.0f);
    }
    ts_destroy_world(s.world);
}

/* ---- bad input: refused, the index named, nothing written ---- */

static void expect_refused(const scene *s, ts_result got, ts_result code, const char *needle)
{
    if (got != code) {
        fail_msg("returned %s, expected %s (%s)", ts_result_name(got), ts_result_name(code), ts_last_error());
    }
    if (strstr(ts_last_error(), needle) == NULL) {
        fail_msg("message \"%s\" does not name \"%s\"", ts_last_error(), needle);
    }
    (void)s;
}

/* Every setter refusal leaves every body as it was (poses, velocities,
 * awake flags): 'before' is taken before the call. */
static void expect_unchanged(const scene *s, const snapshot *before)
{
    snapshot after;
    take_snapshot(s, &after);
    assert_same_snapshot(&after, before);
}

static void test_bad_arguments_are_refused(void **state)
{
    (void)state;
    scene s;
    build_scene(&s);
    snapshot before, values = {0};
    take_snapshot(&s, &before);
    new_values(&s, &before, &values);
    ts_body_state_arrays good = aos_arrays(&values);

    expect_refused(&s, ts_world_set_body_states(s.world, s.ids, BODIES, NULL), TS_ERROR_NULL_POINTER, "states");
    expect_refused(&s, ts_world_get_body_states(s.world, s.ids, BODIES, NULL), TS_ERROR_NULL_POINTER, "states");
    expect_refused(&s, ts_world_set_body_states(s.world, NULL, 3, &good), TS_ERROR_NULL_POINTER, "bodies");
    expect_refused(&s, ts_world_get_body_states(s.world, NULL, 3, &good), TS_ERROR_NULL_POINTER, "bodies");
    expect_refused(&s, ts_world_set_body_states(s.world, s.ids, -1, &good), TS_ERROR_OUT_OF_RANGE, "count");
    expect_refused(&s, ts_world_get_body_states(s.world, s.ids, -1, &good), TS_ERROR_OUT_OF_RANGE, "count");

    ts_body_state_arrays half = good;
    half.rotation.w = NULL;
    expect_refused(&s, ts_world_set_body_states(s.world, s.ids, BODIES, &half), TS_ERROR_NULL_POINTER, "rotation");
    expect_refused(&s, ts_world_get_body_states(s.world, s.ids, BODIES, &half), TS_ERROR_NULL_POINTER, "rotation");
    half = good;
    half.linear_velocity.x = NULL;
    expect_refused(&s, ts_world_set_body_states(s.world, s.ids, BODIES, &half), TS_ERROR_NULL_POINTER,
                   "linear_velocity");

    ts_world_def def = ts_default_world_def();
    ts_world_id other = ts_create_world(&def);
    ts_body_def body_def = ts_default_body_def();
    ts_body_id foreign = ts_create_body(other, &body_def);
    ts_world_id destroyed = ts_create_world(&def);
    ts_destroy_world(destroyed);
    expect_refused(&s, ts_world_set_body_states(destroyed, s.ids, BODIES, &good), TS_ERROR_STALE_ID, "world");
    expect_refused(&s, ts_world_get_body_states(destroyed, s.ids, BODIES, &good), TS_ERROR_STALE_ID, "world");

    static ts_body_id ids[BODIES];
    memcpy(ids, s.ids, sizeof ids);
    ids[7] = TS_NULL_BODY_ID;
    expect_refused(&s, ts_world_set_body_states(s.world, ids, BODIES, &good), TS_ERROR_STALE_ID, "bodies[7]");
    snapshot untouched = {0}, got = {0};
    ts_body_state_arrays out = aos_arrays(&got);
    expect_refused(&s, ts_world_get_body_states(s.world, ids, BODIES, &out), TS_ERROR_STALE_ID, "bodies[7]");
    assert_memory_equal(&got, &untouched, sizeof got); /* nothing written */
    ids[7] = foreign;
    expect_refused(&s, ts_world_set_body_states(s.world, ids, BODIES, &good), TS_ERROR_WRONG_WORLD, "bodies[7]");
    expect_refused(&s, ts_world_get_body_states(s.world, ids, BODIES, &out), TS_ERROR_WRONG_WORLD, "bodies[7]");
    ts_body_id doomed = add_body(s.world, TS_BODY_DYNAMIC, (ts_vec3){10, 10, 10}, TS_QUAT_IDENTITY,
                                 (ts_box){{1, 1, 1}});
    ts_destroy_body(doomed);
    take_snapshot(&s, &before);
    ids[7] = doomed;
    expect_refused(&s, ts_world_set_body_states(s.world, ids, BODIES, &good), TS_ERROR_STALE_ID, "bodies[7]");
    expect_refused(&s, ts_world_get_body_states(s.world, ids, BODIES, &out), TS_ERROR_STALE_ID, "bodies[7]");
    assert_memory_equal(&got, &untouched, sizeof got);
    expect_unchanged(&s, &before);

    /* bad values at index 9 (after valid ones): refused, nothing written
     * to any body, the sleeper still asleep */
    const float bad[3] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; ++b) {
        snapshot broken = values;
        broken.p[9].y = bad[b];
        ts_body_state_arrays arrays = aos_arrays(&broken);
        expect_refused(&s, ts_world_set_body_states(s.world, s.ids, BODIES, &arrays), TS_ERROR_NOT_FINITE, "body 9");
        broken = values;
        broken.q[9].w = bad[b];
        expect_refused(&s, ts_world_set_body_states(s.world, s.ids, BODIES, &arrays), TS_ERROR_NOT_FINITE, "body 9");
        broken = values;
        broken.v[9].x = bad[b];
        expect_refused(&s, ts_world_set_body_states(s.world, s.ids, BODIES, &arrays), TS_ERROR_NOT_FINITE, "body 9");
        broken = values;
        broken.w[9].z = bad[b];
        expect_refused(&s, ts_world_set_body_states(s.world, s.ids, BODIES, &arrays), TS_ERROR_NOT_FINITE, "body 9");
    }
    snapshot broken = values;
    broken.q[9] = (ts_quat){0.0f, 0.0f, 0.0f, 1.05f}; /* 5% off unit length */
    ts_body_state_arrays arrays = aos_arrays(&broken);
    expect_refused(&s, ts_world_set_body_states(s.world, s.ids, BODIES, &arrays), TS_ERROR_OUT_OF_RANGE, "body 9");
    broken = values;
    broken.v[0] = (ts_vec3){1, 0, 0}; /* the static ground */
    expect_refused(&s, ts_world_set_body_states(s.world, s.ids, BODIES, &arrays), TS_ERROR_INVALID_OPERATION,
                   "body 0");
    expect_unchanged(&s, &before);

    /* the awake calls */
    int count = 0;
    expect_refused(&s, ts_world_get_awake_body_states(s.world, NULL, 4, NULL, &out), TS_ERROR_NULL_POINTER, "count");
    expect_refused(&s, ts_world_get_awake_body_states(s.world, NULL, -1, &count, &out), TS_ERROR_OUT_OF_RANGE,
                   "capacity");
    expect_refused(&s, ts_world_get_awake_body_states(s.world, NULL, 4, &count, NULL), TS_ERROR_NULL_POINTER,
                   "states");
    expect_refused(&s, ts_world_get_awake_body_states(destroyed, NULL, 4, &count, &out), TS_ERROR_STALE_ID, "world");
    static ts_body_id awake_ids[BODIES];
    static snapshot awake_values;
    ts_body_state_arrays awake_arrays = aos_arrays(&awake_values);
    assert_ok(ts_world_get_awake_body_states(s.world, awake_ids, BODIES, &count, &awake_arrays));
    expect_refused(&s, ts_world_set_awake_body_states(s.world, awake_ids, count - 1, &awake_arrays),
                   TS_ERROR_OUT_OF_RANGE, "count");
    expect_refused(&s, ts_world_set_awake_body_states(s.world, awake_ids, count, NULL), TS_ERROR_NULL_POINTER,
                   "states");
    expect_refused(&s, ts_world_set_awake_body_states(destroyed, awake_ids, count, &awake_arrays), TS_ERROR_STALE_ID,
                   "world");
    ts_body_id swapped = awake_ids[0];
    awake_ids[0] = awake_ids[1];
    awake_ids[1] = swapped;
    expect_refused(&s, ts_world_set_awake_body_states(s.world, awake_ids, count, &awake_arrays),
                   TS_ERROR_INVALID_OPERATION, "ids[0]");
    awake_ids[1] = awake_ids[0];
    awake_ids[0] = swapped;
    awake_values.p[2].x = NAN;
    expect_refused(&s, ts_world_set_awake_body_states(s.world, awake_ids, count, &awake_arrays), TS_ERROR_NOT_FINITE,
                   "body 2");
    expect_unchanged(&s, &before);

    /* and the world steps on */
    assert_ok(ts_world_step(s.world, 1.0f / 60.0f));
    ts_destroy_world(other);
    ts_destroy_world(s.world);
}

/* Out of memory at each allocation a setter makes (room in the
 * broadphase's move buffer and for the tree's rebuild, waking): the call
 * returns TS_ERROR_OUT_OF_MEMORY and no body's pose or velocity changes
 * (bodies woken before the failure may stay awake, as bulk.h says); the
 * same call with room then writes every value and the world steps on.
 * Every body but the ground is listed REPEAT times (the last values win),
 * so that the move buffer, sized for the world's shapes, must grow. */
static void test_out_of_memory_writes_nothing(void **state)
{
    (void)state;
    enum { REPEAT = 4, LISTED = REPEAT * (BODIES - 1) };
    counting_allocator counter = {0, 0, 0, -1};
    ts_allocator allocator = {counting_alloc, counting_free, &counter};
    scene s;
    build_scene_on(&s, &allocator);
    snapshot before;
    take_snapshot(&s, &before);
    ts_body_id ids[LISTED];
    ts_vec3 p[LISTED], v[LISTED];
    for (int k = 0; k < LISTED; ++k) {
        int i = 1 + k % (BODIES - 1);
        ids[k] = s.ids[i];
        p[k] = before.p[i];
        p[k].y += 3.0f + (float)(k / (BODIES - 1)); /* the last repeat's values: +6 m */
        v[k] = (ts_vec3){0.0f, (float)(k / (BODIES - 1)), 0.0f};
    }
    ts_body_state_arrays arrays = {0};
    arrays.position = ts_vec3_structs(p, sizeof(ts_vec3));
    arrays.linear_velocity = ts_vec3_structs(v, sizeof(ts_vec3));
    int attempts = 0;
    for (;; ++attempts) {
        assert_true(attempts < 200);
        counter.fail_after = counter.allocations + attempts;
        ts_result r = ts_world_set_body_states(s.world, ids, LISTED, &arrays);
        counter.fail_after = -1;
        if (r == TS_OK) {
            break;
        }
        assert_int_equal(r, TS_ERROR_OUT_OF_MEMORY);
        assert_non_null(strstr(ts_last_error(), "ts_world_set_body_states"));
        snapshot after;
        take_snapshot(&s, &after);
        memcpy(after.awake, before.awake, sizeof after.awake); /* waking is allowed to stay */
        assert_same_snapshot(&after, &before);
    }
    assert_true(attempts > 0); /* the call did need room */
    snapshot after;
    take_snapshot(&s, &after);
    for (int i = 1; i < BODIES; ++i) {
        int last = (REPEAT - 1) * (BODIES - 1) + i - 1;
        assert_memory_equal(&after.p[i], &p[last], sizeof(ts_vec3));
        assert_memory_equal(&after.v[i], &v[last], sizeof(ts_vec3));
    }
    assert_ok(ts_world_step(s.world, 1.0f / 60.0f));
    ts_destroy_world(s.world);
    assert_int_equal(counter.bytes_live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_matches_one_body_getters),
        cmocka_unit_test(test_get_awake_matches_awake_range),
        cmocka_unit_test(test_set_all_matches_loop),
        cmocka_unit_test(test_set_position_matches_loop),
        cmocka_unit_test(test_set_rotation_matches_loop),
        cmocka_unit_test(test_set_velocities_match_loop),
        cmocka_unit_test(test_set_awake_matches_loop),
        cmocka_unit_test(test_zero_stride_sets_one_value_for_all),
        cmocka_unit_test(test_bad_arguments_are_refused),
        cmocka_unit_test(test_out_of_memory_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

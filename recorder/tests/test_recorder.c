/* The recorder: a recording replayed by an independent reader
 * (recording_reader.c, written from docs/recording.md) gives back exactly
 * the world's poses, sleep states and islands at every frame; a process that
 * dies without closing leaves every recorded frame readable; contacts are
 * written once each; bad arguments get an error and write nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recording_reader.h"
#include "tessera/recorder.h"

#define DT (1.0f / 60.0f)

#define assert_ok(call)                                                                                        \
    do {                                                                                                       \
        ts_result r_ = (call);                                                                                 \
        if (r_ != TS_OK) {                                                                                     \
            fail_msg("%s returned %s: %s / %s", #call, ts_result_name(r_), ts_recorder_last_error(),           \
                     ts_last_error());                                                                         \
        }                                                                                                      \
    } while (0)

static ts_world_id make_world(void)
{
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    ts_world_id world = ts_create_world(&def);
    assert_false(ts_world_id_is_null(world));
    return world;
}

static ts_body_id add_box(ts_world_id world, ts_body_type type, ts_vec3 p, ts_vec3 half)
{
    ts_body_def def = ts_default_body_def();
    def.type = type;
    def.position = p;
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    assert_false(ts_shape_id_is_null(ts_create_box_shape(body, &shape, &(ts_box){half})));
    return body;
}

static ts_body_id add_sphere(ts_world_id world, ts_vec3 p, float radius)
{
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.position = p;
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    assert_false(ts_shape_id_is_null(ts_create_sphere_shape(body, &shape, &(ts_sphere){radius})));
    return body;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Reads chunks up to and including the next frame; fails on anything but a chunk. */
static void next_frame(recording_reader *reader)
{
    int frames = reader->frames;
    while (reader->frames == frames) {
        assert_int_equal(reader_next(reader), READER_CHUNK);
    }
}

/* The reader's state of body b equals the world's: pose bit for bit (the
 * file holds the floats as they are), awake state and island id. */
static void assert_same_state(const recording_reader *reader, ts_body_id b)
{
    const reader_body *rb = &reader->bodies[b.index1 - 1];
    ts_transform t;
    bool awake = false;
    int island = -2;
    assert_ok(ts_body_get_transform(b, &t));
    assert_ok(ts_body_is_awake(b, &awake));
    assert_ok(ts_body_get_island(b, &island));
    assert_true(rb->known);
    assert_memory_equal(rb->pose, &t, sizeof(t));
    assert_int_equal(rb->island, island);
    ts_body_type type;
    assert_ok(ts_body_get_type(b, &type));
    if (type == TS_BODY_DYNAMIC) {
        assert_int_equal(rb->awake, awake);
    }
}

#define SCENE_BODIES 5

/* A stack of two boxes and a ball fall, settle and sleep; at step 60 a
 * second ball appears that nobody added (the frame adds it on its own).
 * After every frame the reader's replayed state must equal the world's,
 * which the test keeps frame by frame. */
static void test_replay_matches_world(void **state)
{
    (void)state;
    enum { STEPS = 200, FRAMES = STEPS + 1 };
    const char *path = "test_recorder_replay.tsr";
    ts_world_id world = make_world();
    ts_body_id bodies[SCENE_BODIES];
    bodies[0] = add_box(world, TS_BODY_STATIC, (ts_vec3){0.0f, -1.0f, 0.0f}, (ts_vec3){20.0f, 1.0f, 20.0f});
    bodies[1] = add_box(world, TS_BODY_DYNAMIC, (ts_vec3){0.0f, 0.5f, 0.0f}, (ts_vec3){0.5f, 0.5f, 0.5f});
    bodies[2] = add_box(world, TS_BODY_DYNAMIC, (ts_vec3){0.1f, 2.0f, 0.0f}, (ts_vec3){0.5f, 0.5f, 0.5f});
    bodies[3] = add_sphere(world, (ts_vec3){3.0f, 1.0f, 0.0f}, 0.4f);
    ts_recorder *rec = NULL;
    assert_ok(ts_recorder_create(world, path, NULL, &rec));
    assert_ok(ts_recorder_add_bodies(rec, bodies, 4));

    /* The truth of every frame, kept to compare after reading. */
    static ts_transform poses[FRAMES][SCENE_BODIES];
    static bool awake[FRAMES][SCENE_BODIES];
    static int islands[FRAMES][SCENE_BODIES];
    int body_count = 4;
    for (int f = 0; f < FRAMES; ++f) {
        if (f > 0) {
            assert_ok(ts_world_step(world, DT));
        }
        if (f == 60) {
            bodies[body_count++] = add_sphere(world, (ts_vec3){-3.0f, 3.0f, 0.0f}, 0.3f);
        }
        assert_ok(ts_recorder_frame(rec));
        for (int b = 0; b < body_count; ++b) {
            assert_ok(ts_body_get_transform(bodies[b], &poses[f][b]));
            assert_ok(ts_body_is_awake(bodies[b], &awake[f][b]));
            assert_ok(ts_body_get_island(bodies[b], &islands[f][b]));
        }
    }
    assert_int_equal(ts_recorder_frame_count(rec), FRAMES);
    assert_ok(ts_recorder_close(rec));
    /* Everything fell asleep, so the run tested the sleep list too. */
    for (int b = 1; b < body_count; ++b) {
        assert_false(awake[FRAMES - 1][b]);
    }

    recording_reader reader;
    assert_true(reader_open(&reader, path));
    assert_true(reader.dt == DT);
    for (int f = 0; f < FRAMES; ++f) {
        next_frame(&reader);
        assert_int_equal(reader.frame_index, f);
        for (int b = 0; b < (f < 60 ? 4 : 5); ++b) {
            const reader_body *rb = &reader.bodies[bodies[b].index1 - 1];
            assert_true(rb->known);
            if (memcmp(rb->pose, &poses[f][b], sizeof(ts_transform)) != 0) {
                fail_msg("frame %d body %d: file (%g %g %g) world (%g %g %g)", f, b, rb->pose[0], rb->pose[1],
                         rb->pose[2], poses[f][b].p.x, poses[f][b].p.y, poses[f][b].p.z);
            }
            assert_int_equal(rb->island, islands[f][b]);
            if (b > 0) {
                assert_int_equal(rb->awake, awake[f][b]);
            }
        }
    }
    /* Asleep, a frame writes no body at all. */
    assert_int_equal(reader.awake_count, 0);
    assert_int_equal(reader.body_chunks, 2);
    assert_int_equal(reader_next(&reader), READER_CHUNK);
    assert_int_equal(reader.end_frames, FRAMES);
    assert_int_equal(reader_next(&reader), READER_END);
    /* The shapes came through: body 1 a box of half-extent 0.5, body 3 a ball of radius 0.4. */
    assert_int_equal(reader.bodies[bodies[1].index1 - 1].first_shape_type, TS_SHAPE_BOX);
    assert_true(reader.bodies[bodies[1].index1 - 1].first_shape_size[1] == 0.5f);
    assert_int_equal(reader.bodies[bodies[3].index1 - 1].first_shape_type, TS_SHAPE_SPHERE);
    assert_true(reader.bodies[bodies[3].index1 - 1].first_shape_size[0] == 0.4f);
    reader_close(&reader);
    ts_destroy_world(world);
    remove(path);
}

/* Hulls, meshes and heightfields are written with the points that draw
 * them (format version 2): a hull's vertices as ts_shape_get_hull gives
 * them, a mesh's and a heightfield's three corners a triangle. */
static void test_outlines_written(void **state)
{
    (void)state;
    const char *path = "test_recorder_outlines.tsr";
    ts_world_id world = make_world();
    ts_shape_def shape = ts_default_shape_def();
    ts_body_def def = ts_default_body_def();
    ts_body_id ground = ts_create_body(world, &def);
    ts_vec3 corners[4] = {{-5, 0, -5}, {-5, 0, 5}, {5, 0, 5}, {5, 0, -5}};
    int32_t indices[6] = {0, 1, 2, 0, 2, 3};
    assert_false(ts_shape_id_is_null(ts_create_mesh_shape(ground, &shape, &(ts_mesh_def){corners, 4, indices, 2})));
    ts_body_id field = ts_create_body(world, &def);
    float heights[9] = {0};
    assert_false(ts_shape_id_is_null(
        ts_create_heightfield_shape(field, &shape, &(ts_heightfield_def){heights, 3, 3, {1, 1, 1}})));
    def.type = TS_BODY_DYNAMIC;
    def.position = (ts_vec3){0, 2, 0};
    ts_body_id rock = ts_create_body(world, &def);
    ts_vec3 points[8];
    for (int i = 0; i < 8; ++i) {
        points[i] = (ts_vec3){(i & 1) ? 0.5f : -0.5f, (i & 2) ? 0.5f : -0.5f, (i & 4) ? 0.5f : -0.5f};
    }
    assert_false(ts_shape_id_is_null(ts_create_hull_shape(rock, &shape, &(ts_hull_def){points, 8})));
    ts_hull_info info;
    ts_vec3 vertices[8];
    ts_shape_id rock_shape;
    int shape_count = 0;
    assert_ok(ts_body_get_shapes(rock, &rock_shape, 1, &shape_count));
    assert_ok(ts_shape_get_hull(rock_shape, &info, vertices, 8));

    ts_recorder *rec = NULL;
    ts_body_id bodies[3] = {ground, field, rock};
    assert_ok(ts_recorder_create(world, path, NULL, &rec));
    assert_ok(ts_recorder_add_bodies(rec, bodies, 3));
    assert_ok(ts_recorder_frame(rec));
    assert_ok(ts_recorder_close(rec));

    recording_reader reader;
    assert_true(reader_open(&reader, path));
    next_frame(&reader);
    const reader_body *m = &reader.bodies[ground.index1 - 1];
    assert_int_equal(m->first_shape_type, TS_SHAPE_MESH);
    assert_int_equal(m->outline_points, 6); /* 2 triangles */
    assert_memory_equal(m->first_outline_point, &corners[0], sizeof(ts_vec3));
    const reader_body *h = &reader.bodies[field.index1 - 1];
    assert_int_equal(h->first_shape_type, TS_SHAPE_HEIGHTFIELD);
    assert_int_equal(h->outline_points, 3 * 8); /* 4 cells, 2 triangles each */
    const reader_body *r = &reader.bodies[rock.index1 - 1];
    assert_int_equal(r->first_shape_type, TS_SHAPE_HULL);
    assert_int_equal(r->outline_points, (uint32_t)info.vertex_count);
    assert_memory_equal(r->first_outline_point, &vertices[0], sizeof(ts_vec3));
    reader_close(&reader);
    ts_destroy_world(world);
    remove(path);
}

/* A child process records 10 frames and dies (_exit: no close, no stdio
 * flush at exit). Every frame must be in the file, whole: each chunk is
 * flushed when it is written. The end mark is missing, as it should be. */
static void test_crash_leaves_readable_prefix(void **state)
{
    (void)state;
    const char *path = "test_recorder_crash.tsr";
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        ts_world_def def = ts_default_world_def();
        def.threads = 1;
        ts_world_id world = ts_create_world(&def);
        ts_body_id box = add_box(world, TS_BODY_DYNAMIC, (ts_vec3){0.0f, 5.0f, 0.0f}, (ts_vec3){0.5f, 0.5f, 0.5f});
        ts_recorder *rec = NULL;
        if (ts_recorder_create(world, path, NULL, &rec) != TS_OK || ts_recorder_add_bodies(rec, &box, 1) != TS_OK) {
            _exit(2);
        }
        for (int i = 0; i < 10; ++i) {
            ts_world_step(world, DT);
            ts_recorder_frame(rec);
        }
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    recording_reader reader;
    assert_true(reader_open(&reader, path));
    reader_status s;
    while ((s = reader_next(&reader)) == READER_CHUNK) {
    }
    assert_int_equal(s, READER_END); /* no chunk cut short */
    assert_int_equal(reader.frames, 10);
    assert_int_equal(reader.end_frames, -1);
    assert_int_equal(reader.awake_count, 1);
    reader_close(&reader);
    remove(path);
}

/* Two boxes stacked on the ground with contacts on: every touching point is
 * written once (the box-box contact is seen from both boxes, the
 * ground contact from the bottom box only), so the file's count equals the
 * world's point_count; the ground points lie on y = 0 (within the 2 cm
 * speculative margin) with a vertical normal. */
static void test_contacts_written_once(void **state)
{
    (void)state;
    const char *path = "test_recorder_contacts.tsr";
    ts_world_id world = make_world();
    ts_body_id bodies[3];
    bodies[0] = add_box(world, TS_BODY_STATIC, (ts_vec3){0.0f, -1.0f, 0.0f}, (ts_vec3){20.0f, 1.0f, 20.0f});
    bodies[1] = add_box(world, TS_BODY_DYNAMIC, (ts_vec3){0.0f, 0.5f, 0.0f}, (ts_vec3){0.5f, 0.5f, 0.5f});
    bodies[2] = add_box(world, TS_BODY_DYNAMIC, (ts_vec3){0.0f, 1.5f, 0.0f}, (ts_vec3){0.5f, 0.5f, 0.5f});
    ts_recorder_def def = ts_default_recorder_def();
    def.contacts = true;
    ts_recorder *rec = NULL;
    assert_ok(ts_recorder_create(world, path, &def, &rec));
    assert_ok(ts_recorder_add_bodies(rec, bodies, 3));
    for (int i = 0; i < 5; ++i) {
        assert_ok(ts_world_step(world, DT));
    }
    assert_ok(ts_recorder_frame(rec));
    ts_world_counters counters;
    assert_ok(ts_world_get_counters(world, &counters));
    assert_ok(ts_recorder_close(rec));

    recording_reader reader;
    assert_true(reader_open(&reader, path));
    assert_int_equal(reader.flags & 1, 1);
    next_frame(&reader);
    assert_true(counters.point_count >= 6);
    assert_int_equal(reader.point_count, counters.point_count);
    int ground_points = 0;
    for (uint32_t i = 0; i < reader.point_count; ++i) {
        if (reader.points[i][1] < 0.5f) {
            ground_points += 1;
            assert_true(reader.points[i][1] > -0.02f && reader.points[i][1] < 0.02f);
            assert_true(reader.points[i][4] > 0.999f || reader.points[i][4] < -0.999f);
        }
    }
    assert_true(ground_points >= 3);
    /* The counters came through: awake bodies and touching points. */
    assert_int_equal(reader.stats[2], counters.awake_body_count);
    assert_int_equal(reader.stats[7], counters.point_count);
    reader_close(&reader);
    ts_destroy_world(world);
    remove(path);
}

/* An awake body destroyed between two frames is listed as removed. */
static void test_destroyed_body_removed(void **state)
{
    (void)state;
    const char *path = "test_recorder_removed.tsr";
    ts_world_id world = make_world();
    ts_body_id a = add_box(world, TS_BODY_DYNAMIC, (ts_vec3){0.0f, 3.0f, 0.0f}, (ts_vec3){0.5f, 0.5f, 0.5f});
    ts_body_id b = add_box(world, TS_BODY_DYNAMIC, (ts_vec3){2.0f, 3.0f, 0.0f}, (ts_vec3){0.5f, 0.5f, 0.5f});
    ts_recorder *rec = NULL;
    assert_ok(ts_recorder_create(world, path, NULL, &rec));
    assert_ok(ts_recorder_add_bodies(rec, (ts_body_id[]){a, b}, 2));
    assert_ok(ts_recorder_frame(rec));
    assert_ok(ts_destroy_body(a));
    assert_ok(ts_world_step(world, DT));
    assert_ok(ts_recorder_frame(rec));
    assert_ok(ts_recorder_close(rec));

    recording_reader reader;
    assert_true(reader_open(&reader, path));
    next_frame(&reader);
    assert_int_equal(reader.removed_count, 0);
    next_frame(&reader);
    assert_int_equal(reader.removed_count, 1);
    assert_int_equal(reader.asleep_count, 0);
    assert_false(reader.bodies[a.index1 - 1].known);
    assert_same_state(&reader, b);
    reader_close(&reader);
    ts_destroy_world(world);
    remove(path);
}

/* Bad arguments to create: each gets its code, a message naming the
 * argument, and no recorder; no file is made. */
static void test_create_bad_input(void **state)
{
    (void)state;
    const char *path = "test_recorder_bad_create.tsr";
    remove(path);
    ts_world_id world = make_world();
    ts_recorder *rec = NULL;
    ts_recorder_def def = ts_default_recorder_def();

    assert_int_equal(ts_recorder_create(world, NULL, NULL, &rec), TS_ERROR_NULL_POINTER);
    assert_non_null(strstr(ts_recorder_last_error(), "path"));
    assert_int_equal(ts_recorder_create(world, path, NULL, NULL), TS_ERROR_NULL_POINTER);
    assert_non_null(strstr(ts_recorder_last_error(), "recorder"));
    ts_recorder_def zero = {0};
    assert_int_equal(ts_recorder_create(world, path, &zero, &rec), TS_ERROR_UNINITIALIZED_DEF);
    def.dt = 0.0f;
    assert_int_equal(ts_recorder_create(world, path, &def, &rec), TS_ERROR_OUT_OF_RANGE);
    assert_non_null(strstr(ts_recorder_last_error(), "dt"));
    def.dt = NAN;
    assert_int_equal(ts_recorder_create(world, path, &def, &rec), TS_ERROR_NOT_FINITE);
    assert_int_equal(ts_recorder_create(TS_NULL_WORLD_ID, path, NULL, &rec), TS_ERROR_STALE_ID);
    assert_non_null(strstr(ts_recorder_last_error(), "world"));
    assert_null(rec);
    assert_int_equal(file_size(path), -1);

    /* A folder that does not exist: the message names the path and the reason. */
    assert_int_equal(ts_recorder_create(world, "no_such_dir/x.tsr", NULL, &rec), TS_ERROR_INVALID_OPERATION);
    assert_non_null(strstr(ts_recorder_last_error(), "no_such_dir/x.tsr"));
    assert_null(rec);

    ts_destroy_world(world);
    assert_int_equal(ts_recorder_create(world, path, NULL, &rec), TS_ERROR_STALE_ID);
    assert_int_equal(file_size(path), -1);
}

/* Bad bodies and calls on a recorder: an error, and the file does not
 * grow by a byte; the recorder goes on working afterwards. A frame after
 * the world is gone fails the same way. */
static void test_calls_bad_input(void **state)
{
    (void)state;
    const char *path = "test_recorder_bad_calls.tsr";
    ts_world_id world = make_world();
    ts_world_id other = make_world();
    ts_body_id box = add_box(world, TS_BODY_DYNAMIC, (ts_vec3){0.0f, 3.0f, 0.0f}, (ts_vec3){0.5f, 0.5f, 0.5f});
    ts_body_id foreign = add_box(other, TS_BODY_DYNAMIC, (ts_vec3){0.0f, 3.0f, 0.0f}, (ts_vec3){0.5f, 0.5f, 0.5f});
    ts_body_id gone = add_box(world, TS_BODY_DYNAMIC, (ts_vec3){5.0f, 3.0f, 0.0f}, (ts_vec3){0.5f, 0.5f, 0.5f});
    assert_ok(ts_destroy_body(gone));
    ts_recorder *rec = NULL;
    assert_ok(ts_recorder_create(world, path, NULL, &rec));
    long size = file_size(path);
    assert_int_equal(size, 32);

    assert_int_equal(ts_recorder_add_bodies(NULL, &box, 1), TS_ERROR_NULL_POINTER);
    assert_int_equal(ts_recorder_add_bodies(rec, NULL, 1), TS_ERROR_NULL_POINTER);
    assert_non_null(strstr(ts_recorder_last_error(), "bodies"));
    assert_int_equal(ts_recorder_add_bodies(rec, &box, -1), TS_ERROR_OUT_OF_RANGE);
    assert_int_equal(ts_recorder_add_bodies(rec, (ts_body_id[]){box, gone}, 2), TS_ERROR_STALE_ID);
    assert_non_null(strstr(ts_recorder_last_error(), "bodies[1]"));
    assert_int_equal(ts_recorder_add_bodies(rec, (ts_body_id[]){box, foreign}, 2), TS_ERROR_WRONG_WORLD);
    assert_non_null(strstr(ts_recorder_last_error(), "bodies[1]"));
    assert_int_equal(ts_recorder_frame(NULL), TS_ERROR_NULL_POINTER);
    assert_int_equal(file_size(path), size);

    assert_ok(ts_recorder_add_bodies(rec, &box, 1));
    assert_ok(ts_recorder_frame(rec));
    assert_int_equal(ts_recorder_frame_count(rec), 1);
    size = file_size(path);
    ts_destroy_world(world);
    assert_int_equal(ts_recorder_frame(rec), TS_ERROR_STALE_ID);
    assert_non_null(strstr(ts_recorder_last_error(), "world"));
    assert_int_equal(file_size(path), size);
    assert_int_equal(ts_recorder_frame_count(rec), 1);
    assert_ok(ts_recorder_close(rec));
    assert_ok(ts_recorder_close(NULL));
    ts_destroy_world(other);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crash_leaves_readable_prefix), /* first: forks before any world exists */
        cmocka_unit_test(test_replay_matches_world),
        cmocka_unit_test(test_contacts_written_once),
        cmocka_unit_test(test_outlines_written),
        cmocka_unit_test(test_destroyed_body_removed),
        cmocka_unit_test(test_create_bad_input),
        cmocka_unit_test(test_calls_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* libFuzzer driver over the public API (issue 21): each input is a program
 * of calls, one byte choosing the call and the bytes after it its
 * arguments: create and destroy worlds, bodies, shapes and joints (with
 * live, stale and null ids and extreme numbers), setters, forces,
 * impulses, steps with random dt, thread counts and solvers, and piles of
 * up to 240 bodies so that the parallel paths run.
 *
 * After each call it checks what the API promises:
 * - a refused call (other than a step) changed nothing: the state of every
 *   body the driver knows (pose and velocities, through the getters) hashes
 *   the same before and after;
 * - every live body's pose and velocities are finite.
 * A broken promise aborts, which libFuzzer reports as a crash; ASan and
 * UBSan (the build's flags) catch memory errors and undefined behaviour.
 *
 * Build: cmake -DCMAKE_C_COMPILER=clang -DTESSERA_FUZZ=ON, then run
 * build/tests/fuzz/fuzz_api tests/fuzz/corpus -max_total_time=120. To read
 * a crash input: FUZZ_TRACE=1 build/tests/fuzz/fuzz_api crash-... prints
 * every call with its result and the first non-finite value. */
#include "tessera/tessera.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_BODIES = 256, MAX_SHAPES = 256, MAX_JOINTS = 64 };

/* The bytes of one input, read front to back; zeros once they run out. */
typedef struct reader {
    const uint8_t *data;
    size_t size, at;
} reader;

static uint8_t next_byte(reader *r) { return r->at < r->size ? r->data[r->at++] : 0; }

/* A float: often a plain number, sometimes an extreme one (0, denormal,
 * 1e20, FLT_MAX, inf, NaN, negatives), sometimes raw bits. */
static float next_float(reader *r)
{
    static const float extremes[] = {0.0f, -0.0f, 1e-45f, 1e-30f, 1e-6f, 0.5f, 1.0f, 100.0f, 1e4f, 1e6f,
                                     1e20f, 1e30f, 3e38f, FLT_MAX, INFINITY, NAN};
    uint8_t kind = next_byte(r);
    if (kind < 128) {
        return ((float)next_byte(r) - 128.0f) / 16.0f; /* -8 .. 8 */
    }
    if (kind < 224) {
        float e = extremes[kind % 16];
        return (kind & 16) ? -e : e;
    }
    uint32_t bits = (uint32_t)next_byte(r) | (uint32_t)next_byte(r) << 8 | (uint32_t)next_byte(r) << 16 |
                    (uint32_t)next_byte(r) << 24;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static ts_vec3 next_vec3(reader *r) { return (ts_vec3){next_float(r), next_float(r), next_float(r)}; }

/* A rotation: mostly identity or a unit quaternion, sometimes raw floats. */
static ts_quat next_quat(reader *r)
{
    uint8_t kind = next_byte(r);
    if (kind < 160) {
        return (ts_quat){0, 0, 0, 1};
    }
    return (ts_quat){next_float(r), next_float(r), next_float(r), next_float(r)};
}

/* What the driver knows: one world at a time and the ids it made (some
 * stale after a destroy: they stay in the lists on purpose). */
typedef struct fuzz_state {
    ts_world_id world;
    ts_body_id bodies[MAX_BODIES];
    int body_count;
    ts_shape_id shapes[MAX_SHAPES];
    int shape_count;
    ts_joint_id joints[MAX_JOINTS];
    int joint_count;
} fuzz_state;

static ts_body_id pick_body(fuzz_state *s, reader *r)
{
    uint8_t b = next_byte(r);
    if (s->body_count == 0 || b == 255) {
        return TS_NULL_BODY_ID;
    }
    return s->bodies[b % s->body_count];
}

static ts_shape_id pick_shape(fuzz_state *s, reader *r)
{
    uint8_t b = next_byte(r);
    return s->shape_count == 0 ? TS_NULL_SHAPE_ID : s->shapes[b % s->shape_count];
}

static void add_body(fuzz_state *s, ts_body_id id)
{
    if (!ts_body_id_is_null(id) && s->body_count < MAX_BODIES) {
        s->bodies[s->body_count++] = id;
    }
}

static void add_shape(fuzz_state *s, ts_shape_id id)
{
    if (!ts_shape_id_is_null(id) && s->shape_count < MAX_SHAPES) {
        s->shapes[s->shape_count++] = id;
    }
}

static void fail(const char *what, int op)
{
    fprintf(stderr, "fuzz_api: %s (op %d; last error: %s)\n", what, op, ts_last_error());
    fprintf(stderr, "fuzz_api: FUZZ_TRACE=1 prints every call of the input\n");
    abort();
}

/* FNV-1a over the pose and velocities of every live body the driver knows,
 * and whether they are all finite. */
static uint64_t hash_bodies(const fuzz_state *s, bool *finite)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    *finite = true;
    for (int i = 0; i < s->body_count; ++i) {
        float v[13];
        ts_transform t;
        ts_vec3 lin, ang;
        if (ts_body_get_transform(s->bodies[i], &t) != TS_OK || ts_body_get_linear_velocity(s->bodies[i], &lin) != TS_OK ||
            ts_body_get_angular_velocity(s->bodies[i], &ang) != TS_OK) {
            continue; /* stale */
        }
        float values[13] = {t.p.x, t.p.y, t.p.z, t.q.x, t.q.y, t.q.z, t.q.w, lin.x, lin.y, lin.z, ang.x, ang.y, ang.z};
        memcpy(v, values, sizeof v);
        for (int k = 0; k < 13; ++k) {
            if (!isfinite(v[k]) && *finite && getenv("FUZZ_TRACE") != NULL) {
                fprintf(stderr, "body %d of the driver's list (index %u): value %d of pose, velocities is %g\n", i,
                        (unsigned)(s->bodies[i].index1 - 1), k, (double)v[k]);
            }
            *finite = *finite && isfinite(v[k]);
        }
        const uint8_t *bytes = (const uint8_t *)v;
        for (size_t k = 0; k < sizeof v; ++k) {
            hash = (hash ^ bytes[k]) * 0x100000001b3ull;
        }
    }
    return hash;
}

/* A dynamic or other body with one shape of random size at a random place. */
static void make_body(fuzz_state *s, reader *r, ts_vec3 position)
{
    ts_body_def def = ts_default_body_def();
    def.type = (ts_body_type)(next_byte(r) % 4); /* 3 is no type: refused */
    def.position = position;
    def.rotation = next_quat(r);
    if (next_byte(r) > 200) {
        def.linear_velocity = next_vec3(r);
        def.angular_velocity = next_vec3(r);
    }
    ts_body_id body = ts_create_body(s->world, &def);
    add_body(s, body);
    ts_shape_def sd = ts_default_shape_def();
    if (next_byte(r) > 220) {
        sd.local_position = next_vec3(r);
        sd.density = next_float(r);
    }
    uint8_t kind = next_byte(r) % 3;
    float size = next_byte(r) > 230 ? next_float(r) : 0.5f;
    if (kind == 0) {
        ts_sphere sphere = {size};
        add_shape(s, ts_create_sphere_shape(body, &sd, &sphere));
    } else if (kind == 1) {
        ts_box box = {{size, size, size}};
        add_shape(s, ts_create_box_shape(body, &sd, &box));
    } else {
        ts_capsule capsule = {size, 0.5f * size};
        add_shape(s, ts_create_capsule_shape(body, &sd, &capsule));
    }
}

/* A pile of `count` boxes in columns of 8 over a ground box. */
static void make_pile(fuzz_state *s, int count)
{
    ts_body_def ground = ts_default_body_def();
    ground.position = (ts_vec3){0, -1, 0};
    ts_body_id g = ts_create_body(s->world, &ground);
    add_body(s, g);
    ts_shape_def sd = ts_default_shape_def();
    ts_box big = {{40, 1, 40}};
    add_shape(s, ts_create_box_shape(g, &sd, &big));
    for (int i = 0; i < count && s->body_count < MAX_BODIES; ++i) {
        ts_body_def def = ts_default_body_def();
        def.type = TS_BODY_DYNAMIC;
        int column = i / 8;
        def.position = (ts_vec3){(float)(column % 6) * 1.1f - 3.0f, 0.5f + (float)(i % 8), (float)(column / 6) * 1.1f};
        ts_body_id b = ts_create_body(s->world, &def);
        add_body(s, b);
        ts_box box = {{0.5f, 0.5f, 0.5f}};
        ts_create_box_shape(b, &sd, &box); /* not tracked: the shape list stays for the random ones */
    }
}

static void make_joint(fuzz_state *s, reader *r)
{
    ts_joint_def base = {.body_a = pick_body(s, r), .body_b = pick_body(s, r),
                         .local_frame_a = {next_byte(r) > 200 ? next_vec3(r) : (ts_vec3){0, 0, 0}, {0, 0, 0, 1}},
                         .local_frame_b = {{0, 0, 0}, next_quat(r)}};
    ts_joint_id joint = TS_NULL_JOINT_ID;
    switch (next_byte(r) % 5) {
    case 0: {
        ts_ball_joint_def d = ts_default_ball_joint_def();
        d.base = base;
        joint = ts_create_ball_joint(s->world, &d);
        break;
    }
    case 1: {
        ts_hinge_joint_def d = ts_default_hinge_joint_def();
        d.base = base;
        d.enable_motor = true;
        d.motor_speed = next_float(r);
        d.max_motor_torque = next_float(r);
        joint = ts_create_hinge_joint(s->world, &d);
        break;
    }
    case 2: {
        ts_prismatic_joint_def d = ts_default_prismatic_joint_def();
        d.base = base;
        d.enable_spring = true;
        d.spring_hertz = next_float(r);
        joint = ts_create_prismatic_joint(s->world, &d);
        break;
    }
    case 3: {
        ts_distance_joint_def d = ts_default_distance_joint_def();
        d.base = base;
        d.length = next_float(r);
        joint = ts_create_distance_joint(s->world, &d);
        break;
    }
    default: {
        ts_fixed_joint_def d = ts_default_fixed_joint_def();
        d.base = base;
        joint = ts_create_fixed_joint(s->world, &d);
        break;
    }
    }
    if (!ts_joint_id_is_null(joint) && s->joint_count < MAX_JOINTS) {
        s->joints[s->joint_count++] = joint;
    }
}

/* One call chosen by the next byte; returns its result (TS_OK for calls
 * that return ids) and whether it was a step (which may change the world
 * even when it reports an error). */
static ts_result run_call(fuzz_state *s, reader *r, uint8_t op, bool *stepped)
{
    *stepped = false;
    switch (op % 24) {
    case 0: make_body(s, r, next_byte(r) > 200 ? next_vec3(r) : (ts_vec3){(float)(next_byte(r) % 16) - 8.0f, 2, 0});
        return TS_OK;
    case 1: make_pile(s, 16 + next_byte(r) % 225); return TS_OK;
    case 2: make_joint(s, r); return TS_OK;
    case 3: {
        static const float dts[] = {1.0f / 60.0f, 1.0f / 240.0f, 1.0f, 1e-7f, 1e30f, 0.0f, -1.0f, NAN};
        uint8_t k = next_byte(r);
        *stepped = true;
        return ts_world_step(s->world, k < 200 ? dts[0] : dts[k % 8]);
    }
    case 4: *stepped = true; return ts_world_step(s->world, next_float(r));
    case 5: return ts_world_set_threads(s->world, (int)(next_byte(r) % 6) - 1);
    case 6: return ts_world_set_solver(s->world, (ts_solver_type)(next_byte(r) % 3));
    case 7: return ts_world_set_gravity(s->world, next_vec3(r));
    case 8: { /* mostly 1..8: a pile at 64 substeps under ASan took the driver to one input a second */
        static const int rare[] = {-2, -1, 0, 16, 64, 65, 66, 1000};
        uint8_t b = next_byte(r);
        return ts_world_set_substeps(s->world, b < 224 ? 1 + b % 8 : rare[b % 8]);
    }
    case 9: return ts_destroy_body(pick_body(s, r));
    case 10: return ts_destroy_shape(pick_shape(s, r));
    case 11: return s->joint_count ? ts_destroy_joint(s->joints[next_byte(r) % s->joint_count]) : TS_OK;
    case 12: return ts_body_set_linear_velocity(pick_body(s, r), next_vec3(r));
    case 13: return ts_body_set_angular_velocity(pick_body(s, r), next_vec3(r));
    case 14: return ts_body_apply_force(pick_body(s, r), next_vec3(r), next_vec3(r));
    case 15: return ts_body_apply_torque(pick_body(s, r), next_vec3(r));
    case 16: return ts_body_apply_linear_impulse(pick_body(s, r), next_vec3(r), next_vec3(r));
    case 17: return ts_body_apply_angular_impulse(pick_body(s, r), next_vec3(r));
    case 18: return ts_body_set_transform(pick_body(s, r), next_vec3(r), next_quat(r));
    case 19: return ts_body_set_type(pick_body(s, r), (ts_body_type)(next_byte(r) % 4));
    case 20: return ts_shape_set_density(pick_shape(s, r), next_float(r));
    case 21: return ts_body_set_gravity_scale(pick_body(s, r), next_float(r));
    case 22: return ts_body_set_awake(pick_body(s, r), next_byte(r) & 1);
    default: return ts_world_set_speed_limits(s->world, next_float(r), next_float(r));
    }
}

/* After a step: the move events name live bodies with finite poses, at
 * most one entry a body. */
static void check_moves(const fuzz_state *s, int op)
{
    ts_body_moves moves;
    if (ts_world_get_body_moves(s->world, &moves) != TS_OK) {
        fail("the body moves were refused", op);
    }
    for (int k = 0; k < moves.count; ++k) {
        const ts_transform *t = &moves.events[k].transform;
        const float *f = &t->p.x;
        for (int c = 0; c < 3; ++c) {
            if (!isfinite(f[c])) {
                fail("a move event's position is not finite", op);
            }
        }
        if (!ts_body_is_valid(moves.events[k].body)) {
            fail("a move event names a destroyed body", op);
        }
        if (k > 0 && moves.events[k].body.index1 == moves.events[k - 1].body.index1) {
            fail("a body is listed twice in a row", op);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size, 0};
    fuzz_state s = {0};
    bool trace = getenv("FUZZ_TRACE") != NULL; /* FUZZ_TRACE=1: print every call, to read a crash input */
    ts_world_def def = ts_default_world_def();
    uint8_t first = next_byte(&r);
    def.threads = 1 + first % 4;
    s.world = ts_create_world(&def);
    if (ts_world_id_is_null(s.world)) {
        fail("the default world was refused", -1);
    }
    /* the first byte's other bits: the step's optional lists (body moves,
     * hit events, impulse totals), read after every step below */
    if ((first & 4) && ts_world_enable_body_moves(s.world, true) != TS_OK) {
        fail("body moves were refused", -1);
    }
    if ((first & 8) && ts_world_enable_hit_events(s.world, true, 1.0f) != TS_OK) {
        fail("hit events were refused", -1);
    }
    if ((first & 16) && ts_world_enable_contact_impulses(s.world, true) != TS_OK) {
        fail("impulse totals were refused", -1);
    }
    for (int op = 0; op < 256 && r.at < r.size; ++op) {
        bool finite;
        uint64_t before = hash_bodies(&s, &finite);
        bool stepped;
        uint8_t call = next_byte(&r);
        size_t from = r.at;
        ts_result result = run_call(&s, &r, call, &stepped);
        if (trace) {
            fprintf(stderr, "op %d: call %d (%zu argument bytes) -> %d%s%s\n", op, call % 24, r.at - from, (int)result,
                    result != TS_OK ? ": " : "", result != TS_OK ? ts_last_error() : "");
        }
        uint64_t after = hash_bodies(&s, &finite);
        if (result != TS_OK && !stepped && after != before) {
            fail("a refused call changed a body", op);
        }
        if (!finite) {
            fail("a body's state is not finite", op);
        }
        /* a step that ran to its end (a refused one, NOT_FINITE for a bad dt
         * too, keeps the last lists, whose bodies may have been destroyed since) */
        bool ran = stepped && result == TS_OK;
        if (ran && (first & 4)) {
            check_moves(&s, op);
        }
        if (ran && (first & 24)) {
            int count = 0;
            ts_result hits = ts_world_get_hit_events(s.world, NULL, 0, &count);
            ts_result impulses = ts_world_get_contact_impulses(s.world, NULL, 0, &count);
            if (((first & 8) && hits != TS_OK) || ((first & 16) && impulses != TS_OK)) {
                fail("a contact report was refused", op);
            }
        }
    }
    if (ts_destroy_world(s.world) != TS_OK) {
        fail("the world could not be destroyed", -1);
    }
    return 0;
}

/* tessera-solver-table: the quality table of issue 29 (docs/xpbd.md), one
 * column per solver and substep count, one row per set-up:
 *
 *   large_pyramid   scenes.md's, B = 100 (--base), 10 s: the "stands" check
 *                   (every centre at y > 0.4 and |z| < 0.05 at every step, top
 *                   within max(0.1, 0.1 (B/30)^2) m, mean speed < 0.05 m/s)
 *   pyramid_50      the same pyramid at B = 50: top displacement and |z|
 *                   (issue 29 asks XPBD at 8 substeps for a sag below 0.3 m)
 *   many_pyramids   scenes.md's (G = 14, B = 10), 10 s, the same check per
 *                   pyramid (each about its own plane z)
 *   pile            scenes.md's (N = 4,000), 600 steps, its check
 *   ball_chain      a 1,000 kg ball on 30 links of 1 kg, released from the
 *                   horizontal, 5 s: the largest joint gap at any step
 *   heavy_box       a 1,000 kg box (half-extents 1, 0.25, 1) on three 1 kg
 *                   unit boxes, 5 s: the deepest penetration at any step
 *   dominoes        50 dominoes 0.5 m apart, the first tipped: how many fall
 *                   (tilt past 15 degrees) in 30 s
 *   overlap         a B = 10 pyramid started 25% overlapped: the fastest box
 *                   in 2 s (issue 29: below 4 m/s)
 *
 * The set-ups are those of the classic-scene tests (tests/test_mass_ratio.c,
 * test_friction_scenes.c, test_pyramid_plane.c on the issue-20 branch) and
 * tests/test_solver.c, built through the public API only. Every result is
 * the same for every thread count and SIMD width (the solvers' promise), so
 * --threads only changes how long the table takes.
 *
 *   tessera-solver-table [--columns xpbd:4,xpbd:8,soft_step:4] [--rows a,b,...]
 *                        [--threads T] [--width W] [--base B] [--sleep]
 *
 * --sleep turns sleeping on in the rows built here (a new user's default;
 * scenes.md's scenes keep theirs, off). */
#include "build_tessera.h"
#include "scene_defs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DT (1.0f / 60.0f)
#define PI_F 3.14159265358979f

typedef struct column {
    ts_solver_type solver;
    int substeps;
} column;

typedef struct settings {
    int threads;
    int width;
    int base;   /* large_pyramid's B */
    bool sleep; /* sleeping on in the rows built here (scenes.md's scenes keep theirs: off) */
} settings;

typedef struct cell {
    bool pass;
    char text[160];
} cell;

static void die(const char *what)
{
    fprintf(stderr, "tessera-solver-table: %s: %s\n", what, ts_last_error());
    exit(1);
}

static void ok(ts_result r, const char *what)
{
    if (r != TS_OK) {
        die(what);
    }
}

static ts_world_id make_world(const column *c, const settings *s)
{
    ts_world_def def = ts_default_world_def();
    def.substeps = c->substeps;
    def.solver = c->solver;
    def.threads = s->threads;
    def.simd_width = s->width;
    def.enable_sleep = s->sleep;
    ts_world_id world = ts_create_world(&def);
    if (ts_world_id_is_null(world)) {
        die("ts_create_world");
    }
    return world;
}

static ts_body_id box(ts_world_id world, ts_body_type type, ts_vec3 p, ts_quat q, ts_vec3 half, float density)
{
    ts_body_def def = ts_default_body_def();
    def.type = type;
    def.position = p;
    def.rotation = q;
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    shape.density = density;
    shape.friction = 0.6f;
    if (ts_body_id_is_null(body) || ts_shape_id_is_null(ts_create_box_shape(body, &shape, &(ts_box){half}))) {
        die("box");
    }
    return body;
}

static ts_body_id sphere(ts_world_id world, ts_vec3 p, float radius, float density)
{
    ts_body_def def = ts_default_body_def();
    def.type = TS_BODY_DYNAMIC;
    def.position = p;
    ts_body_id body = ts_create_body(world, &def);
    ts_shape_def shape = ts_default_shape_def();
    shape.density = density;
    shape.friction = 0.6f;
    if (ts_body_id_is_null(body) || ts_shape_id_is_null(ts_create_sphere_shape(body, &shape, &(ts_sphere){radius}))) {
        die("sphere");
    }
    return body;
}

static void step(ts_world_id world)
{
    ts_result r = ts_world_step(world, DT);
    if (r != TS_OK && r != TS_ERROR_NOT_FINITE) {
        die("ts_world_step");
    }
}

static float length3(ts_vec3 a) { return sqrtf(a.x * a.x + a.y * a.y + a.z * a.z); }
static ts_vec3 sub3(ts_vec3 a, ts_vec3 b) { return (ts_vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }

static ts_vec3 rotate(ts_quat q, ts_vec3 v)
{
    ts_vec3 t = {2.0f * (q.y * v.z - q.z * v.y), 2.0f * (q.z * v.x - q.x * v.z), 2.0f * (q.x * v.y - q.y * v.x)};
    return (ts_vec3){v.x + q.w * t.x + (q.y * t.z - q.z * t.y), v.y + q.w * t.y + (q.z * t.x - q.x * t.z),
                     v.z + q.w * t.z + (q.x * t.y - q.y * t.x)};
}

static ts_quat axis_angle(ts_vec3 axis, float angle)
{
    float s = sinf(0.5f * angle);
    return (ts_quat){axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle)};
}

/* ---- pyramids in their planes (large_pyramid, pyramid_50, many_pyramids) ---- */

typedef struct plane_check {
    float top_moved;  /* largest top-box displacement of any pyramid at the end */
    float most_z;     /* largest |z - plane z| of any box at any step */
    float lowest;     /* lowest centre y at any step */
    float mean_speed; /* at the end */
    bool finite;
} plane_check;

/* Runs a scene of plane pyramids (groups of desc->group_size bodies, or one
 * group) for `steps` steps, checking every box at every step. */
static plane_check run_plane_pyramids(const scene_desc *d, const column *c, const settings *s, int steps)
{
    tessera_settings ts = {s->threads, c->substeps, 0.0f, s->width, c->solver};
    char error[256];
    ts_world_id world = tessera_create_world(d, &ts, error, sizeof error);
    ts_body_id *bodies = malloc(sizeof(ts_body_id) * (size_t)d->body_count);
    if (ts_world_id_is_null(world) || !tessera_build_scene(world, d, bodies, error, sizeof error)) {
        fprintf(stderr, "tessera-solver-table: %s\n", error);
        exit(1);
    }
    int first = d->first_dynamic, count = d->body_count - first;
    ts_transform *poses = malloc(sizeof(ts_transform) * (size_t)count);
    plane_check r = {0.0f, 0.0f, INFINITY, 0.0f, true};
    for (int i = 0; i < steps; ++i) {
        step(world);
        ok(ts_world_get_body_transforms(world, bodies + first, count, poses), "transforms");
        for (int k = 0; k < count; ++k) {
            float z = poses[k].p.z - d->bodies[first + k].position.z;
            r.finite = r.finite && isfinite(poses[k].p.x) && isfinite(poses[k].p.y) && isfinite(z);
            r.most_z = fmaxf(r.most_z, fabsf(z));
            r.lowest = fminf(r.lowest, poses[k].p.y);
        }
    }
    int size = d->group_size > 0 ? d->group_size : count;
    for (int g = first; g + size <= d->body_count; g += size) {
        int top = g + size - 1;
        ts_vec3 start = {d->bodies[top].position.x, d->bodies[top].position.y, d->bodies[top].position.z};
        r.top_moved = fmaxf(r.top_moved, length3(sub3(poses[top - first].p, start)));
    }
    double speed = 0.0;
    for (int k = 0; k < count; ++k) {
        ts_vec3 v;
        ok(ts_body_get_linear_velocity(bodies[first + k], &v), "velocity");
        speed += length3(v);
    }
    r.mean_speed = (float)(speed / count);
    r.finite = r.finite && isfinite(r.mean_speed);
    ok(ts_destroy_world(world), "destroy");
    free(poses);
    free(bodies);
    return r;
}

static void plane_cell(const plane_check *r, float top_bound, cell *out)
{
    bool stands = r->finite && r->lowest > 0.4f && r->most_z < 0.05f && r->top_moved < top_bound &&
                  r->mean_speed < 0.05f;
    out->pass = stands;
    snprintf(out->text, sizeof out->text, "%s: top %.3g m, |z| %.3g, min y %.3g, v %.3g", stands ? "stands" : "FAILS",
             (double)r->top_moved, (double)r->most_z, (double)r->lowest, (double)r->mean_speed);
}

static void row_pyramid_of(int base, float top_bound, const column *c, const settings *s, cell *out)
{
    scene_desc d;
    scene_desc_init(&d);
    scene_params p = {.base = base};
    scene_define_large_pyramid(&p, &d);
    plane_check r = run_plane_pyramids(&d, c, s, 600);
    plane_cell(&r, top_bound, out);
    scene_desc_free(&d);
}

static void row_large_pyramid(const column *c, const settings *s, cell *out)
{
    float b = (float)s->base / 30.0f;
    row_pyramid_of(s->base, fmaxf(0.1f, 0.1f * b * b), c, s, out);
}

/* issue 29: XPBD at 8 substeps sags less than 0.3 m at B = 50 */
static void row_pyramid_50(const column *c, const settings *s, cell *out) { row_pyramid_of(50, 0.3f, c, s, out); }

static void row_many_pyramids(const column *c, const settings *s, cell *out)
{
    scene_desc d;
    scene_desc_init(&d);
    scene_params p = {.base = 10, .grid = 14};
    scene_define_many_pyramids(&p, &d);
    plane_check r = run_plane_pyramids(&d, c, s, 600);
    plane_cell(&r, 0.1f, out);
    scene_desc_free(&d);
}

/* ---- pile ---- */

static void row_pile(const column *c, const settings *s, cell *out)
{
    scene_desc d;
    scene_desc_init(&d);
    scene_params p = {.count = 4000};
    scene_define_pile(&p, &d);
    tessera_settings ts = {s->threads, c->substeps, 0.0f, s->width, c->solver};
    char error[256];
    ts_world_id world = tessera_create_world(&d, &ts, error, sizeof error);
    ts_body_id *bodies = malloc(sizeof(ts_body_id) * (size_t)d.body_count);
    if (ts_world_id_is_null(world) || !tessera_build_scene(world, &d, bodies, error, sizeof error)) {
        fprintf(stderr, "tessera-solver-table: %s\n", error);
        exit(1);
    }
    for (int i = 0; i < 600; ++i) {
        step(world);
    }
    int outside = 0, below = 0, count = 0;
    double speed = 0.0;
    bool finite = true;
    for (int k = d.first_dynamic; k < d.body_count; ++k) {
        ts_vec3 pos, v;
        ok(ts_body_get_position(bodies[k], &pos), "position");
        ok(ts_body_get_linear_velocity(bodies[k], &v), "velocity");
        finite = finite && isfinite(pos.x) && isfinite(pos.y) && isfinite(pos.z) && isfinite(length3(v));
        outside += fabsf(pos.x) >= 10.0f || fabsf(pos.z) >= 10.0f;
        below += pos.y <= 0.0f;
        speed += length3(v);
        ++count;
    }
    float mean = (float)(speed / count);
    out->pass = finite && below == 0 && outside <= 10 && mean < 0.1f;
    snprintf(out->text, sizeof out->text, "%s: %d outside, %d below, v %.3g", out->pass ? "passes" : "FAILS", outside,
             below, (double)mean);
    ok(ts_destroy_world(world), "destroy");
    free(bodies);
    scene_desc_free(&d);
}

/* ---- the 1,000:1 ball and chain ---- */

static ts_joint_id ball_joint(ts_world_id world, ts_body_id a, ts_body_id b, ts_vec3 local_a, ts_vec3 local_b)
{
    ts_ball_joint_def def = ts_default_ball_joint_def();
    def.base.body_a = a;
    def.base.body_b = b;
    def.base.local_frame_a.p = local_a;
    def.base.local_frame_b.p = local_b;
    ts_joint_id joint = ts_create_ball_joint(world, &def);
    if (ts_joint_id_is_null(joint)) {
        die("ts_create_ball_joint");
    }
    return joint;
}

/* Links of 0.1 x 1 x 0.1 m at 100 kg/m^3 (1 kg) from a static pivot, laid
 * out along -x, the 1,000 kg ball (radius 0.5) at the far end; released from
 * the horizontal, 5 s (the bottom of the swing, ~3 M g on each joint, at
 * ~3.3 s). Issue 29: every gap below 0.1 m. */
static void row_ball_chain(const column *c, const settings *s, cell *out)
{
    ts_world_id world = make_world(c, s);
    ts_body_id previous = box(world, TS_BODY_STATIC, (ts_vec3){0, 40, 0}, (ts_quat){0, 0, 0, 1},
                              (ts_vec3){0.05f, 0.05f, 0.05f}, 1);
    ts_joint_id joints[31];
    ts_quat q = axis_angle((ts_vec3){0, 0, 1}, -0.5f * PI_F);
    for (int k = 0; k < 30; ++k) {
        ts_body_id link = box(world, TS_BODY_DYNAMIC, (ts_vec3){-0.5f - (float)k, 40, 0}, q,
                              (ts_vec3){0.05f, 0.5f, 0.05f}, 100.0f);
        joints[k] = ball_joint(world, previous, link, k == 0 ? (ts_vec3){0, 0, 0} : (ts_vec3){0, -0.5f, 0},
                               (ts_vec3){0, 0.5f, 0});
        previous = link;
    }
    ts_body_id heavy = sphere(world, (ts_vec3){-30.5f, 40, 0}, 0.5f, 1000.0f / (4.0f / 3.0f * PI_F * 0.125f));
    joints[30] = ball_joint(world, previous, heavy, (ts_vec3){0, -0.5f, 0}, (ts_vec3){0.5f, 0, 0});
    float worst = 0.0f, rest = 0.0f;
    for (int i = 0; i < 300; ++i) {
        step(world);
        float now = 0.0f;
        for (int k = 0; k < 31; ++k) {
            ts_vec3 a, b;
            ok(ts_joint_get_world_anchors(joints[k], &a, &b), "anchors");
            float gap = length3(sub3(a, b));
            worst = isfinite(gap) ? fmaxf(worst, gap) : INFINITY;
            now = fmaxf(now, gap);
        }
        rest = now;
    }
    out->pass = worst < 0.1f;
    snprintf(out->text, sizeof out->text, "gap %.3g m (at 5 s %.3g m)", (double)worst, (double)rest);
    ok(ts_destroy_world(world), "destroy");
}

/* ---- the 1,000 kg box on three 1 kg boxes ---- */

/* Lowest and highest corner y of a box. */
static void y_range(ts_body_id body, ts_vec3 half, float *low, float *high)
{
    ts_transform t;
    ok(ts_body_get_transform(body, &t), "transform");
    float reach = 0.0f;
    ts_vec3 axes[3] = {{half.x, 0, 0}, {0, half.y, 0}, {0, 0, half.z}};
    for (int i = 0; i < 3; ++i) {
        reach += fabsf(rotate(t.q, axes[i]).y);
    }
    *low = t.p.y - reach;
    *high = t.p.y + reach;
}

/* Three unit boxes on the ground along x, 10 cm apart, under the heavy box
 * centred over the middle one; 5 s. Penetration: the highest corner of any
 * light box less the lowest corner of the heavy box, and a light box's
 * lowest corner below the ground, at every step. Issue 29: below 5 cm, the
 * heavy box staying on (centre above y = 1, within 5 cm of x = z = 0). */
static void row_heavy_box(const column *c, const settings *s, cell *out)
{
    ts_world_id world = make_world(c, s);
    box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, (ts_quat){0, 0, 0, 1}, (ts_vec3){50, 1, 50}, 1);
    ts_vec3 unit = {0.5f, 0.5f, 0.5f}, heavy_half = {1.0f, 0.25f, 1.0f};
    ts_body_id light[3];
    for (int i = 0; i < 3; ++i) {
        light[i] = box(world, TS_BODY_DYNAMIC, (ts_vec3){1.1f * (float)(i - 1), 0.5f, 0}, (ts_quat){0, 0, 0, 1}, unit, 1);
    }
    ts_body_id heavy = box(world, TS_BODY_DYNAMIC, (ts_vec3){0, 1.25f, 0}, (ts_quat){0, 0, 0, 1}, heavy_half, 500.0f);
    float on_light = 0.0f, on_ground = 0.0f, lowest = INFINITY, drift = 0.0f;
    for (int i = 0; i < 300; ++i) {
        step(world);
        float low, high, top = -INFINITY;
        y_range(heavy, heavy_half, &low, &high);
        for (int k = 0; k < 3; ++k) {
            float l, h;
            y_range(light[k], unit, &l, &h);
            top = fmaxf(top, h);
            on_ground = fmaxf(on_ground, -l);
        }
        on_light = fmaxf(on_light, top - low);
        ts_vec3 p;
        ok(ts_body_get_position(heavy, &p), "position");
        lowest = fminf(lowest, p.y);
        drift = fmaxf(drift, sqrtf(p.x * p.x + p.z * p.z));
    }
    bool on = lowest > 1.0f && drift < 0.05f;
    float deepest = fmaxf(on_light, on_ground);
    out->pass = on && deepest < 0.05f;
    snprintf(out->text, sizeof out->text, "%s: %.3g m deep (ground %.3g), centre down %.3g", on ? "stays" : "FALLS OFF",
             (double)on_light, (double)on_ground, (double)(1.25f - lowest));
    ok(ts_destroy_world(world), "destroy");
}

/* ---- dominoes ---- */

#define DOMINOES 50

/* 0.1 x 1 x 0.5 m dominoes of 5 kg, 0.5 m apart along x; the first starts
 * tipped 8 degrees onto its front bottom edge, past its tipping angle
 * (5.7), so gravity alone starts the wave. A domino has fallen once it tilts
 * past 15 degrees; 30 s (the wave takes ~10-15 s). */
static void row_dominoes(const column *c, const settings *s, cell *out)
{
    ts_world_id world = make_world(c, s);
    box(world, TS_BODY_STATIC, (ts_vec3){20, -1, 0}, (ts_quat){0, 0, 0, 1}, (ts_vec3){50, 1, 50}, 1);
    ts_vec3 half = {0.05f, 0.5f, 0.25f};
    ts_body_id row[DOMINOES];
    const float tip = 8.0f * PI_F / 180.0f;
    for (int i = 0; i < DOMINOES; ++i) {
        ts_vec3 p = {(float)i * 0.5f, half.y, 0};
        ts_quat q = {0, 0, 0, 1};
        if (i == 0) {
            q = axis_angle((ts_vec3){0, 0, 1}, -tip);
            p.x = half.x - half.x * cosf(tip) + half.y * sinf(tip);
            p.y = half.x * sinf(tip) + half.y * cosf(tip);
        }
        row[i] = box(world, TS_BODY_DYNAMIC, p, q, half, 100);
    }
    int fallen = 0;
    float last_at = 0.0f;
    for (int i = 0; i < 1800 && fallen < DOMINOES; ++i) {
        step(world);
        while (fallen < DOMINOES) {
            ts_quat q;
            ok(ts_body_get_rotation(row[fallen], &q), "rotation");
            if (!(rotate(q, (ts_vec3){0, 1, 0}).y < cosf(15.0f * PI_F / 180.0f))) {
                break;
            }
            fallen += 1;
            last_at = (float)(i + 1) * DT;
        }
    }
    out->pass = fallen == DOMINOES;
    snprintf(out->text, sizeof out->text, "%d of %d fall in order (last at %.1f s)", fallen, DOMINOES, (double)last_at);
    ok(ts_destroy_world(world), "destroy");
}

/* ---- overlapped pyramid ---- */

/* tests/test_solver.c's overlap recovery: a B = 10 pyramid whose boxes
 * overlap their neighbours by 25% of their size; the fastest box velocity in
 * 2 s. Issue 29: below 4 m/s. */
static void row_overlap(const column *c, const settings *s, cell *out)
{
    ts_world_id world = make_world(c, s);
    box(world, TS_BODY_STATIC, (ts_vec3){0, -1, 0}, (ts_quat){0, 0, 0, 1}, (ts_vec3){400, 1, 400}, 1);
    const float h = 0.5f, overlap = 0.25f, stride = 2.0f * h * (1.0f - overlap);
    ts_body_id boxes[55];
    int n = 0;
    for (int r = 0; r < 10; ++r) {
        for (int j = r; j < 10; ++j) {
            float x = ((float)(r + 1) * h + 2.0f * (float)(j - r) * h - 10.0f * h) * (1.0f - overlap);
            boxes[n++] = box(world, TS_BODY_DYNAMIC, (ts_vec3){x, h + (float)r * stride, 0}, (ts_quat){0, 0, 0, 1},
                             (ts_vec3){h, h, h}, 100);
        }
    }
    float fastest = 0.0f;
    for (int i = 0; i < 120; ++i) {
        step(world);
        for (int k = 0; k < n; ++k) {
            ts_vec3 v;
            ok(ts_body_get_linear_velocity(boxes[k], &v), "velocity");
            fastest = isfinite(length3(v)) ? fmaxf(fastest, length3(v)) : INFINITY;
        }
    }
    ts_vec3 top;
    ok(ts_body_get_position(boxes[n - 1], &top), "position");
    out->pass = fastest < 4.0f;
    snprintf(out->text, sizeof out->text, "%.3g m/s (top at y %.2f)", (double)fastest, (double)top.y);
    ok(ts_destroy_world(world), "destroy");
}

/* ---- the table ---- */

typedef void row_fn(const column *c, const settings *s, cell *out);

typedef struct row {
    const char *name;
    const char *label;
    row_fn *run;
} row;

static const row rows[] = {
    {"large_pyramid", "large_pyramid B = 100, 10 s", row_large_pyramid},
    {"pyramid_50", "single-plane pyramid B = 50, 10 s", row_pyramid_50},
    {"many_pyramids", "many_pyramids (196 x B = 10), 10 s", row_many_pyramids},
    {"pile", "pile (4,000), 10 s", row_pile},
    {"ball_chain", "1,000:1 ball on 30 links (largest gap)", row_ball_chain},
    {"heavy_box", "1,000 kg box on three 1 kg boxes", row_heavy_box},
    {"dominoes", "dominoes", row_dominoes},
    {"overlap", "overlapped pyramid (fastest box)", row_overlap},
};
#define ROW_COUNT ((int)(sizeof rows / sizeof rows[0]))

static bool listed(const char *list, const char *name)
{
    if (list == NULL) {
        return true;
    }
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) {
            return true;
        }
        p += len + (end != NULL);
    }
    return false;
}

static int parse_columns(const char *text, column *columns, int capacity)
{
    int count = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", text);
    for (char *item = strtok(copy, ","); item != NULL && count < capacity; item = strtok(NULL, ",")) {
        char *colon = strchr(item, ':');
        if (colon == NULL) {
            return -1;
        }
        *colon = '\0';
        int solver = tessera_solver_from_name(item);
        int substeps = atoi(colon + 1);
        if (solver < 0 || substeps < 1) {
            return -1;
        }
        columns[count++] = (column){(ts_solver_type)solver, substeps};
    }
    return count;
}

int main(int argc, char **argv)
{
    settings s = {2, 0, 100, false};
    const char *row_list = NULL;
    column columns[8];
    int column_count = parse_columns("xpbd:4,xpbd:8,soft_step:4", columns, 8);
    for (int i = 1; i < argc; ++i) {
        const char *value = i + 1 < argc ? argv[i + 1] : "";
        if (strcmp(argv[i], "--columns") == 0) {
            column_count = parse_columns(value, columns, 8);
        } else if (strcmp(argv[i], "--rows") == 0) {
            row_list = value;
        } else if (strcmp(argv[i], "--threads") == 0) {
            s.threads = atoi(value);
        } else if (strcmp(argv[i], "--width") == 0) {
            s.width = atoi(value);
        } else if (strcmp(argv[i], "--base") == 0) {
            s.base = atoi(value);
        } else if (strcmp(argv[i], "--sleep") == 0) {
            s.sleep = true;
            continue;
        } else {
            fprintf(stderr, "usage: tessera-solver-table [--columns xpbd:4,xpbd:8,soft_step:4] [--rows a,b,...] "
                            "[--threads T] [--width W] [--base B] [--sleep]\nrows:");
            for (int r = 0; r < ROW_COUNT; ++r) {
                fprintf(stderr, " %s", rows[r].name);
            }
            fprintf(stderr, "\n");
            return 2;
        }
        ++i;
    }
    if (column_count <= 0) {
        fprintf(stderr, "tessera-solver-table: --columns takes solver:substeps,... (soft_step or xpbd)\n");
        return 2;
    }
    printf("| set-up |");
    for (int k = 0; k < column_count; ++k) {
        printf(" %s, %d |", tessera_solver_name(columns[k].solver), columns[k].substeps);
    }
    printf("\n| --- |");
    for (int k = 0; k < column_count; ++k) {
        printf(" --- |");
    }
    printf("\n");
    fflush(stdout);
    int failed = 0;
    for (int r = 0; r < ROW_COUNT; ++r) {
        if (!listed(row_list, rows[r].name)) {
            continue;
        }
        printf("| %s |", rows[r].label);
        fflush(stdout);
        for (int k = 0; k < column_count; ++k) {
            cell out = {false, ""};
            rows[r].run(&columns[k], &s, &out);
            failed += !out.pass;
            printf(" %s%s |", out.text, out.pass ? "" : " (x)");
            fflush(stdout);
        }
        printf("\n");
    }
    printf("(x): misses issue 29's bound for that row\n");
    return 0;
}

/* tessera_run (run_tessera.h). */
#include "run_tessera.h"

#include "bench_report.h"
#include "bench_timing.h"
#include "state_hash.h"
#include "tessera/recorder.h"
#include "world_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every field of ts_step_profile, in order. When the library adds a stage,
 * add it here: the static assertion below fails until the list is complete. */
#define TESSERA_PROFILE_FIELDS(X)                                                                              \
    X(step) X(update_pairs) X(narrowphase) X(prepare) X(integrate_velocities) X(warm_start) X(solve)          \
    X(integrate_positions) X(relax) X(restitution) X(store_impulses) X(finalize) X(sleep)

#define PROFILE_COUNT_FIELD(name) +1
_Static_assert(sizeof(ts_step_profile) == (0 TESSERA_PROFILE_FIELDS(PROFILE_COUNT_FIELD)) * sizeof(double),
               "ts_step_profile changed: list every one of its fields in TESSERA_PROFILE_FIELDS");

static void profile_add(ts_step_profile *sum, const ts_step_profile *p)
{
#define PROFILE_ADD_FIELD(name) sum->name += p->name;
    TESSERA_PROFILE_FIELDS(PROFILE_ADD_FIELD)
}

static void profile_report(bench_result *r, const ts_step_profile *sum, int steps)
{
#define PROFILE_REPORT_FIELD(name) bench_add_stage(r, #name, sum->name / steps);
    TESSERA_PROFILE_FIELDS(PROFILE_REPORT_FIELD)
}

/* The quality checks that hold at every step see each step's body centres
 * (read after the step, outside its timing). */
typedef struct step_tracker {
    bool on;
    const scene_desc *desc;
    const ts_body_id *bodies;
    ts_transform *transforms;
    scene_vec3 *positions;
    quality_track track;
} step_tracker;

static void track_step(ts_world_id world, step_tracker *t)
{
    int n = t->desc->body_count;
    if (!t->on || n == 0 || ts_world_get_body_transforms(world, t->bodies, n, t->transforms) != TS_OK) {
        return;
    }
    for (int i = 0; i < n; ++i) {
        t->positions[i] = (scene_vec3){t->transforms[i].p.x, t->transforms[i].p.y, t->transforms[i].p.z};
    }
    quality_track_step(&t->track, t->desc, t->positions);
}

/* --record: the recorder of this run, and the time its frames took. */
typedef struct run_recording {
    ts_recorder *recorder; /* NULL when not recording */
    double ms;             /* spent in ts_recorder_frame during the timed steps */
    bool timing;
} run_recording;

/* One frame of the replay; a failure is said once and ends the recording
 * (the file keeps the frames before it). */
static void record_frame(run_recording *rec)
{
    if (rec->recorder == NULL) {
        return;
    }
    double start = bench_now_ms();
    ts_result result = ts_recorder_frame(rec->recorder);
    rec->ms += rec->timing ? bench_now_ms() - start : 0.0;
    if (result != TS_OK) {
        fprintf(stderr, "tessera-bench: --record: %s\n", ts_recorder_last_error());
        ts_recorder_close(rec->recorder);
        rec->recorder = NULL;
    }
}

static void step_once(ts_world_id world, bench_result *r, run_recording *rec)
{
    ts_result result = ts_world_step(world, BENCH_DT);
    r->total_steps += 1;
    if (result != TS_OK && r->step_errors++ == 0) {
        snprintf(r->error, sizeof(r->error), "step %d: %s", r->total_steps, ts_last_error());
    }
    record_frame(rec);
}

static void start_result(const scene_info *scene, const scene_params *params, const tessera_run_config *c, int run,
                         bench_result *r)
{
    memset(r, 0, sizeof(*r));
    r->engine = "tessera";
    r->version = TS_VERSION_STRING;
    r->compiler = BENCH_COMPILER;
    r->simd = "scalar";
    r->width = c->settings.width;
    r->solver = c->collide_only ? "none (collide only)" : tessera_solver_name(c->settings.solver);
    r->substeps = c->settings.substeps;
    r->contact_hertz = c->settings.contact_hertz;
    r->iterations = c->collide_only ? 0 : 1; /* soft step: one solve and one relax pass per substep */
    r->scene = scene;
    r->params = *params;
    r->collide_only = c->collide_only;
    r->run = run;
    r->warmup_steps = scene->warmup_steps;
    r->steps = c->steps > 0 ? c->steps : scene->timed_steps;
}

/* Counters after the last timed step: contacts, colours, overflow. */
static void read_counters(ts_world_id world, bench_result *r)
{
    ts_world_counters counters;
    ts_world_get_counters(world, &counters);
    r->threads = counters.thread_count;
    r->contact_pairs = counters.contact_count;
    r->touching = counters.touching_count;
    r->contact_points = counters.point_count;
#ifdef TS_COLOR_COUNT
    r->color_count = TS_COLOR_COUNT < BENCH_MAX_COLORS ? TS_COLOR_COUNT : BENCH_MAX_COLORS;
    for (int c = 0; c < r->color_count; ++c) {
        r->colors[c] = counters.color_counts[c];
    }
    r->overflow = counters.overflow_count;
#endif
}

/* Warm-up, then the timed steps: step times and the mean of each stage. */
static void time_steps(ts_world_id world, bench_result *r, step_tracker *t, run_recording *rec)
{
    double first_pairs = -1.0;
    ts_step_profile p, sum = {0};
    for (int i = 0; i < r->warmup_steps; ++i) {
        step_once(world, r, rec);
        track_step(world, t);
        ts_world_get_profile(world, &p);
        first_pairs = first_pairs < 0.0 ? p.update_pairs : first_pairs;
    }
    rec->timing = true;
    double *times = malloc(sizeof(double) * (size_t)r->steps);
    int64_t warm_allocations = world_memory_read().allocations;
    for (int i = 0; i < r->steps; ++i) {
        double start = bench_now_ms();
        step_once(world, r, rec);
        times[i] = bench_now_ms() - start;
        r->ms_mean += times[i] / r->steps;
        r->ms_max = times[i] > r->ms_max ? times[i] : r->ms_max;
        track_step(world, t);
        ts_world_get_profile(world, &p);
        first_pairs = first_pairs < 0.0 ? p.update_pairs : first_pairs;
        profile_add(&sum, &p);
    }
    r->ms_median = bench_median(times, r->steps);
    free(times);
    rec->timing = false;
    if (rec->recorder != NULL) {
        bench_add_extra(r, "record_ms", rec->ms / r->steps);
    }
    profile_report(r, &sum, r->steps);
    bench_add_extra(r, "first_step_update_pairs_ms", first_pairs);
    /* The world's memory after the timed steps (its allocator is the bench's,
     * world_memory.h), and the allocations the timed steps made (none is the
     * rule after warm-up). */
    world_memory m = world_memory_read();
    bench_add_extra(r, "world_bytes", (double)m.live_bytes);
    bench_add_extra(r, "world_peak_bytes", (double)m.peak_bytes);
    bench_add_extra(r, "bytes_per_body", r->bodies > 0 ? (double)m.live_bytes / r->bodies : 0.0);
    bench_add_extra(r, "timed_step_allocations", (double)(m.allocations - warm_allocations));
}

/* Median step time of an empty world (the scene's ground only) with the
 * same settings (sleep_field). */
static double empty_world_ms(const scene_desc *desc, const tessera_run_config *c, int steps)
{
    scene_desc empty;
    scene_desc_static_part(desc, &empty);
    char error[160];
    ts_world_id world = tessera_create_world(&empty, &c->settings, error, sizeof(error));
    ts_body_id *bodies = malloc(sizeof(ts_body_id) * (size_t)(empty.body_count > 0 ? empty.body_count : 1));
    bool built = !ts_world_id_is_null(world) && tessera_build_scene(world, &empty, bodies, error, sizeof(error));
    free(bodies);
    scene_desc_free(&empty);
    if (!built) {
        if (!ts_world_id_is_null(world)) {
            ts_destroy_world(world);
        }
        return 0.0;
    }
    double *times = malloc(sizeof(double) * (size_t)steps);
    for (int i = 0; i < steps; ++i) {
        double start = bench_now_ms();
        ts_world_step(world, BENCH_DT);
        times[i] = bench_now_ms() - start;
    }
    double median = bench_median(times, steps);
    free(times);
    ts_destroy_world(world);
    return median;
}

static void read_states(const ts_body_id *bodies, int count, body_state *states)
{
    for (int i = 0; i < count; ++i) {
        ts_transform t;
        ts_vec3 v, w;
        ts_body_get_transform(bodies[i], &t);
        ts_body_get_linear_velocity(bodies[i], &v);
        ts_body_get_angular_velocity(bodies[i], &w);
        states[i] = (body_state){{t.p.x, t.p.y, t.p.z}, {t.q.x, t.q.y, t.q.z, t.q.w}, {v.x, v.y, v.z}, {w.x, w.y, w.z}};
    }
}

/* Steps on to the check's step, then takes the scene's quality check. */
static void take_quality(ts_world_id world, const scene_desc *desc, const ts_body_id *bodies,
                         const tessera_run_config *c, bench_result *r, step_tracker *t, run_recording *rec)
{
    while (r->total_steps < r->scene->quality_steps) {
        step_once(world, r, rec);
        track_step(world, t);
    }
    ts_world_counters counters;
    ts_world_get_counters(world, &counters);
    body_state *states = malloc(sizeof(body_state) * (size_t)(desc->body_count > 0 ? desc->body_count : 1));
    read_states(bodies, desc->body_count, states);
    quality_input in = {.desc = desc,
                        .track = t->on ? &t->track : NULL,
                        .states = states,
                        .steps = r->total_steps,
                        .dt = BENCH_DT,
                        .awake_count = counters.awake_body_count,
                        .ms_step = r->ms_median,
                        .ms_empty_step = r->scene->empty_world_reference ? empty_world_ms(desc, c, r->steps) : 0.0};
    r->scene->quality(&in, &r->quality);
    free(states);
}

/* --record: the replay file, every body of the scene, and the start as frame 0. */
static bool start_recording(ts_world_id world, const ts_body_id *bodies, int count, const tessera_run_config *c,
                            bench_result *r, run_recording *rec)
{
    if (c->record_path == NULL) {
        return true;
    }
    ts_recorder_def def = ts_default_recorder_def();
    def.dt = BENCH_DT;
    def.contacts = c->record_contacts;
    if (ts_recorder_create(world, c->record_path, &def, &rec->recorder) != TS_OK ||
        ts_recorder_add_bodies(rec->recorder, bodies, count) != TS_OK) {
        snprintf(r->error, sizeof(r->error), "--record: %s", ts_recorder_last_error());
        ts_recorder_close(rec->recorder);
        rec->recorder = NULL;
        return false;
    }
    record_frame(rec);
    return true;
}

static void finish_recording(const tessera_run_config *c, run_recording *rec)
{
    if (rec->recorder != NULL) {
        int frames = ts_recorder_frame_count(rec->recorder);
        if (ts_recorder_close(rec->recorder) == TS_OK) {
            fprintf(stderr, "tessera-bench: recorded %d frames to %s\n", frames, c->record_path);
        } else {
            fprintf(stderr, "tessera-bench: --record: %s\n", ts_recorder_last_error());
        }
    }
}

static bool run_world(ts_world_id world, const scene_desc *desc, const tessera_run_config *c, bench_result *r)
{
    ts_body_id *bodies = malloc(sizeof(ts_body_id) * (size_t)(desc->body_count > 0 ? desc->body_count : 1));
    bool built = tessera_build_scene(world, desc, bodies, r->error, sizeof(r->error));
    size_t n = (size_t)(desc->body_count > 0 ? desc->body_count : 1);
    step_tracker t = {c->quality && !c->collide_only, desc, bodies, malloc(sizeof(ts_transform) * n),
                      malloc(sizeof(scene_vec3) * n), {0}};
    quality_track_reset(&t.track);
    run_recording rec = {0};
    built = built && start_recording(world, bodies, desc->body_count, c, r, &rec);
    if (built) {
        r->simd = tessera_simd_path(world);
        r->width = tessera_width(world);
        time_steps(world, r, &t, &rec);
        read_counters(world, r);
        if (t.on) {
            take_quality(world, desc, bodies, c, r, &t, &rec);
        }
        r->state_hash = state_hash_tessera(bodies, desc->body_count);
    }
    finish_recording(c, &rec);
    free(t.transforms);
    free(t.positions);
    free(bodies);
    return built;
}

bool tessera_run(const scene_info *scene, const scene_params *params, const tessera_run_config *c, int run,
                 bench_result *r)
{
    start_result(scene, params, c, run, r);
    scene_desc desc;
    scene_describe(scene, params, &desc);
    if (c->edit_scene != NULL) {
        c->edit_scene(&desc, c->edit_context);
    }
    if (c->collide_only) {
        desc.gravity = (scene_vec3){0.0f, 0.0f, 0.0f};
    }
    if (c->sleep && !desc.sleep) {
        desc.sleep = true;
        bench_add_extra(r, "sleep_forced", 1.0);
    }
    if (c->rolling_resistance > 0.0f) {
        for (int i = 0; i < desc.body_count; ++i) {
            if (desc.bodies[i].type == SCENE_DYNAMIC) {
                desc.bodies[i].shape.rolling_resistance = c->rolling_resistance;
            }
        }
        bench_add_extra(r, "rolling_resistance", c->rolling_resistance);
    }
    r->bodies = desc.body_count;
    r->dynamic_bodies = scene_dynamic_count(&desc);
    r->joints = desc.joint_count;
    bool ok = false;
    world_memory_reset(); /* no world is alive between runs */
    ts_world_id world = tessera_create_world(&desc, &c->settings, r->error, sizeof(r->error));
    if (!ts_world_id_is_null(world)) {
        ok = run_world(world, &desc, c, r);
        ts_destroy_world(world);
    }
    scene_desc_free(&desc);
    return ok;
}

/* Snapshots of the solver's settings and kept ball lanes (see solver_snapshot.h). */
#include "solver/solver_snapshot.h"

#include "base/alloc.h"
#include "base/math3.h"
#include "soa/snapshot_ranges.h"
#include "tessera/limits.h"

#include <float.h>
#include <string.h>

void ts_ball_export_kept_w1(const ts_joint_scratch *s, float *kept);
void ts_ball_export_kept_w4(const ts_joint_scratch *s, float *kept);
void ts_ball_export_kept_w8(const ts_joint_scratch *s, float *kept);
void ts_ball_export_kept_w16(const ts_joint_scratch *s, float *kept);

/* Whether the next soft step would go on with the bundles it has (ball_joint.h):
 * laid out for these joints, colours and body slots, filled by the last step. */
static bool ball_lanes_kept(const ts_solver *solver, const ts_records *records, const ts_constraint_graph *graph,
                            int32_t step_count)
{
    const ts_joint_scratch *s = &solver->joint_scratch;
    return solver->type == TS_SOLVER_SOFT_STEP && s->layout_width != 0 && s->layout_width == solver->simd_width &&
           s->layout_graph_revision == graph->joint_revision &&
           s->layout_store_revision == records->store.table.revision && s->ball_step == step_count &&
           step_count > 0; /* (the step count counts the step in progress: ts_world_step) */
}

void ts_solver_save(ts_writer *w, ts_solver *solver, ts_records *records, const ts_constraint_graph *graph,
                    int32_t step_count)
{
    ts_joint_flush_impulses(&solver->joint_scratch, records);
    ts_put_u8(w, (uint8_t)solver->type);
    ts_put_varint(w, (uint64_t)solver->substeps);
    float settings[11] = {solver->gravity.x, solver->gravity.y, solver->gravity.z, solver->contact_hertz,
                          solver->contact_damping_ratio, solver->contact_push_speed, solver->contact_mass_ratio,
                          solver->restitution_threshold, solver->joint_hertz, solver->joint_damping_ratio, 0.0f};
    ts_put_f32_array(w, settings, 10);
    ts_put_u8(w, (uint8_t)((solver->enable_warm_starting ? 1 : 0) | (solver->forces_pending ? 2 : 0) |
                           (solver->switched ? 4 : 0)));
    /* A world loaded and not stepped since still holds the lanes it loaded. */
    const ts_joint_scratch *s = &solver->joint_scratch;
    bool loaded = s->ball_kept != NULL && s->layout_graph_revision == graph->joint_revision &&
                  s->layout_store_revision == records->store.table.revision && s->ball_step == step_count;
    bool kept = loaded || ball_lanes_kept(solver, records, graph, step_count);
    ts_put_u8(w, kept ? 1 : 0);
    if (!kept) {
        return;
    }
    int32_t joints = records->joint_ids.next_index;
    float *lanes = loaded ? s->ball_kept : NULL;
    size_t bytes = (size_t)joints * TS_BALL_KEPT * sizeof(float);
    if (loaded && joints > s->ball_kept_count) {
        joints = s->ball_kept_count; /* (no joint was made since: the graph's revision says so) */
    }
    if (lanes == NULL && joints > 0) {
        lanes = ts_alloc(&records->allocator, bytes);
        if (lanes == NULL) {
            ts_put_varint(w, 0); /* no memory: the loaded world refills them (differs in the last bits) */
            return;
        }
        memset(lanes, 0, bytes);
        switch (s->layout_width) {
#ifdef TS_BUILT_W4
        case 4: ts_ball_export_kept_w4(s, lanes); break;
#endif
#ifdef TS_BUILT_W8
        case 8: ts_ball_export_kept_w8(s, lanes); break;
#endif
#ifdef TS_BUILT_W16
        case 16: ts_ball_export_kept_w16(s, lanes); break;
#endif
        default: ts_ball_export_kept_w1(s, lanes); break;
        }
    }
    /* in joint id order, whatever the layout: the same bytes at any width */
    int32_t count = 0;
    for (int32_t j = 0; j < joints; ++j) {
        count += lanes[(size_t)j * TS_BALL_KEPT] == 1.0f ? 1 : 0;
    }
    ts_put_varint(w, (uint64_t)count);
    for (int32_t j = 0; j < joints && count > 0; ++j) {
        const float *lane = lanes + (size_t)j * TS_BALL_KEPT;
        if (lane[0] == 1.0f) {
            ts_put_varint(w, (uint64_t)j);
            ts_put_f32_array(w, lane + 1, TS_BALL_KEPT - 1);
        }
    }
    if (!loaded) {
        ts_free(&records->allocator, lanes, bytes);
    }
}

static bool positive(float v) { return v > 0.0f && ts_is_finite(v); }
static bool non_negative(float v) { return v >= 0.0f && ts_is_finite(v); }

/* A kept ball lane as a step leaves it (ball_joint.c: arms, gap, K^-1,
 * impulse, anchors, centre offset): its impulse the joint's own (the save
 * flushed the lanes' into the records first), its arms and anchors within
 * the reach of a frame (TS_MAX_OFFSET) from a mass centre, its gap and
 * centre offset within that of two bodies (TS_MAX_EXTENT), and K^-1, an
 * effective mass, at most the lighter dynamic body's mass (twice, for
 * rounding). A crafted impulse of -1.4e25 N s and anchors of 6e37 m made
 * the next step overflow: the fuzzer's find. */
static bool usable_lane(const ts_records *records, const ts_joint *j, const float *kept)
{
    enum { ARM_A = 0, ARM_B = 3, GAP = 6, K = 9, IMPULSE = 15, ANCHOR_A = 18, ANCHOR_B = 21, DELTA = 24 };
    const float arm = 4.0f * TS_MAX_OFFSET, apart = 4.0f * TS_MAX_EXTENT;
    ts_vec3 impulse = {kept[IMPULSE], kept[IMPULSE + 1], kept[IMPULSE + 2]};
    if (memcmp(&impulse, &j->impulses.linear, sizeof impulse) != 0) {
        return false;
    }
    int32_t offsets[4] = {ARM_A, ARM_B, ANCHOR_A, ANCHOR_B};
    for (int k = 0; k < 4; ++k) {
        if (!ts_within_reach((ts_vec3){kept[offsets[k]], kept[offsets[k] + 1], kept[offsets[k] + 2]}, arm)) {
            return false;
        }
    }
    if (!ts_within_reach((ts_vec3){kept[GAP], kept[GAP + 1], kept[GAP + 2]}, apart) ||
        !ts_within_reach((ts_vec3){kept[DELTA], kept[DELTA + 1], kept[DELTA + 2]}, apart)) {
        return false;
    }
    float lighter = FLT_MAX; /* no dynamic body: no bound */
    for (int side = 0; side < 2; ++side) {
        const ts_body *b = records->bodies + j->edges[side].body;
        if (b->type == TS_BODY_DYNAMIC && b->mass_data.mass < lighter) {
            lighter = b->mass_data.mass;
        }
    }
    for (int k = K; k < K + 6; ++k) {
        if (!(kept[k] >= -2.0f * lighter && kept[k] <= 2.0f * lighter)) {
            return false;
        }
    }
    return true;
}

static ts_load_status load_kept(ts_reader *r, ts_solver *solver, const ts_records *records)
{
    ts_joint_scratch *s = &solver->joint_scratch;
    int32_t joints = records->joint_ids.next_index;
    int32_t count = ts_get_count(r, joints, 1 + 4 * (TS_BALL_KEPT - 1), "the kept ball lanes");
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    { /* room for one at least: a non-NULL ball_kept marks lanes loaded and not yet used */
        int32_t room = joints > 0 ? joints : 1;
        size_t bytes = (size_t)room * TS_BALL_KEPT * sizeof(float);
        s->ball_kept = ts_alloc(&records->allocator, bytes);
        if (s->ball_kept == NULL) {
            return TS_LOAD_NO_MEMORY;
        }
        memset(s->ball_kept, 0, bytes);
        s->ball_kept_count = room;
    }
    for (int32_t k = 0; k < count && !r->failed; ++k) {
        int32_t id = ts_get_index(r, 0, joints, "a kept ball lane's joint");
        if (r->failed) {
            break;
        }
        float *kept = s->ball_kept + (size_t)id * TS_BALL_KEPT;
        if (!records->joints[id].alive || records->joints[id].type != TS_JOINT_BALL || kept[0] != 0.0f) {
            ts_reader_fail(r, "kept ball lane of joint %d: not a live ball joint, or listed twice", (int)id);
            break;
        }
        kept[0] = 1.0f;
        ts_get_f32_array(r, kept + 1, TS_BALL_KEPT - 1);
        for (int f = 1; f < TS_BALL_KEPT; ++f) {
            if (!ts_is_finite(kept[f])) {
                ts_reader_fail(r, "kept ball lane of joint %d is not finite", (int)id);
            }
        }
        if (!r->failed && !usable_lane(records, records->joints + id, kept + 1)) {
            ts_reader_fail(r, "kept ball lane of joint %d is not one a step leaves (its impulse, arms, gap or "
                              "effective mass)", (int)id);
        }
    }
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}

ts_load_status ts_solver_load(ts_reader *r, ts_solver *solver, const ts_records *records,
                              const ts_constraint_graph *graph, int32_t step_count)
{
    uint8_t type = ts_get_u8(r);
    uint64_t substeps = ts_get_varint(r);
    float v[10];
    ts_get_f32_array(r, v, 10);
    uint8_t flags = ts_get_u8(r);
    bool kept = ts_get_bool(r, "the kept ball lanes' flag");
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    if (type > TS_SOLVER_XPBD || substeps < 1 || substeps > 64 || flags > 7 || !ts_is_finite(v[0]) ||
        !ts_is_finite(v[1]) || !ts_is_finite(v[2]) || !positive(v[3]) || !non_negative(v[4]) || !positive(v[5]) ||
        !(v[6] >= 1.0f && v[6] <= 1.0e30f) || !non_negative(v[7]) || !positive(v[8]) || !non_negative(v[9]) ||
        !ts_within_reach((ts_vec3){v[0], v[1], v[2]}, TS_MAX_GRAVITY) || !(v[5] <= TS_MAX_SPEED)) {
        ts_reader_fail(r, "a solver setting is out of range (solver %u, %llu substeps)", (unsigned)type,
                       (unsigned long long)substeps);
        return TS_LOAD_INVALID;
    }
    solver->type = (ts_solver_type)type;
    solver->substeps = (int)substeps;
    solver->gravity = (ts_vec3){v[0], v[1], v[2]};
    solver->contact_hertz = v[3];
    solver->contact_damping_ratio = v[4];
    solver->contact_push_speed = v[5];
    solver->contact_mass_ratio = v[6];
    solver->restitution_threshold = v[7];
    solver->joint_hertz = v[8];
    solver->joint_damping_ratio = v[9];
    solver->enable_warm_starting = (flags & 1) != 0;
    solver->forces_pending = (flags & 2) != 0;
    solver->switched = (flags & 4) != 0; /* set between a solver switch and the next step */
    ts_joint_scratch *s = &solver->joint_scratch;
    s->layout_width = 0; /* laid out at the first step, at this world's width */
    s->ball_step = -1;
    if (!kept) {
        return TS_LOAD_OK;
    }
    ts_load_status status = load_kept(r, solver, records);
    if (status == TS_LOAD_OK) {
        /* as the saved world: filled by the last step, for these joints and slots */
        s->ball_step = step_count;
        s->layout_graph_revision = graph->joint_revision;
        s->layout_store_revision = records->store.table.revision;
    }
    return status;
}

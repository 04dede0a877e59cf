// SPDX-License-Identifier: MIT
/* The solver-only entry's context: making and freeing it, and one call's
 * pipeline (see solver_context.h):
 *
 *   take     (serial)   bodies into the store, joints and manifolds matched
 *                       by key and coloured, unlisted contacts dropped
 *   solve    (parallel) ts_solve in the context's parallel region, as a
 *                       step runs it (step.c), over the awake (non-static)
 *                       bodies
 *   give     (serial)   poses, velocities, impulses and reactions back into
 *                       the program's arrays */
#include "step/solver_context.h"

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "base/timer.h"
#include "islands/contact_graph.h"
#include "islands/joint_graph.h"

#include <string.h>

/* Below this many moving bodies a call runs on the calling thread alone
 * (the step's threshold, step.c: waking the helpers costs more). */
#define TS_CONTEXT_PARALLEL_MIN_BODIES 128

bool ts_solver_context_init(ts_solver_context *c, const ts_allocator *allocator)
{
    memset(c, 0, sizeof *c);
    ts_body_store_init(&c->records.store);
    ts_contact_store_init(&c->records.contact_store);
    c->records.allocator = *allocator;
    return ts_parallel_init(&c->parallel, &c->records.allocator);
}

void ts_solver_context_free(ts_solver_context *c)
{
    ts_records *r = &c->records;
    const ts_allocator *a = &r->allocator;
    ts_array_free(a, (void **)&r->bodies, &r->body_capacity, sizeof(ts_body));
    ts_body_store_destroy(&r->store, a);
    ts_array_free(a, (void **)&r->contacts, &r->contact_capacity, sizeof(ts_contact));
    ts_id_pool_destroy(&r->contact_ids, a);
    ts_contact_store_destroy(&r->contact_store, a);
    ts_array_free(a, (void **)&r->joints, &r->joint_capacity, sizeof(ts_joint));
    ts_id_pool_destroy(&r->joint_ids, a);
    ts_graph_destroy(&c->graph, a);
    ts_joint_scratch_free(&c->solver.joint_scratch, a);
    ts_solver_scratch_free(&c->solver.scratch, a);
    ts_parallel_destroy(&c->parallel, a);
    ts_key_map_destroy(&c->contact_keys, a);
    ts_key_map_destroy(&c->joint_keys, a);
    ts_key_map_destroy(&c->listed, a);
    ts_array_free(a, (void **)&c->contact_keyed, &c->contact_keyed_capacity, sizeof(ts_keyed));
    ts_array_free(a, (void **)&c->joint_keyed, &c->joint_keyed_capacity, sizeof(ts_keyed));
    ts_array_free(a, (void **)&c->listed_ids, &c->listed_capacity, sizeof(int32_t));
}

void ts_solver_context_forget(ts_solver_context *c)
{
    ts_records *r = &c->records;
    for (int32_t id = 0; id < r->contact_ids.next_index; ++id) {
        if (r->contacts[id].alive) {
            ts_contact_uncolor(r, &c->graph, id);
            ts_contact_store_remove(&r->contact_store, r->contact_store.table.slot_of_id[id]);
            r->contacts[id].alive = false;
            ts_id_pool_release(&r->contact_ids, id);
        }
    }
    ts_joint_flush_impulses(&c->solver.joint_scratch, r);
    for (int32_t id = 0; id < r->joint_ids.next_index; ++id) {
        if (r->joints[id].alive) {
            ts_joint_uncolor(r, &c->graph, id);
            r->joints[id].alive = false;
            ts_id_pool_release(&r->joint_ids, id);
        }
    }
    ts_key_map_clear(&c->contact_keys);
    ts_key_map_clear(&c->joint_keys);
    c->solver.joint_scratch.ball_step = -1;
}

/* ---- the solve, in the context's parallel region ---- */

typedef struct solve_run {
    ts_solver_context *context;
    float dt;
    int32_t held; /* body index held at its last finite state, or -1 */
} solve_run;

/* A step's finish pass updates bounds and sleep timers; a context has neither. */
static void no_finish(void *context, int32_t begin, int32_t end)
{
    (void)context;
    (void)begin;
    (void)end;
}

static ts_result solve_body(void *context)
{
    solve_run *run = context;
    ts_solver_context *c = run->context;
    ts_solve_input input = {&c->records, &c->graph, &c->parallel, &c->profile, run->dt, c->step_count, no_finish,
                            NULL};
    ts_result result = ts_solve(&c->solver, &input, &run->held);
    return result == TS_ERROR_OUT_OF_MEMORY ? result : TS_OK; /* a held body is reported after */
}

/* The stages a call may publish (as the step's count, step.c): the body
 * passes, and a stage per colour per pass per substep. */
static int32_t stage_capacity(const ts_solver_context *c)
{
    const int32_t colors = TS_COLOR_COUNT + 1;
    return 16 + 3 * colors + c->solver.substeps * (2 + 3 * colors);
}

static ts_result solve(ts_solver_context *c, float dt, int32_t *held)
{
    solve_run run = {c, dt, -1};
    int32_t moving = c->records.store.table.end[TS_RANGE_AWAKE];
    int workers = moving >= TS_CONTEXT_PARALLEL_MIN_BODIES ? c->thread_count : 1;
    c->step_count += 1;
    TS_TRY(ts_parallel_run(&c->parallel, &c->records.allocator, workers, stage_capacity(c), solve_body, &run));
    *held = run.held;
    return TS_OK;
}

/* ---- one call ---- */

void ts_solver_context_next_call(ts_solver_context *c)
{
    c->call += 1;
    if (c->call == 0) { /* 2^32 calls: start the stamps over */
        for (int32_t id = 0; id < c->contact_keyed_capacity; ++id) {
            c->contact_keyed[id].seen = 0;
        }
        for (int32_t id = 0; id < c->joint_keyed_capacity; ++id) {
            c->joint_keyed[id].seen = 0;
        }
        c->call = 1;
    }
}

static ts_result out_of_memory(ts_solver_context *c)
{
    ts_solver_context_forget(c);
    return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_solve_contacts",
                   "the allocator returned NULL; the context forgot its warm start");
}

ts_result ts_solver_context_solve(ts_solver_context *c, const ts_solver_input *in, int32_t *held)
{
    *held = -1;
    c->profile = (ts_step_profile){0};
    double start = ts_now_ms();
    if (!ts_solver_context_take_bodies(c, in->bodies, in->body_count) ||
        !ts_solver_context_take_joints(c, in->joints, in->joint_count) ||
        !ts_solver_context_take_manifolds(c, in->manifolds, in->manifold_count)) {
        return out_of_memory(c);
    }
    ts_solver_context_drop_unlisted(c);
    c->profile.narrowphase = ts_now_ms() - start;
    if (solve(c, in->dt, held) != TS_OK) {
        return out_of_memory(c);
    }
    double mark = ts_now_ms();
    ts_solver_context_give_bodies(c, in->bodies, in->body_count);
    ts_solver_context_give_constraints(c, in->manifolds, in->manifold_count, in->joints, in->joint_count);
    double end = ts_now_ms();
    c->profile.finalize += end - mark;
    c->profile.step = end - start;
    return *held >= 0 ? TS_ERROR_NOT_FINITE : TS_OK;
}

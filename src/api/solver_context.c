// SPDX-License-Identifier: MIT
/* The solver-only entry (include/tessera/solver.h): the table of context
 * slots that turns a ts_solver_context_id into a context (as the world
 * table does for worlds, api/world.c), the defaults, and the checked calls
 * into step/solver_context.h. */
#include "api/solver_checks.h"
#include "api/world.h"
#include "base/alloc.h"
#include "base/error.h"
#include "step/solver_context.h"
#include "tessera/tessera.h"

#include <stdatomic.h>
#include <string.h>

/* ---- defaults ---- */

ts_solver_body ts_default_solver_body(void)
{
    return (ts_solver_body){
        .type = TS_BODY_DYNAMIC,
        .rotation = TS_QUAT_IDENTITY,
        .mass = 1.0f,
        .inertia = {1.0f, 1.0f, 1.0f},
        .gravity_scale = 1.0f,
        .local_rotation = TS_QUAT_IDENTITY,
    };
}

ts_solver_manifold ts_default_solver_manifold(void)
{
    return (ts_solver_manifold){.body_a = 0, .body_b = 1, .normal = {0.0f, 1.0f, 0.0f}, .friction = 0.6f};
}

ts_solver_joint ts_default_solver_joint(void)
{
    return (ts_solver_joint){
        .type = TS_JOINT_BALL,
        .body_a = 0,
        .body_b = 1,
        .local_frame_a = {{0.0f, 0.0f, 0.0f}, TS_QUAT_IDENTITY},
        .local_frame_b = {{0.0f, 0.0f, 0.0f}, TS_QUAT_IDENTITY},
        .length = 1.0f,
    };
}

/* ---- the slot table (as api/world.c's) ---- */

#define TS_MAX_SOLVER_CONTEXTS TS_MAX_WORLDS

static ts_solver_context *context_slots[TS_MAX_SOLVER_CONTEXTS];
static uint16_t context_generations[TS_MAX_SOLVER_CONTEXTS];
static uint16_t live_generations[TS_MAX_SOLVER_CONTEXTS]; /* the generation of the context in each slot */
static atomic_flag context_lock = ATOMIC_FLAG_INIT;

static void lock_contexts(void)
{
    while (atomic_flag_test_and_set_explicit(&context_lock, memory_order_acquire)) {
    }
}

static void unlock_contexts(void) { atomic_flag_clear_explicit(&context_lock, memory_order_release); }

static ts_solver_context *lookup(ts_solver_context_id id, const char *fn)
{
    int slot = (int)id.index1 - 1;
    ts_solver_context *c = slot >= 0 && slot < TS_MAX_SOLVER_CONTEXTS ? context_slots[slot] : NULL;
    if (c == NULL || live_generations[slot] != id.generation) {
        if (fn != NULL) {
            ts_fail(TS_ERROR_STALE_ID, fn, "solver context id (slot %d, generation %u) is %s", (int)id.index1,
                    (unsigned)id.generation, id.index1 == 0 ? "null" : "stale: the context was destroyed");
        }
        return NULL;
    }
    return c;
}

bool ts_solver_context_is_valid(ts_solver_context_id id) { return lookup(id, NULL) != NULL; }

/* ---- create / destroy ---- */

static void free_context(ts_solver_context *c)
{
    ts_allocator allocator = c->records.allocator;
    ts_solver_context_free(c);
    ts_free(&allocator, c, sizeof *c);
}

ts_solver_context_id ts_create_solver_context(const ts_world_def *def)
{
    if (ts_world_def_check(def, __func__) != TS_OK) {
        return TS_NULL_SOLVER_CONTEXT_ID;
    }
    int simd_width = ts_world_def_simd_width(def->simd_width, __func__);
    if (simd_width == 0) {
        return TS_NULL_SOLVER_CONTEXT_ID;
    }
    ts_allocator allocator = def->allocator.alloc != NULL ? def->allocator : ts_default_allocator();
    ts_solver_context *c = ts_alloc(&allocator, sizeof *c);
    if (c == NULL || !ts_solver_context_init(c, &allocator)) {
        if (c != NULL) {
            free_context(c);
        }
        ts_fail(TS_ERROR_OUT_OF_MEMORY, __func__, "the allocator returned NULL");
        return TS_NULL_SOLVER_CONTEXT_ID;
    }
    ts_solver *s = &c->solver;
    s->type = def->solver;
    s->simd_width = simd_width;
    s->substeps = def->substeps;
    s->gravity = def->gravity;
    s->contact_hertz = def->contact_hertz;
    s->contact_damping_ratio = def->contact_damping_ratio;
    s->contact_push_speed = def->contact_push_speed;
    s->contact_mass_ratio = def->contact_mass_ratio;
    s->restitution_threshold = def->restitution_threshold;
    s->enable_warm_starting = def->enable_warm_starting;
    s->joint_hertz = def->joint_hertz;
    s->joint_damping_ratio = def->joint_damping_ratio;
    s->max_linear_speed = TS_DEFAULT_MAX_LINEAR_SPEED; /* tessera/limits.h, as a world's default */
    s->max_rotation = TS_DEFAULT_MAX_ROTATION;
    s->joint_scratch.ball_step = -1;
    c->thread_count = def->threads == 0 ? ts_available_threads() : def->threads;
    c->parallel.enqueue_task = def->enqueue_task;
    c->parallel.finish_task = def->finish_task;
    c->parallel.user_task_context = def->user_task_context;

    lock_contexts();
    int slot = 0;
    while (slot < TS_MAX_SOLVER_CONTEXTS && context_slots[slot] != NULL) {
        ++slot;
    }
    if (slot < TS_MAX_SOLVER_CONTEXTS) {
        context_generations[slot] += 1; /* never 0 */
        if (context_generations[slot] == 0) {
            context_generations[slot] = 1;
        }
        live_generations[slot] = context_generations[slot];
        context_slots[slot] = c;
    }
    unlock_contexts();
    if (slot == TS_MAX_SOLVER_CONTEXTS) {
        free_context(c);
        ts_fail(TS_ERROR_CAPACITY, __func__, "%d solver contexts exist already", TS_MAX_SOLVER_CONTEXTS);
        return TS_NULL_SOLVER_CONTEXT_ID;
    }
    return (ts_solver_context_id){(uint16_t)(slot + 1), context_generations[slot]};
}

ts_result ts_destroy_solver_context(ts_solver_context_id id)
{
    ts_solver_context *c = lookup(id, __func__);
    if (c == NULL) {
        return TS_ERROR_STALE_ID;
    }
    lock_contexts();
    context_slots[id.index1 - 1] = NULL;
    unlock_contexts();
    free_context(c);
    return TS_OK;
}

/* ---- the call ---- */

ts_result ts_solve_contacts(ts_solver_context_id id, const ts_solver_input *input)
{
    ts_solver_context *c = lookup(id, __func__);
    if (c == NULL) {
        return TS_ERROR_STALE_ID;
    }
    TS_TRY(ts_check_solver_input(input, c, __func__));
    int32_t held = -1;
    ts_result result = ts_solver_context_solve(c, input, &held);
    if (result == TS_ERROR_NOT_FINITE) {
        return ts_fail(TS_ERROR_NOT_FINITE, __func__,
                       "bodies[%d] would have reached a non-finite velocity or pose (huge force, torque, dt or "
                       "gravity); it was held at its last finite state",
                       (int)held);
    }
    return result;
}

ts_result ts_solver_context_get_profile(ts_solver_context_id id, ts_step_profile *profile)
{
    if (profile == NULL) {
        return ts_fail(TS_ERROR_NULL_POINTER, __func__, "profile is NULL");
    }
    ts_solver_context *c = lookup(id, __func__);
    if (c == NULL) {
        return TS_ERROR_STALE_ID;
    }
    *profile = c->profile;
    return TS_OK;
}

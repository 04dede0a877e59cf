// SPDX-License-Identifier: MIT
/* The solver-only entry's context (include/tessera/solver.h): a world
 * without collision. It holds the parts of a world that the solver reads
 * (records with their body, contact and joint stores, the graph colours, the
 * solver with its scratch, the step's workers), filled from the program's
 * arrays at each call, so that a call runs the world's own solver (ts_solve)
 * on them:
 *
 *   bodies      body k of the call is body id index k: dynamic and kinematic
 *               ones in the awake range, static ones after; the store is laid
 *               out again only when the count or a type changes;
 *   joints      kept per program key (key -> joint id), coloured when new,
 *               uncoloured when a call no longer lists them;
 *   contacts    kept per program key (key -> contact id) in the array's
 *               order: a new key takes a colour, a known one keeps it and
 *               matches its points to the last call's by feature id (warm
 *               starting, collide/manifold_match.h), a manifold without
 *               points and every key the call no longer lists give theirs
 *               up (in that order: a world's narrowphase colours the
 *               contacts that began or stopped touching in slot order and
 *               then drops the parted ones);
 *   solve       ts_solve inside the context's parallel region, as a step
 *               runs it (step.c), with no pass of its own after the
 *               write-back.
 *
 * So a world and a context given the same bodies and manifolds (in the
 * order of the world's contact slots) hold the same colours and the same
 * stored impulses, and the solver gives the same bits. The API
 * (api/solver_context.c) checks every argument before calling in here. */
#ifndef TS_SOLVER_CONTEXT_H
#define TS_SOLVER_CONTEXT_H

#include "base/core.h"
#include "base/key_map.h"
#include "base/math3.h"
#include "base/parallel.h"
#include "islands/graph.h"
#include "soa/records.h"
#include "solver/solver.h"
#include "tessera/solver.h"

/* A contact's or joint's program key and the last call that listed it. */
typedef struct ts_keyed {
    uint64_t key;
    uint32_t seen;
} ts_keyed;

typedef struct ts_solver_context {
    ts_records records;
    ts_constraint_graph graph;
    ts_solver solver;
    ts_parallel parallel;
    int thread_count;
    int step_count; /* calls solved: the solver's step number (ball joints refresh by it) */
    ts_step_profile profile;

    int32_t body_count;      /* bodies laid out in the store (ids 0 .. body_count - 1) */
    ts_key_map contact_keys; /* program key -> contact id */
    ts_key_map joint_keys;   /* program key -> joint id */
    ts_keyed *contact_keyed; /* per contact id: its key, the last call that listed it */
    int32_t contact_keyed_capacity;
    ts_keyed *joint_keyed; /* per joint id: the same */
    int32_t joint_keyed_capacity;
    uint32_t call;     /* calls made, 1 and up (seen 0: never listed) */
    ts_key_map listed; /* the call's keys, for the check that none repeats */
    int32_t *listed_ids; /* per manifold of the call: its contact id (-1: none yet, or no points) */
    int32_t listed_capacity;
} ts_solver_context;

/* A rotation or direction of the program's arrays as a call takes it: as
 * given when it is unit to float precision (|length^2 - 1| <= 2^-16, so a
 * world's own values pass bit for bit), else normalised (the API's checks
 * let 1% through). */
static inline ts_quat ts_context_unit_quat(ts_quat q)
{
    float d = ts_quat_length_sq(q) - 1.0f;
    return d <= 0x1p-16f && d >= -0x1p-16f ? q : ts_quat_normalize(q);
}

static inline ts_vec3 ts_context_unit_vec3(ts_vec3 v)
{
    float d = ts_length_sq(v) - 1.0f;
    return d <= 0x1p-16f && d >= -0x1p-16f ? v : ts_scale(1.0f / ts_length(v), v);
}

/* A zeroed context made ready for `allocator` (the solver settings are the
 * caller's to fill); false when out of memory. */
bool ts_solver_context_init(ts_solver_context *context, const ts_allocator *allocator);

/* Frees everything the context holds. */
void ts_solver_context_free(ts_solver_context *context);

/* Forgets every contact and joint (after a failed call: the next starts cold). */
void ts_solver_context_forget(ts_solver_context *context);

/* Starts a call: a new number for the stamps of the contacts it lists
 * (the API's check stamps them, solver_checks.c). */
void ts_solver_context_next_call(ts_solver_context *context);

/* The whole call on checked arrays (ts_solver_context_next_call made, and
 * listed_ids filled with each manifold's known contact id or -1): takes them in, solves over dt, writes
 * them back. TS_ERROR_OUT_OF_MEMORY (nothing written, the context
 * forgotten), TS_ERROR_NOT_FINITE (a body held: *held is its index; the rest
 * written), else TS_OK. */
ts_result ts_solver_context_solve(ts_solver_context *context, const ts_solver_input *input, int32_t *held);

/* What the call does, by part (solver_context_bodies.c, solver_context_constraints.c). */
bool ts_solver_context_take_bodies(ts_solver_context *context, const ts_solver_body *bodies, int32_t count);
void ts_solver_context_give_bodies(const ts_solver_context *context, ts_solver_body *bodies, int32_t count);
bool ts_solver_context_take_joints(ts_solver_context *context, const ts_solver_joint *joints, int32_t count);
bool ts_solver_context_take_manifolds(ts_solver_context *context, const ts_solver_manifold *manifolds,
                                      int32_t count);
void ts_solver_context_drop_unlisted(ts_solver_context *context);
void ts_solver_context_give_constraints(ts_solver_context *context, ts_solver_manifold *manifolds,
                                        int32_t manifold_count, ts_solver_joint *joints, int32_t joint_count);

#endif

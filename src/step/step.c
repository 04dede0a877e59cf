/* The stepping pipeline: the stages of one ts_world_step, in order.
 *
 *   1. update pairs   (parallel) shapes moved by hand swept by their velocity, (serial)
 *                                their proxies moved; (parallel) moved shapes query
 *                                the trees for new pairs, in the same stage every
 *                                body's pose copied for the narrowphase's recycle kernel
 *   2. narrowphase    (serial)   contacts made in key order for the new pairs, on worker 0
 *                                while the others start on the contacts there were:
 *                     (parallel) every contact's manifold, points matched by feature id
 *                     (serial)   the contacts each block listed: touch events in slot
 *                                order, and the lists of those that began, stopped and
 *                                parted (collide/contact.h)
 *      touches        (serial)   their islands woken and linked, their graph colours
 *                                (touches.c); parted contacts' bookkeeping. Those of
 *                                the contacts there were are listed and answered up to
 *                                the first touch that wakes an island on worker 0 while
 *                                the others fill and update the new pairs' contacts
 *                     (parallel) the contact store compacted over the parted ones
 *   3. solve          (parallel) the soft-step substeps (solver/solver.c), then bodies
 *                                written back, their sleep timers and shape bounds
 *                                updated (finish_bodies, called by the solver)
 *   4. finalize       (serial)   grow the proxies that left their fat bounds in place
 *                     (parallel) refit the grown part of the movable tree, and rebuild it
 *                                (binned SAH) when it has drifted
 *   5. sleep          (serial)   islands at rest sleep, one island split (islands/sleep.h);
 *                                every 32 steps the awake bodies' storage order
 *                                compared with space, (parallel) and the store's
 *                                columns moved when space cuts fewer contacts
 *                                (body_order.h)
 *   6. publish the step's events, sorted; body move events (when on: the
 *      finish wrote each awake body's entry, the sleep stage's ends are marked)
 *
 * The whole step is one parallel region (base/parallel.h): the calling thread
 * runs this pipeline as worker 0, and each parallel stage is split into
 * blocks that every worker claims; each block writes only its own slots, so
 * the result does not depend on the worker count. Worker 0 reads the clock
 * between stages to fill the step profile. */
#include "step/step.h"

#include "base/array.h"
#include "base/error.h"
#include "base/parallel.h"
#include "base/timer.h"
#include "collide/broadphase.h"
#include "collide/contact.h"
#include "islands/graph.h"
#include "islands/graph_bound.h"
#include "islands/sleep.h"
#include "solver/solver.h"

/* Below this many awake bodies a step runs on the calling thread alone:
 * waking the helpers costs more than they save. */
#define TS_PARALLEL_MIN_BODIES 128

/* ---- the step ---- */

typedef struct step_context {
    ts_world *world;
    float dt;
    int32_t held;    /* id index of a body held at its last finite state, or -1 */
    int32_t dropped; /* id index of a custom constraint dropped for a bad row, or -1 */
} step_context;

/* The most stages a step publishes: the sweep of moved shapes, pairs, the
 * overflow bound's pass, narrowphase, body passes, the tree's enlarge, its
 * refit and its rebuild's levels, and a stage per colour per pass over
 * bundles (prepare, the substeps' passes, restitution and store: XPBD's;
 * the soft step publishes them as two lists, one stage each;
 * base/parallel.h: past this they run on worker 0 alone, still correct). */
static int32_t stage_capacity(const ts_world *world)
{
    const int32_t colors = TS_COLOR_COUNT + 1;
    const int32_t per_substep = 2 + 3 * colors;
    return 19 + 3 * colors + (TS_TREE_BUILD_LEVELS + 3) + world->solver.substeps * per_substep;
}

/* Worker 0's task beside the narrowphase of the contacts there were: the
 * new pairs' contacts, made in key order. */
static void register_pairs(void *context)
{
    ts_world *world = context;
    ts_broadphase_register_pairs(&world->records, &world->collision);
}

/* The solver's last pass over a block of awake bodies, just written back:
 * their sleep timers and shape bounds. */
static void finish_bodies(void *context, int32_t begin, int32_t end)
{
    const step_context *s = context;
    ts_world *world = s->world;
    ts_sleep_update_timers(&world->records.store, s->dt, begin, end);
    ts_broadphase_compute_bounds(&world->records, &world->collision.broadphase, s->dt, begin, end);
    if (world->moves.on) {
        const ts_records *records = &world->records;
        for (int32_t i = begin; i < end; ++i) {
            int32_t body = records->store.table.id_of_slot[i];
            world->moves.events[i] = (ts_body_move_event){ts_body_id_of(records, body),
                                                          ts_records_origin_transform(records, body, i), false};
        }
    }
}

/* The move events' bodies that the sleep stage put to sleep (slots past
 * the awake range now): their last move. */
static void mark_fell_asleep(ts_world *world)
{
    const ts_soa_table *table = &world->records.store.table;
    for (int32_t k = 0; k < world->moves.count; ++k) {
        int32_t body = world->moves.events[k].body.index1 - 1;
        world->moves.events[k].fell_asleep = table->slot_of_id[body] >= table->end[TS_RANGE_AWAKE];
    }
}

/* The new pairs the broadphase found, as graph_bound.h reads them (the
 * arrays are the caller's). */
static ts_pair_keys found_pairs(const ts_world *world, const uint64_t *keys[TS_MAX_THREADS],
                                int32_t counts[TS_MAX_THREADS])
{
    const ts_broadphase *bp = &world->collision.broadphase;
    int buffers = world->parallel.worker_count;
    for (int w = 0; w < buffers; ++w) {
        const ts_pair_buffer *buffer = bp->worker_pairs + w;
        keys[w] = buffer->keys;
        counts[w] = buffer->count < buffer->capacity ? buffer->count : buffer->capacity; /* all kept (find_pairs) */
    }
    return (ts_pair_keys){keys, counts, buffers};
}

typedef struct bound_context {
    ts_world *world;
    ts_pair_keys pairs;
} bound_context;

/* How many of the contacts that may begin touching in the step can reach
 * the overflow set (islands/graph_bound.h; the pairs are counted in the
 * graph's degrees while the solver's reserve asks). */
static int32_t overflow_bound(void *context)
{
    const bound_context *c = context;
    return ts_graph_awake_overflow_bound(&c->world->graph, &c->world->records, c->pairs, &c->world->parallel);
}

/* Room for everything the rest of the step may need, made after the pair
 * query and before anything changes: an allocation failure of a step then
 * leaves the world as it was (the sweep of moved shapes before the query
 * only grows fat bounds, which a second run of it keeps). The bounds hold
 * whatever the touches wake: every body may be awake, every contact of the
 * awake range not in a colour and every new pair may take one, and so may
 * every touching contact of the sleeping islands (their count is kept by
 * the islands, islands/sleep.h: no walk over the sleeping ones), every
 * shape may leave its fat bounds. */
static bool reserve_step(ts_world *world)
{
    ts_records *records = &world->records;
    ts_collision *collision = &world->collision;
    int32_t colored = 0;
    for (int c = 0; c <= TS_OVERFLOW_COLOR; ++c) {
        colored += world->graph.colors[c].count;
    }
    int32_t bodies = records->store.table.count;
    if (world->moves.on && !ts_array_reserve(&records->allocator, (void **)&world->moves.events,
                                             &world->moves.capacity, bodies, sizeof(ts_body_move_event))) {
        return false;
    }
    if (!ts_graph_bound_reserve(&world->graph, &records->allocator, records->body_ids.next_index)) {
        return false;
    }
    const uint64_t *keys[TS_MAX_THREADS];
    int32_t counts[TS_MAX_THREADS];
    bound_context bound = {world, found_pairs(world, keys, counts)};
    /* The pairs' contacts add to their bodies' constraint counts: the
     * sleeping islands they reach take their bounds again. */
    ts_graph_count_pairs(&world->graph, records, bound.pairs, 1);
    ts_sleep_refresh_bounds(records, &world->islands, &world->graph, bound.pairs);
    ts_step_adds adds = {records->contact_store.table.end[TS_CONTACT_RANGE_AWAKE] - colored +
                             ts_broadphase_found_count(collision, &world->parallel),
                         world->islands.sleeping_contacts, world->islands.sleeping_over};
    bool made =
        ts_graph_reserve(&world->graph, &records->allocator, records->body_ids.next_index, adds.awake + adds.asleep) &&
        ts_body_order_reserve(&world->body_order, &records->allocator, bodies, records->contact_store.table.capacity,
                              world->thread_count) &&
        ts_broadphase_reserve_slots(&collision->broadphase, &records->allocator, bodies,
                                    records->shape_ids.next_index) &&
        ts_solver_reserve_step(&world->solver, records, &world->graph, adds, overflow_bound, &bound);
    ts_graph_count_pairs(&world->graph, records, bound.pairs, -1);
    return made;
}

static ts_result step_body(void *context)
{
    step_context *s = context;
    ts_world *world = s->world;
    ts_records *records = &world->records;
    ts_collision *collision = &world->collision;
    ts_step_profile *profile = &world->profile;
    double start = ts_now_ms();
    world->moves.count = 0; /* a step that fails lists none */
    ts_broadphase_sweep_moved(records, &collision->broadphase, &world->parallel, s->dt);
    /* The narrowphase's pass over the bodies runs beside the pair query
     * (no pose changes in between). */
    ts_stage_def body_records;
    if (!ts_contacts_body_records(records, collision, &body_records)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (the step's scratch)");
    }
    TS_TRY(ts_broadphase_find_pairs(records, collision, &world->parallel, &body_records));
    ts_parallel_expect(&world->parallel); /* the reserve is serial: keep the helpers near */
    if (!reserve_step(world)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (the step's scratch)");
    }
    /* From here on nothing allocates: the step runs to its end. */
    ts_broadphase_take_pairs(records, collision, &world->parallel);
    double mark = ts_now_ms();
    profile->update_pairs = mark - start;

    /* The new pairs' contacts are made on worker 0 while the others start
     * the narrowphase (its time includes theirs). */
    ts_step_links links = {world, 0};
    TS_TRY(ts_contacts_narrowphase(records, collision, &world->parallel, s->dt, world->solver.simd_width,
                                   register_pairs, world, ts_step_link_early, &links));
    TS_TRY(ts_step_link_touches(&links));
    profile->narrowphase = ts_now_ms() - mark;

    ts_solve_input input = {records, &world->graph, &world->parallel, profile, s->dt, world->step_count,
                            finish_bodies, s};
    int32_t awake = records->store.table.end[TS_RANGE_AWAKE]; /* the slots the finish writes */
    ts_result solved = ts_solve(&world->solver, &input, &s->held);
    if (solved == TS_ERROR_OUT_OF_MEMORY) {
        return solved;
    }
    s->dropped = world->solver.dropped_joint;
    mark = ts_now_ms();
    /* The refit runs even when a moved proxy found no room in the move
     * buffer: the enlarge marked its ancestors without growing them, and
     * only the refit makes the tree fit for queries again. */
    ts_result enlarged = ts_broadphase_enlarge_proxies(records, &collision->broadphase, &world->parallel);
    bool rebuilt = ts_broadphase_rebuild_tree(&collision->broadphase, &world->parallel);
    TS_TRY(enlarged);
    if (!rebuilt) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (broadphase tree)");
    }
    profile->finalize += ts_now_ms() - mark;
    mark = ts_now_ms();
    /* serial to the step's end but for the store's reorder every 32 steps:
     * a helper that slept would keep worker 0 waiting at the end to leave */
    ts_parallel_expect(&world->parallel);
    if (world->enable_sleep && s->held < 0) { /* a held body stopped for overflowing, not for resting */
        ts_sleep_islands(records, &world->islands, &world->graph);
    }
    if (world->moves.on) {
        world->moves.count = awake;
        mark_fell_asleep(world);
    }
    /* after the move events took the step's slots (they hold the ids) */
    ts_body_order_update(&world->body_order, records, &world->parallel, world->step_count);
    profile->sleep = ts_now_ms() - mark;
    TS_TRY(ts_contact_events_publish(&collision->events));
    return TS_OK;
}

ts_result ts_step_world(ts_world *world, float dt, int32_t *held)
{
    *held = -1;
    ts_step_profile *profile = &world->profile;
    *profile = (ts_step_profile){0};
    double start = ts_now_ms();
    step_context context = {world, dt, -1, -1};
    int workers = world->records.store.table.end[TS_RANGE_AWAKE] >= TS_PARALLEL_MIN_BODIES ? world->thread_count : 1;
    TS_TRY(ts_parallel_run(&world->parallel, &world->records.allocator, workers, stage_capacity(world), step_body,
                           &context));
    profile->step = ts_now_ms() - start;
    if (context.held >= 0) {
        *held = context.held;
        return ts_fail(TS_ERROR_NOT_FINITE, "ts_world_step",
                       "body (index %d) would have reached a non-finite velocity or pose (huge force, torque, dt or "
                       "gravity); it was held at its last finite state and taken out of the simulation "
                       "(ts_world_get_body_faults)",
                       (int)context.held + 1);
    }
    if (context.dropped >= 0) {
        return ts_fail(TS_ERROR_NOT_FINITE, "ts_world_step",
                       "custom constraint (joint index %d) returned a bad row (a NaN or infinite number, lower > "
                       "upper, or a negative softness); it was dropped and acts no more (destroy it)",
                       (int)context.dropped + 1);
    }
    return TS_OK;
}

/* The broadphase: two dynamic AABB trees of fat shape bounds (static shapes
 * in one, kinematic and dynamic in the other) and the move buffer of shapes
 * whose fat bounds changed, from which new pairs are found each step.
 *
 * Fat bounds: a moving shape's tree box is its tight box grown by
 * TS_AABB_MARGIN, so that a slow body touches the tree only when it leaves
 * that room; static shapes get no margin. New pairs are found in a
 * deterministic order: the move buffer is in call order and the candidate
 * pairs are sorted by shape indices before contacts are made. */
#ifndef TS_BROADPHASE_H
#define TS_BROADPHASE_H

#include "base/core.h"
#include "base/parallel.h"
#include "collide/dynamic_tree.h"
#include "soa/records.h"

enum {
    TS_TREE_STATIC = 0,
    TS_TREE_MOVABLE = 1,
    TS_TREE_COUNT = 2,
};

/* New pair keys found by one worker of the pair update. */
typedef struct ts_pair_buffer {
    uint64_t *keys;
    int32_t count; /* found; may exceed capacity (then only capacity are kept) */
    int32_t capacity;
} ts_pair_buffer;

typedef struct ts_broadphase {
    ts_dynamic_tree trees[TS_TREE_COUNT];
    int32_t *move_buffer; /* shape indices; -1 where a shape left */
    int32_t move_count;
    int32_t move_capacity;
    uint64_t *new_pairs; /* scratch of the pair update: every worker's keys, sorted */
    int32_t new_pair_count;
    int32_t new_pair_capacity;
    uint64_t *pair_scratch; /* the sort's scratch: as many keys as new_pairs */
    int32_t pair_scratch_capacity;
    int32_t *new_ids; /* scratch of the pair update: the contacts made, in key order */
    int32_t new_id_capacity;
    ts_pair_buffer worker_pairs[TS_MAX_THREADS];
    uint8_t *enlarged_slots; /* per awake body slot: 1 when one of its shapes left its fat bounds this step */
    int32_t enlarged_capacity;
    int32_t *enlarged_list; /* scratch of ts_broadphase_enlarge_proxies: the marked slots, in order */
    int32_t enlarged_list_capacity;
    uint8_t *swept; /* scratch of ts_broadphase_sweep_moved: per move buffer entry, 1 when its proxy must move */
    int32_t swept_capacity;
    /* The fewest entries for which the sweep of moved shapes, and listed
     * slots for which the enlarge and refit, run on several workers
     * (TS_PARALLEL_SWEEP, TS_PARALLEL_ENLARGE; tests lower them to run
     * small scenes through those paths). */
    int32_t parallel_sweep_min;
    int32_t parallel_enlarge_min;
} ts_broadphase;

#define TS_PARALLEL_SWEEP 256
/* The enlarge and the refit walk chains of dependent reads of tree nodes
 * that the other proxies' walks share (broadphase_refit.c). joint_grid
 * lists ~700 bodies a step: past 256 rather than 1,024 its two-worker step
 * took 1.045 instead of 1.073 ms (medians of 276 interleaved runs, Intel
 * Xeon VM, vCPUs near; 512: 1.061); with the vCPUs far apart the shared
 * enlarge was ~0.01 ms slower on an AMD VM (docs/performance.md). */
#define TS_PARALLEL_ENLARGE 256

struct ts_collision;

/* shape_capacity: room reserved up front for that many moving shapes. */
bool ts_broadphase_init(ts_broadphase *broadphase, const ts_allocator *allocator, int32_t shape_capacity);
void ts_broadphase_destroy(ts_broadphase *broadphase, const ts_allocator *allocator);

/* World bounds of a shape at its body's current pose. */
ts_aabb ts_shape_compute_aabb(const ts_records *records, int32_t shape);

/* Writes the body's bounds columns of the store (sphere_radius and the fat
 * box, see body_store.h) from its shapes. Called whenever, outside a step,
 * its shape list, their placement in its simulation frame (the mass
 * update) or their fat bounds change; the step keeps them itself. */
void ts_body_sync_bounds(ts_records *records, int32_t body);

/* Puts a shape into the tree of its body's type and the move buffer. */
ts_result ts_shape_create_proxy(ts_records *records, ts_broadphase *broadphase, int32_t shape, const char *function);

/* Takes a shape out of its tree and the move buffer. */
void ts_shape_destroy_proxy(ts_records *records, ts_broadphase *broadphase, int32_t shape);

/* Queues a shape to look for new pairs at the next step. */
ts_result ts_shape_buffer_move(ts_records *records, ts_broadphase *broadphase, int32_t shape, const char *function);

/* After a body was moved by hand: recomputes its shapes' bounds and moves
 * their proxies (all of them: a teleport may skip the fat margin). */
ts_result ts_body_refresh_proxies(ts_records *records, ts_broadphase *broadphase, int32_t body,
                                  const char *function);

/* The step's first stage, before the pair search: the shapes placed or
 * moved by hand since the last step (the move buffer) get fat bounds swept
 * by their body's velocity over dt, as the step's bounds update gives every
 * other shape, so that a body given a velocity or a place before its first
 * step finds the pairs it reaches within it (a sphere at 500 m/s went
 * through a wall 5 m away). The check runs in parallel blocks (the last
 * step queued every shape it moved: joint_grid's 300-2,300 a step, most
 * still inside the bounds it gave them), the proxies move on worker 0 in
 * buffer order. */
void ts_broadphase_sweep_moved(ts_records *records, ts_broadphase *broadphase, ts_parallel *parallel, float dt);

/* After a body's velocity was set by hand: its shapes whose fat bounds do
 * not hold their sweep over dt (the last step's) get swept ones and are
 * queued for the pair search. */
ts_result ts_body_sweep_proxies(ts_records *records, ts_broadphase *broadphase, int32_t body, float dt,
                                const char *function);

/* Step stage 1 (worker 0, with a parallel stage inside): the moved shapes
 * query the trees in parallel, each worker into its own buffer, and room
 * is made for as many contacts as keys were found. Changes nothing but
 * scratch and capacities, so a failure (TS_ERROR_OUT_OF_MEMORY) leaves the
 * world as it was; the move buffer is kept for ts_broadphase_take_pairs.
 * The blocks of `beside` (NULL: none; they must not touch what the query
 * reads) run once, as more blocks of the query's stage. */
ts_result ts_broadphase_find_pairs(ts_records *records, struct ts_collision *collision, ts_parallel *parallel,
                                   const ts_stage_def *beside);

/* The keys the last ts_broadphase_find_pairs found (repeats included). */
int32_t ts_broadphase_found_count(const struct ts_collision *collision, const ts_parallel *parallel);

/* After ts_broadphase_find_pairs, once the step cannot fail any more:
 * empties the move buffer and gathers the keys of all workers (unsorted,
 * with repeats) for ts_broadphase_register_pairs. Allocates nothing. */
void ts_broadphase_take_pairs(ts_records *records, struct ts_collision *collision, const ts_parallel *parallel);

/* Then, on one thread (the step runs it on worker 0 next to the narrowphase
 * of the contacts there were, which it does not touch: see contact.h): the
 * keys are sorted, repeats dropped, and their contacts registered in key
 * order (ids, pair map, body lists, store slots). The new awake contacts
 * take the slots right after the awake range's, unfilled
 * (ts_contacts_fill_slots); those that went to the sleeping range are
 * filled here. Allocates nothing. */
void ts_broadphase_register_pairs(ts_records *records, struct ts_collision *collision);

/* Both, then the new awake contacts' slots filled in parallel (outside a
 * step: tests). */
ts_result ts_broadphase_update_pairs(ts_records *records, struct ts_collision *collision, ts_parallel *parallel);

/* Before a step changes anything: room for one enlarged flag per body slot
 * that may be awake (`bodies`), for the movable tree's rebuild, and in the
 * move buffer for `shapes` (every shape the bounds update may queue). */
bool ts_broadphase_reserve_slots(ts_broadphase *broadphase, const ts_allocator *allocator, int32_t bodies,
                                 int32_t shapes);

/* Step stage "finalize" (parallel over awake slots [begin, end)): computes
 * each shape's bounds, gives those that left their fat bounds new ones and
 * marks them and their body's slot (each block writes only its own slots).
 * A body whose only shape is a centred sphere is done from the store's
 * columns alone: its new fat box waits there for ts_broadphase_enlarge_proxies.
 * Returns whether any did. */
bool ts_broadphase_compute_bounds(ts_records *records, ts_broadphase *broadphase, float dt, int32_t begin, int32_t end);

/* Step stage "finalize" (after compute_bounds; worker 0, a parallel stage
 * inside): gives the marked fast-path shapes (a body's only shape, a
 * centred sphere or box) their fat box from the store and marks the moved
 * proxies' ancestors to refit (ts_tree_enlarge_proxy_deferred, the
 * workers sharing the list), then queues the moved shapes for the next pair
 * update in slot order. The marked part of the tree is refitted or rebuilt
 * by ts_broadphase_rebuild_tree, which must follow. */
ts_result ts_broadphase_enlarge_proxies(ts_records *records, ts_broadphase *broadphase, ts_parallel *parallel);

/* Step stage "finalize" (worker 0, parallel stages inside): refits the
 * enlarged part of the movable tree (tight boxes, same shape), and when its
 * SAH cost has drifted from the last rebuild's, rebuilds that part with a
 * binned SAH split across the workers (the same tree for any worker count).
 * Returns false when out of memory (the tree is then valid, not rebuilt). */
bool ts_broadphase_rebuild_tree(ts_broadphase *broadphase, ts_parallel *parallel);

#endif

// SPDX-License-Identifier: MIT
/* Room for the rest of a step, made before the step changes anything
 * (see solver.h, ts_solver_reserve_step): the scratch a solve may need once
 * the touches of the step have woken islands and coloured contacts, so
 * that ts_solve itself never allocates and an allocation failure of a step
 * leaves the world as it was.
 *
 * The bounds, from what is known before the narrowphase:
 *   bodies     every body of the store may be awake by the solve;
 *   contacts   at most adds.awake contacts of the awake range or new
 *              begin touching and take a colour, and at most adds.asleep
 *              touching contacts of sleeping islands take one when such a
 *              touch wakes them (islands/graph_bound.h: each island keeps
 *              its count from when it fell asleep, so no step walks the
 *              sleeping ones). An add that reaches the overflow set makes
 *              a bundle of its own; the others fill lanes: with `over`
 *              adds in the overflow set, the colours' bundles grow by at
 *              most ceil((adds - over) / W) + one per colour (a colour's
 *              last bundle may be part full). The sleeping part's `over`
 *              is adds.asleep_over; the awake part's is taken as all of
 *              adds.awake while the room held allows it (no allocation),
 *              else asked of overflow_bound (a bundle per add cost
 *              large_pyramid's first step 140 MB at width 16). Counting a
 *              bundle per awake add, or more adds in the overflow set
 *              than there can be, only over-reserves: the growth above
 *              rises with `over`;
 *   joints     every joint laid out as if awake (a sleeping island's
 *              joints wake with it; the layout's counts only grow).
 * The soft step's paired passes also keep a spare bundle after each
 * colour's and W - 1 more entries of its order, for the paired order's pad
 * (contact_order.h), and a border mark per body.
 * The contact bundles and their bounce lanes are written by the prepare
 * stage before anything reads them, so they grow without a copy
 * (ts_array_reserve_scratch): pile's bundles grow from 32 to 64 MB near
 * step 130, and the copy of the old 32 MB with the page faults it took
 * stalled that step ~0.3-0.5 s on worker 0 alone. */
#include "solver/solver.h"

#include "base/array.h"
#include "solver/ball_joint.h"
#include "solver/contact_solver.h"
#include "solver/custom_constraint.h"
#include "solver/joint_prepare.h"
#include "solver/xpbd_contact.h"
#include "solver/xpbd_joint.h"

/* The joint layout's arrays (ts_joint_solver_begin, joint_prepare.c) with
 * every joint counted awake; returns the bundles. */
static bool reserve_joints(ts_joint_scratch *s, const ts_records *records, const ts_constraint_graph *graph,
                           int32_t *bundles_out)
{
    if (s->reserved_width == TS_W && s->reserved_revision == graph->joint_revision) {
        *bundles_out = s->reserved_bundles; /* the same joints in the same colours: room made already */
        return true;
    }
    const ts_allocator *allocator = &records->allocator;
    int32_t joints = 0, bundles = 0, balls = 0, custom_bundles = 0, customs = 0;
    for (int color = 0; color <= TS_OVERFLOW_COLOR; ++color) {
        const ts_graph_color *gc = graph->colors + color;
        int lanes = color == TS_OVERFLOW_COLOR ? 1 : TS_W;
        int32_t per_type[TS_JOINT_TYPE_COUNT] = {0};
        for (int32_t i = 0; i < gc->joint_count; ++i) {
            per_type[records->joints[gc->joints[i]].type] += 1;
        }
        for (int t = 0; t < TS_JOINT_TYPE_COUNT; ++t) {
            bundles += (per_type[t] + lanes - 1) / lanes;
        }
        balls += (per_type[TS_JOINT_BALL] + lanes - 1) / lanes;
        custom_bundles += (per_type[TS_JOINT_CUSTOM] + lanes - 1) / lanes;
        customs += per_type[TS_JOINT_CUSTOM];
        joints += gc->joint_count;
    }
    *bundles_out = bundles;
    bool made = ts_array_reserve(allocator, (void **)&s->sorted, &s->sorted_capacity, joints, sizeof(int32_t)) &&
                ts_array_reserve(allocator, (void **)&s->refs, &s->ref_capacity, bundles, sizeof(ts_joint_bundle_ref)) &&
                ts_array_reserve(allocator, &s->bundles, &s->bundle_bytes,
                                 (bundles - balls - custom_bundles) * (int32_t)sizeof(ts_joint_bundle), 1) &&
                ts_array_reserve(allocator, &s->ball_bundles, &s->ball_bytes, TS_WIDE(ts_ball_bundle_bytes)(balls), 1) &&
                ts_array_reserve(allocator, &s->custom_lanes, &s->custom_bytes,
                                 customs * (int32_t)sizeof(ts_custom_lane), 1);
    if (made) {
        s->reserved_revision = graph->joint_revision;
        s->reserved_width = TS_W;
        s->reserved_bundles = bundles;
    }
    return made;
}

/* Contact bundles the room held takes, of every per-bundle array. */
static int32_t bundle_room(const ts_solver *solver)
{
    const ts_solver_scratch *s = &solver->scratch;
    int32_t room = s->bundle_bytes / (int32_t)sizeof(ts_contact_bundle);
    int32_t bounces = s->bounce_bytes / (int32_t)sizeof(ts_contact_bounce_lanes);
    room = bounces < room ? bounces : room;
    if (solver->type == TS_SOLVER_XPBD) {
        int32_t lanes = s->xpbd_lane_bytes / (int32_t)sizeof(ts_xpbd_contact_lanes);
        room = lanes < room ? lanes : room;
    }
    return room;
}

/* The colours' bundles `adds` new contacts can add when at most `over` of
 * them reach the overflow set (the file's comment). */
static int32_t bundle_growth(int32_t adds, int32_t over)
{
    over = over < adds ? over : adds;
    return adds > 0 ? over + (adds - over + TS_W - 1) / TS_W + TS_OVERFLOW_COLOR : 0;
}

bool TS_WIDE(ts_solver_reserve_step)(ts_solver *solver, const ts_records *records, const ts_constraint_graph *graph,
                                     ts_step_adds adds, ts_overflow_bound_fn *overflow_bound, void *context)
{
    const ts_allocator *allocator = &records->allocator;
    ts_solver_scratch *s = &solver->scratch;
    int32_t bodies = records->store.table.count + 1; /* and the dummy */
    int32_t contacts = adds.awake + adds.asleep, bundles = 0;
    for (int color = 0; color < TS_OVERFLOW_COLOR; ++color) {
        contacts += graph->colors[color].count;
        bundles += (graph->colors[color].count + TS_W - 1) / TS_W;
    }
    contacts += graph->colors[TS_OVERFLOW_COLOR].count;
    bundles += graph->colors[TS_OVERFLOW_COLOR].count; /* one lane each */
    int32_t asleep = bundle_growth(adds.asleep, adds.asleep_over);
    if (bundles + adds.awake + asleep <= bundle_room(solver)) {
        bundles += adds.awake + asleep; /* every awake add a bundle of its own: no allocation */
    } else {
        int32_t over = overflow_bound(context);
        over = over < adds.awake ? over : adds.awake;
        bundles += bundle_growth(adds.awake + adds.asleep, over + adds.asleep_over);
    }
    /* the soft step's paired order: a spare bundle and a pad of W - 1 entries a colour (solver.c) */
    bool soft = solver->type != TS_SOLVER_XPBD;
    int32_t entries = contacts + (soft ? TS_OVERFLOW_COLOR * (TS_W - 1) : 0);
    bundles += soft ? TS_OVERFLOW_COLOR : 0;
    int32_t joint_bundles = 0;
    if (!ts_array_reserve(allocator, (void **)&s->states, &s->state_capacity, bodies, sizeof(ts_body_state)) ||
        !ts_array_reserve_scratch(allocator, &s->bundles, &s->bundle_bytes,
                                  bundles * (int32_t)sizeof(ts_contact_bundle), 1) ||
        !ts_array_reserve_scratch(allocator, &s->bounces, &s->bounce_bytes,
                                  bundles * (int32_t)sizeof(ts_contact_bounce_lanes), 1) ||
        !ts_array_reserve(allocator, (void **)&s->ordered, &s->ordered_capacity, entries, sizeof(int32_t)) ||
        !ts_array_reserve(allocator, (void **)&s->order_keys, &s->order_key_capacity, entries, sizeof(uint16_t)) ||
        (soft && (!ts_array_reserve(allocator, (void **)&s->order_slots, &s->order_slot_capacity, 2 * entries,
                                    sizeof(int32_t)) ||
                  !ts_array_reserve(allocator, (void **)&s->border, &s->border_capacity, bodies, sizeof(uint8_t)))) ||
        !ts_array_reserve(allocator, &s->stage_list, &s->stage_list_bytes,
                          ts_solver_stage_list_bytes(solver->substeps), 1) ||
        !reserve_joints(&solver->joint_scratch, records, graph, &joint_bundles)) {
        return false;
    }
    if (solver->type != TS_SOLVER_XPBD) {
        return true;
    }
    return ts_array_reserve(allocator, (void **)&s->substep_start, &s->substep_start_capacity, bodies,
                            sizeof(ts_body_state)) &&
           ts_array_reserve(allocator, &s->xpbd_lanes, &s->xpbd_lane_bytes,
                            bundles * (int32_t)sizeof(ts_xpbd_contact_lanes), 1) &&
           ts_array_reserve(allocator, &s->xpbd_joint_bundles, &s->xpbd_joint_bundle_bytes,
                            joint_bundles * (int32_t)sizeof(ts_xpbd_joint_bundle), 1);
}

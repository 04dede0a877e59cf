// SPDX-License-Identifier: MIT
/* Containment of a body whose velocity or pose overflowed in a step
 * (tessera/limits.h): the step held it at its last finite state; then it
 * is taken out of the simulation so that it can touch nothing more:
 *
 *   contacts    destroyed (end events for the touching ones), as when a
 *               body is destroyed;
 *   joints      destroyed, as when a body is destroyed (their ids go stale);
 *   island      left;
 *   shapes      out of the broadphase trees (no new pairs, queries miss
 *               them); the shapes themselves stay;
 *   store       the body's slot moves past the moving ranges (the static
 *               one), so no step integrates it; its pose and velocities
 *               stay as held, which is what the getters read.
 *
 * The body keeps its id and type and stays out until destroyed; the
 * other bodies go on as they would after ts_destroy_body of it
 * (tests/test_containment.c). ts_world_get_body_faults lists such bodies. */
#include "api/body_fault.h"

#include "api/body_access.h"
#include "api/contacts.h"
#include "api/joint.h"
#include "api/lookup.h"
#include "base/validate.h"
#include "collide/broadphase.h"
#include "islands/island.h"
#include "tessera/tessera.h"

void ts_body_contain(ts_world *world, int32_t index)
{
    ts_records *records = &world->records;
    ts_body *b = records->bodies + index;
    if (!b->alive || b->faulted) {
        return;
    }
    ts_body_destroy_contacts(world, index, -1);
    ts_body_destroy_joints(world, index);
    ts_island_remove_body(records, &world->islands, index);
    for (int32_t sh = b->first_shape; sh != -1; sh = records->shapes[sh].next) {
        ts_shape_destroy_proxy(records, &world->collision.broadphase, sh);
    }
    ts_body_store *s = &records->store;
    int32_t i = ts_body_store_move(s, body_slot(world, b), TS_RANGE_STATIC);
    s->fx[i] = s->fy[i] = s->fz[i] = 0.0f;
    s->tx[i] = s->ty[i] = s->tz[i] = 0.0f;
    b->faulted = true;
}

ts_result ts_world_get_body_faults(ts_world_id id, ts_body_id *ids, int capacity, int *count)
{
    return ts_list_bodies(id, ids, capacity, count, true, __func__);
}

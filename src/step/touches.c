/* The step's answer to the narrowphase's lists (collide/collision.h): the
 * contacts that began or stopped touching change the islands and the
 * graph colours, here, in slot order, so that the collide layer never
 * calls into the islands; the parted ones are destroyed after (see step.h). */
#include "step/step.h"

#include "base/error.h"
#include "base/parallel.h"
#include "collide/contact.h"
#include "islands/contact_graph.h"
#include "islands/island.h"
#include "islands/sleep.h"

/* Whether a touch of the body wakes an island. */
static bool wakes(const ts_world *world, int32_t body)
{
    int32_t island = world->records.bodies[body].island;
    return island >= 0 && !ts_island_is_awake(&world->islands, island);
}

/* The touches listed from *linked on, in order; with `until_wake`, only up
 * to the first that would wake an island (a wake moves body slots). */
static ts_result link_news(ts_world *world, int32_t *linked, bool until_wake)
{
    ts_records *records = &world->records;
    ts_collision *collision = &world->collision;
    const ts_contact_store *s = &records->contact_store;
    /* Slots below the narrowphase's count stay put: waking an island only
     * appends its contacts to the awake range (and they have no begin or
     * end to report). */
    for (int32_t k = *linked; k < collision->news_count; ++k) {
        int32_t i = collision->contact_news[k];
        int32_t id = s->table.id_of_slot[i];
        if (s->flags[i] & TS_CONTACT_STARTED) {
            if (until_wake && (wakes(world, s->body_a[i]) || wakes(world, s->body_b[i]))) {
                *linked = k;
                return TS_OK;
            }
            /* a touch wakes; waking an island moves its bodies and contacts
             * on worker 0 (~0.1-1 ms for a large one): the helpers spin on */
            if (wakes(world, s->body_a[i]) || wakes(world, s->body_b[i])) {
                ts_parallel_expect(&world->parallel);
            }
            TS_TRY(ts_wake_pair(records, &world->islands, &world->graph, s->body_a[i], s->body_b[i], "ts_world_step"));
            TS_TRY(ts_contact_color(records, &world->graph, id, "ts_world_step"));
            ts_contact_link_islands(records, &world->islands, id);
        } else {
            ts_contact_uncolor(records, &world->graph, id);
            ts_contact_unlink_islands(records, &world->islands, id);
        }
        *linked = k + 1;
    }
    return TS_OK;
}

ts_result ts_step_link_early(void *context)
{
    ts_step_links *links = context;
    return link_news(links->world, &links->linked, true);
}

ts_result ts_step_link_touches(ts_step_links *links)
{
    ts_world *world = links->world;
    ts_records *records = &world->records;
    ts_collision *collision = &world->collision;
    /* serial up to the parted contacts' copies or the solver: keep the helpers near */
    ts_parallel_expect(&world->parallel);
    TS_TRY(link_news(world, &links->linked, false));
    for (int32_t k = 0; k < collision->doomed_count; ++k) {
        int32_t id = collision->doomed_contacts[k];
        ts_contact_uncolor(records, &world->graph, id);
        ts_contact_unlink_islands(records, &world->islands, id);
    }
    ts_contacts_destroy_parted(records, collision, &world->parallel);
    return TS_OK;
}

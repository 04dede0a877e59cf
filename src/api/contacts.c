/* Contacts from the API's side: the public functions (the touch events of
 * the last step, the touching contacts of one body) and the contacts that
 * go with a destroyed body, shape or joint (see contacts.h). */
#include "api/contacts.h"

#include "api/lookup.h"
#include "base/validate.h"
#include "collide/contact.h"
#include "islands/contact_graph.h"
#include "tessera/tessera.h"

/* ---- destruction ---- */

static void destroy_contact(ts_world *world, int32_t contact)
{
    ts_contact_uncolor(&world->records, &world->graph, contact);
    ts_contact_unlink_islands(&world->records, &world->islands, contact);
    ts_contact_destroy(&world->records, &world->collision, contact);
}

void ts_body_destroy_contacts(ts_world *world, int32_t body, int32_t shape)
{
    int32_t key = world->records.bodies[body].contact_head;
    while (key != -1) {
        int32_t contact = key >> 1;
        const ts_contact *c = world->records.contacts + contact;
        int32_t next = c->edges[key & 1].next_key;
        if (shape < 0 || c->shape_a == shape || c->shape_b == shape) {
            destroy_contact(world, contact);
        }
        key = next;
    }
}

void ts_contacts_destroy_between(ts_world *world, int32_t body_a, int32_t body_b)
{
    int32_t key = world->records.bodies[body_a].contact_head;
    while (key != -1) {
        int32_t contact = key >> 1;
        const ts_contact *c = world->records.contacts + contact;
        int32_t next = c->edges[key & 1].next_key;
        if (c->edges[(key & 1) ^ 1].body == body_b) {
            destroy_contact(world, contact);
        }
        key = next;
    }
}

/* ---- public functions ---- */

ts_result ts_world_get_contact_events(ts_world_id id, ts_contact_events *events)
{
    TS_CHECK_NOT_NULL(events, __func__);
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    const ts_contact_events_buffer *e = &world->collision.events;
    *events = (ts_contact_events){e->begin_published, e->begin_published_count, e->end_published,
                                  e->end_published_count};
    return TS_OK;
}

ts_result ts_body_get_contacts(ts_body_id id, ts_contact_data *contacts, int capacity, int *count)
{
    TS_CHECK_NOT_NULL(count, __func__);
    TS_TRY(ts_check_output_array(contacts, capacity, __func__, "contacts"));
    ts_world *world;
    ts_body *body = ts_body_lookup(id, &world, __func__);
    if (body == NULL) {
        return TS_ERROR_STALE_ID;
    }
    const ts_records *records = &world->records;
    const ts_contact_store *s = &records->contact_store;
    const ts_body_store *bodies = &records->store;
    int n = 0;
    for (int32_t key = body->contact_head; key != -1; key = records->contacts[key >> 1].edges[key & 1].next_key) {
        int32_t i = s->table.slot_of_id[key >> 1];
        if ((s->flags[i] & TS_CONTACT_TOUCHING) == 0) {
            continue;
        }
        if (n < capacity) {
            ts_contact_data *d = contacts + n;
            d->shape_a = ts_shape_id_of(records, s->shape_a[i]);
            d->shape_b = ts_shape_id_of(records, s->shape_b[i]);
            d->normal = ts_v3(s->nx[i], s->ny[i], s->nz[i]);
            d->point_count = s->point_count[i];
            int32_t slot_a = bodies->table.slot_of_id[s->body_a[i]];
            ts_vec3 center_a = ts_v3(bodies->px[slot_a], bodies->py[slot_a], bodies->pz[slot_a]);
            for (int k = 0; k < 4; ++k) {
                int p = 4 * i + k;
                d->points[k] = k < d->point_count
                                   ? (ts_contact_point){ts_add(center_a, ts_v3(s->anchor_ax[p], s->anchor_ay[p],
                                                                               s->anchor_az[p])),
                                                        s->separation[p], s->feature[p], s->normal_impulse[p]}
                                   : (ts_contact_point){{0, 0, 0}, 0.0f, 0u, 0.0f};
            }
        }
        ++n;
    }
    *count = n;
    return TS_OK;
}

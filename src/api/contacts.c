/* The public contact functions: the touch events of the last step and the
 * touching contacts of one body. */
#include "api/body.h"
#include "api/shape.h"
#include "base/validate.h"
#include "tessera/tessera.h"

ts_result ts_world_get_contact_events(ts_world_id id, ts_contact_events *events)
{
    TS_CHECK_NOT_NULL(events, __func__);
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    const ts_contact_events_buffer *e = &world->events;
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
    const ts_contact_store *s = &world->contact_store;
    int n = 0;
    for (int32_t key = body->contact_head; key != -1; key = world->contacts[key >> 1].edges[key & 1].next_key) {
        int32_t i = s->table.slot_of_id[key >> 1];
        if ((s->flags[i] & TS_CONTACT_TOUCHING) == 0) {
            continue;
        }
        if (n < capacity) {
            ts_contact_data *d = contacts + n;
            d->shape_a = ts_shape_id_of(world, s->shape_a[i]);
            d->shape_b = ts_shape_id_of(world, s->shape_b[i]);
            d->normal = ts_v3(s->nx[i], s->ny[i], s->nz[i]);
            d->point_count = s->point_count[i];
            int32_t slot_a = world->store.table.slot_of_id[s->body_a[i]];
            ts_vec3 center_a = ts_v3(world->store.px[slot_a], world->store.py[slot_a], world->store.pz[slot_a]);
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

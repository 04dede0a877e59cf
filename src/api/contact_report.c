/* Contact reports (tessera/contact_report.h): the switches, and the lists
 * read from the soft step's entries (solver/contact_report.h). A list walks
 * the contact store's slots in order and keeps the touching contacts whose
 * entry the last step wrote (stamped with the step count): contacts asleep
 * or not solved in the last step have older stamps. */
#include "api/world.h"

#include "base/error.h"
#include "base/validate.h"
#include "tessera/tessera.h"

ts_result ts_world_enable_hit_events(ts_world_id id, bool enable, float hit_speed)
{
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    if (enable) {
        TS_TRY(ts_check_positive(hit_speed, __func__, "hit_speed"));
    }
    world->solver.report.hits = enable;
    world->solver.report.hit_speed = enable ? hit_speed : 0.0f;
    return TS_OK;
}

ts_result ts_world_enable_contact_impulses(ts_world_id id, bool enable)
{
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    world->solver.report.impulses = enable;
    return TS_OK;
}

/* The last step's entry of the contact in slot i, or NULL. */
static const ts_contact_report_entry *entry_of(const ts_world *world, int32_t i)
{
    const ts_contact_store *s = &world->records.contact_store;
    const ts_contact_report *r = &world->solver.report;
    int32_t contact = s->table.id_of_slot[i];
    if ((s->flags[i] & TS_CONTACT_TOUCHING) == 0 || contact >= r->capacity ||
        r->entries[contact].step != world->step_count) {
        return NULL;
    }
    return r->entries + contact;
}

/* Checks shared by both lists; the world, or NULL (the error recorded). */
static ts_world *list_world(ts_world_id id, const void *buffer, int capacity, const int *count, const char *what,
                            const char *fn, ts_result *result)
{
    *result = TS_OK;
    if (count == NULL) {
        *result = ts_fail(TS_ERROR_NULL_POINTER, fn, "count is NULL");
        return NULL;
    }
    ts_result r = ts_check_output_array(buffer, capacity, fn, what);
    if (r != TS_OK) {
        *result = r;
        return NULL;
    }
    ts_world *world = ts_world_lookup(id, fn);
    if (world == NULL) {
        *result = TS_ERROR_STALE_ID;
        return NULL;
    }
    return world;
}

static ts_result finish_list(const void *buffer, int capacity, int found, int *count, const char *fn)
{
    *count = found;
    if (buffer != NULL && found > capacity) {
        return ts_fail(TS_ERROR_CAPACITY, fn, "%d results do not fit the capacity %d (the %d first were written)",
                       found, capacity, capacity);
    }
    return TS_OK;
}

ts_result ts_world_get_hit_events(ts_world_id id, ts_contact_hit_event *hits, int capacity, int *count)
{
    ts_result result;
    ts_world *world = list_world(id, hits, capacity, count, "hits", __func__, &result);
    if (world == NULL) {
        return result;
    }
    if (!world->solver.report.hits) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, __func__,
                       "the world does not report hit events (ts_world_enable_hit_events first)");
    }
    const ts_records *records = &world->records;
    const ts_contact_store *s = &records->contact_store;
    const ts_body_store *bodies = &records->store;
    int found = 0;
    for (int32_t i = 0; i < s->table.count; ++i) {
        const ts_contact_report_entry *e = entry_of(world, i);
        if (e == NULL || e->hit_point < 0 || !(e->hit_speed >= world->solver.report.hit_speed)) {
            continue;
        }
        if (found < capacity) {
            int32_t slot_a = bodies->table.slot_of_id[s->body_a[i]];
            int p = 4 * i + e->hit_point;
            ts_vec3 center_a = ts_v3(bodies->px[slot_a], bodies->py[slot_a], bodies->pz[slot_a]);
            hits[found] = (ts_contact_hit_event){
                ts_shape_id_of(records, s->shape_a[i]), ts_shape_id_of(records, s->shape_b[i]),
                ts_add(center_a, ts_v3(s->anchor_ax[p], s->anchor_ay[p], s->anchor_az[p])),
                ts_v3(s->nx[i], s->ny[i], s->nz[i]), e->hit_speed};
        }
        ++found;
    }
    return finish_list(hits, capacity, found, count, __func__);
}

ts_result ts_world_get_contact_impulses(ts_world_id id, ts_contact_impulse *impulses, int capacity, int *count)
{
    ts_result result;
    ts_world *world = list_world(id, impulses, capacity, count, "impulses", __func__, &result);
    if (world == NULL) {
        return result;
    }
    if (!world->solver.report.impulses) {
        return ts_fail(TS_ERROR_INVALID_OPERATION, __func__,
                       "the world does not report impulses (ts_world_enable_contact_impulses first)");
    }
    const ts_records *records = &world->records;
    const ts_contact_store *s = &records->contact_store;
    int found = 0;
    for (int32_t i = 0; i < s->table.count; ++i) {
        const ts_contact_report_entry *e = entry_of(world, i);
        if (e == NULL) {
            continue;
        }
        if (found < capacity) {
            impulses[found] = (ts_contact_impulse){ts_shape_id_of(records, s->shape_a[i]),
                                                   ts_shape_id_of(records, s->shape_b[i]),
                                                   ts_v3(s->nx[i], s->ny[i], s->nz[i]), e->normal_impulse,
                                                   e->tangent_impulse};
        }
        ++found;
    }
    return finish_list(impulses, capacity, found, count, __func__);
}

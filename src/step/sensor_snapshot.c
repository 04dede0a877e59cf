/* Snapshots of the sensors' state (see sensor_snapshot.h). Each list: a
 * varint count, then per event the sensor's and the visitor's shape index
 * and generation (varints); ids are remade with the loading world's slot.
 * A listed shape may have been destroyed since the step (its end event
 * comes at the next step), so any index of the shape pool and any
 * generation is taken. */
#include "step/sensor_snapshot.h"

#include "base/array.h"

static void put_events(ts_writer *w, const ts_sensor_event *events, int32_t count)
{
    ts_put_varint(w, (uint64_t)count);
    for (int32_t k = 0; k < count; ++k) {
        ts_put_varint(w, (uint64_t)(events[k].sensor.index1 - 1));
        ts_put_varint(w, events[k].sensor.generation);
        ts_put_varint(w, (uint64_t)(events[k].visitor.index1 - 1));
        ts_put_varint(w, events[k].visitor.generation);
    }
}

void ts_sensors_save(ts_writer *w, const ts_world *world)
{
    ts_put_u8(w, world->sensors.any ? 1 : 0);
    put_events(w, world->sensors.pairs, world->sensors.pair_count);
    put_events(w, world->sensors.begin, world->sensors.begin_count);
    put_events(w, world->sensors.end, world->sensors.end_count);
}

static ts_shape_id get_shape(ts_reader *r, const ts_records *records)
{
    int32_t index = ts_get_index(r, 0, records->shape_ids.next_index, "a sensor event's shape");
    uint64_t generation = ts_get_varint(r);
    if (!r->failed && generation > UINT32_MAX) {
        ts_reader_fail(r, "a sensor event's shape generation is %llu", (unsigned long long)generation);
    }
    return (ts_shape_id){index + 1, records->world_index, records->world_generation, (uint32_t)generation};
}

/* The pass's order (api/sensor.c): sensor index, visitor index, then generations. */
static bool before(ts_sensor_event a, ts_sensor_event b)
{
    uint64_t ka = (uint64_t)a.sensor.index1 << 32 | (uint64_t)a.visitor.index1;
    uint64_t kb = (uint64_t)b.sensor.index1 << 32 | (uint64_t)b.visitor.index1;
    if (ka != kb) {
        return ka < kb;
    }
    uint64_t ga = (uint64_t)a.sensor.generation << 32 | (uint64_t)a.visitor.generation;
    uint64_t gb = (uint64_t)b.sensor.generation << 32 | (uint64_t)b.visitor.generation;
    return ga < gb;
}

static ts_load_status get_events(ts_reader *r, ts_world *world, ts_sensor_event **events, int32_t *count,
                                 int32_t *capacity, bool sorted, const char *what)
{
    int32_t n = ts_get_count(r, INT32_MAX / 2, 4, what);
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    if (!ts_array_reserve(&world->records.allocator, (void **)events, capacity, n, sizeof(ts_sensor_event))) {
        return TS_LOAD_NO_MEMORY;
    }
    for (int32_t k = 0; k < n && !r->failed; ++k) {
        ts_sensor_event e;
        e.sensor = get_shape(r, &world->records);
        e.visitor = get_shape(r, &world->records);
        if (!r->failed && sorted && k > 0 && !before((*events)[k - 1], e)) {
            ts_reader_fail(r, "the sensor overlaps are not in order at %d", (int)k);
        }
        (*events)[k] = e;
    }
    *count = r->failed ? 0 : n;
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}

ts_load_status ts_sensors_load(ts_reader *r, ts_world *world)
{
    world->sensors.any = ts_get_bool(r, "the sensor flag");
    ts_load_status status = get_events(r, world, &world->sensors.pairs, &world->sensors.pair_count,
                                       &world->sensors.pair_capacity, true, "the sensor overlap count");
    if (status == TS_LOAD_OK) {
        status = get_events(r, world, &world->sensors.begin, &world->sensors.begin_count,
                            &world->sensors.begin_capacity, false, "the sensor begin count");
    }
    if (status == TS_LOAD_OK) {
        status = get_events(r, world, &world->sensors.end, &world->sensors.end_count, &world->sensors.end_capacity,
                            false, "the sensor end count");
    }
    if (status == TS_LOAD_OK && !world->sensors.any &&
        world->sensors.pair_count + world->sensors.begin_count + world->sensors.end_count > 0) {
        ts_reader_fail(r, "sensor events in a world that never had a sensor");
        status = TS_LOAD_INVALID;
    }
    /* a sensor shape sets the flag when made (api/shape.c) */
    for (int32_t i = 0; i < world->records.shape_ids.next_index && status == TS_LOAD_OK; ++i) {
        const ts_shape *s = world->records.shapes + i;
        if (s->alive && s->is_sensor && !world->sensors.any) {
            ts_reader_fail(r, "shape %d is a sensor but the sensor flag is off", (int)i);
            status = TS_LOAD_INVALID;
        }
    }
    return status;
}

/* Sensor events (see tessera/sensor.h). After a step, each live sensor
 * shape, in index order, asks the broadphase trees for the shapes its
 * filter accepts that overlap it (collide/shape_query.h's exact test), and
 * appends (sensor, visitor) pairs sorted by visitor index. The events are
 * the difference of this step's sorted pairs and the last step's: a merge
 * of two sorted lists. Only reads the bodies: the step's bits do not
 * change. Arrays grow to the largest count seen and are then reused. */
#include "api/sensor.h"

#include "api/world.h"
#include "base/array.h"
#include "base/error.h"
#include "collide/ray.h"
#include "collide/shape_query.h"
#include "tessera/tessera.h"

#include <string.h>

typedef struct sensor_pass {
    ts_world *world;
    ts_shape_id sensor;
    int32_t sensor_body;
    bool failed;
} sensor_pass;

static bool append(ts_world *world, ts_sensor_event **data, int32_t *count, int32_t *capacity, ts_sensor_event e)
{
    if (!ts_array_reserve(&world->records.allocator, (void **)data, capacity, *count + 1, sizeof(ts_sensor_event))) {
        return false;
    }
    (*data)[(*count)++] = e;
    return true;
}

/* One overlapping shape: skipped when it is on the sensor's own body. */
static bool add_visitor(const ts_overlap_hit *hit, void *context)
{
    sensor_pass *p = context;
    ts_world *world = p->world;
    if (world->records.shapes[hit->shape.index1 - 1].body == p->sensor_body) {
        return true;
    }
    ts_sensor_event e = {p->sensor, hit->shape};
    if (!append(world, &world->sensors.pairs, &world->sensors.pair_count, &world->sensors.pair_capacity, e)) {
        p->failed = true;
        return false;
    }
    return true;
}

/* Orders pairs by sensor index, then visitor index, then generation. */
static int compare(ts_sensor_event a, ts_sensor_event b)
{
    uint64_t ka = (uint64_t)a.sensor.index1 << 32 | (uint64_t)a.visitor.index1;
    uint64_t kb = (uint64_t)b.sensor.index1 << 32 | (uint64_t)b.visitor.index1;
    if (ka != kb) {
        return ka < kb ? -1 : 1;
    }
    uint64_t ga = (uint64_t)a.sensor.generation << 32 | (uint64_t)a.visitor.generation;
    uint64_t gb = (uint64_t)b.sensor.generation << 32 | (uint64_t)b.visitor.generation;
    return ga < gb ? -1 : (ga > gb ? 1 : 0);
}

/* The visitors of one sensor, sorted by index (the trees give them in walk
 * order; a sensor overlaps few shapes, so insertion sort). */
static bool find_visitors(ts_world *world, int32_t index)
{
    const ts_shape *s = world->records.shapes + index;
    ts_query_filter filter = {s->filter.category_bits, s->filter.mask_bits, NULL, NULL};
    sensor_pass p = {world, ts_shape_id_of(&world->records, index), s->body, false};
    int32_t first = world->sensors.pair_count;
    ts_shape_overlap_each_geometry(&world->records, &world->collision.broadphase, s->type,
                                   ts_shape_record_geometry(s), ts_shape_world_transform(&world->records, s),
                                   ts_shape_compute_aabb(&world->records, index), &filter, add_visitor, &p);
    ts_sensor_event *pairs = world->sensors.pairs;
    for (int32_t i = first + 1; i < world->sensors.pair_count; ++i) {
        ts_sensor_event e = pairs[i];
        int32_t k = i;
        while (k > first && compare(e, pairs[k - 1]) < 0) {
            pairs[k] = pairs[k - 1];
            --k;
        }
        pairs[k] = e;
    }
    return !p.failed;
}

/* Begin: pairs now and not before; end: before and not now. */
static bool diff_pairs(ts_world *world)
{
    const ts_sensor_event *now = world->sensors.pairs, *old = world->sensors.old_pairs;
    int32_t i = 0, j = 0, n = world->sensors.pair_count, m = world->sensors.old_count;
    while (i < n || j < m) {
        int c = i == n ? 1 : (j == m ? -1 : compare(now[i], old[j]));
        bool ok = true;
        if (c < 0) {
            ok = append(world, &world->sensors.begin, &world->sensors.begin_count, &world->sensors.begin_capacity,
                        now[i++]);
        } else if (c > 0) {
            ok = append(world, &world->sensors.end, &world->sensors.end_count, &world->sensors.end_capacity,
                        old[j++]);
        } else {
            ++i;
            ++j;
        }
        if (!ok) {
            return false;
        }
    }
    return true;
}

ts_result ts_sensor_update(ts_world *world)
{
    if (!world->sensors.any) {
        return TS_OK;
    }
    /* this step's pairs go where the step before last's were */
    ts_sensor_event *swap = world->sensors.old_pairs;
    int32_t swap_capacity = world->sensors.old_capacity;
    world->sensors.old_pairs = world->sensors.pairs;
    world->sensors.old_capacity = world->sensors.pair_capacity;
    world->sensors.old_count = world->sensors.pair_count;
    world->sensors.pairs = swap;
    world->sensors.pair_capacity = swap_capacity;
    world->sensors.pair_count = 0;
    world->sensors.begin_count = 0;
    world->sensors.end_count = 0;
    bool ok = true;
    for (int32_t i = 0; i < world->records.shape_ids.next_index && ok; ++i) {
        const ts_shape *s = world->records.shapes + i;
        if (s->alive && s->is_sensor) {
            ok = find_visitors(world, i);
        }
    }
    ok = ok && diff_pairs(world);
    if (!ok) {
        world->sensors.pair_count = 0;
        world->sensors.begin_count = 0;
        world->sensors.end_count = 0;
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (sensor events)");
    }
    return TS_OK;
}

void ts_sensor_free(ts_world *world)
{
    const ts_allocator *a = &world->records.allocator;
    ts_array_free(a, (void **)&world->sensors.pairs, &world->sensors.pair_capacity, sizeof(ts_sensor_event));
    ts_array_free(a, (void **)&world->sensors.old_pairs, &world->sensors.old_capacity, sizeof(ts_sensor_event));
    ts_array_free(a, (void **)&world->sensors.begin, &world->sensors.begin_capacity, sizeof(ts_sensor_event));
    ts_array_free(a, (void **)&world->sensors.end, &world->sensors.end_capacity, sizeof(ts_sensor_event));
}

ts_result ts_world_get_sensor_events(ts_world_id id, ts_sensor_events *events)
{
    if (events == NULL) {
        return ts_fail(TS_ERROR_NULL_POINTER, __func__, "events is NULL");
    }
    ts_world *world = ts_world_lookup(id, __func__);
    if (world == NULL) {
        return TS_ERROR_STALE_ID;
    }
    *events = (ts_sensor_events){world->sensors.begin, world->sensors.begin_count, world->sensors.end,
                                 world->sensors.end_count};
    return TS_OK;
}

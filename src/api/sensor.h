/* Sensor events (tessera/sensor.h): the pass after each step that finds
 * the shapes overlapping each sensor and the begin / end events. */
#ifndef TS_API_SENSOR_H
#define TS_API_SENSOR_H

#include "step/world_state.h"

/* After a step: this step's overlaps and events. TS_ERROR_OUT_OF_MEMORY
 * when the allocator refuses room (the events are then empty). */
ts_result ts_sensor_update(ts_world *world);

/* Frees the sensor arrays (with the world). */
void ts_sensor_free(ts_world *world);

#endif

/* Snapshots of the sensors' state (format 3's SENS section,
 * docs/snapshots.md): whether the world runs the sensor pass, the last
 * step's (sensor, visitor) overlaps that the next step's events are the
 * difference from, and the last step's begin and end events (what
 * ts_world_get_sensor_events reports). The pass itself is api/sensor.c's;
 * its state lives in the world (step/world_state.h). */
#ifndef TS_SENSOR_SNAPSHOT_H
#define TS_SENSOR_SNAPSHOT_H

#include "soa/records_snapshot.h"
#include "step/world_state.h"

void ts_sensors_save(ts_writer *w, const ts_world *world);

/* Reads them into a world whose shapes are loaded: every shape index
 * within the shape pool, the overlaps sorted as the pass sorts them. */
ts_load_status ts_sensors_load(ts_reader *r, ts_world *world);

#endif

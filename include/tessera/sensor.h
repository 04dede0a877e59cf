/** @file
 * Sensor events (included by tessera.h; see docs/queries.md): a sensor
 * shape (ts_shape_def::is_sensor) reports which shapes start and stop
 * overlapping it. After each step, every sensor is tested against the
 * shapes its filter accepts both ways (category and mask, as two shapes
 * that may touch), other than sensors and the shapes of its own body, with
 * the exact overlap test of ts_world_overlap_shape (touching counts).
 * Sensors add no contacts and nothing to the solver: a world steps to the
 * same bits with or without them. */
#ifndef TESSERA_SENSOR_H
#define TESSERA_SENSOR_H

#include "tessera/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A shape started or stopped overlapping a sensor. */
typedef struct ts_sensor_event {
    ts_shape_id sensor;  /**< the sensor shape */
    ts_shape_id visitor; /**< the other shape (stale in an end event when it was destroyed) */
} ts_sensor_event;

/** The sensor events of the last step, sorted by sensor then visitor
 * (shape index). The arrays belong to the world and stay valid until the
 * next step or until the world is destroyed. */
typedef struct ts_sensor_events {
    const ts_sensor_event *begin; /**< begin_count events */
    int begin_count;              /**< shapes that started overlapping a sensor */
    const ts_sensor_event *end;   /**< end_count events */
    int end_count;                /**< shapes that stopped overlapping a sensor (or a sensor or shape destroyed) */
} ts_sensor_events;

/** The sensor begin / end events of the last step (see ts_sensor_events).
 * TS_ERROR_NULL_POINTER (events), TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_get_sensor_events(ts_world_id world, ts_sensor_events *events);

#ifdef __cplusplus
}
#endif

#endif

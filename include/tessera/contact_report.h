/** @file
 * Contact reports (included by tessera.h; see docs/queries.md): hit events
 * (two shapes met faster than a speed the world sets) and each touching
 * contact's total normal and friction impulse over the last step. Both are
 * off by default and cost a step nothing then; on, the soft step keeps a
 * few floats per contact (no allocation once the world stops growing) and
 * the reports are bit for bit the same at every thread count and SIMD
 * width. Reported are the contacts the last step solved: touching, awake,
 * with a dynamic body, by either solver.
 * Both lists are in contact slot order (deterministic, not sorted by
 * shape) and are read between steps. */
#ifndef TESSERA_CONTACT_REPORT_H
#define TESSERA_CONTACT_REPORT_H

#include "tessera/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Two shapes met: a contact that carried no impulse into the last step
 * (it was not pushing: a new or a speculative contact) pushed in it, and
 * its point that approached fastest did so at least at the world's hit
 * speed. A contact that keeps pushing reports no more hits (a landing box
 * still sinks into the soft contact a step later; that is the same hit).
 * With warm starting off (ts_world_def.enable_warm_starting) every contact
 * starts its steps without impulse, and any step's push can be a hit. */
typedef struct ts_contact_hit_event {
    ts_shape_id shape_a;  /**< the first shape (lower index) */
    ts_shape_id shape_b;  /**< the second shape */
    ts_vec3 point;        /**< world position of that point, as the step's collision test found it (before the solver moved the bodies) */
    ts_vec3 normal;       /**< world, from shape_a to shape_b */
    float approach_speed; /**< m/s along the normal when the point first pushed in the step (> 0) */
} ts_contact_hit_event;

/** What one touching contact pushed over the whole last step (the sum over
 * its substeps and points; divide by the step's dt for the mean force). */
typedef struct ts_contact_impulse {
    ts_shape_id shape_a;     /**< the first shape (lower index) */
    ts_shape_id shape_b;     /**< the second shape */
    ts_vec3 normal;          /**< world, from shape_a to shape_b */
    float normal_impulse;    /**< N s, on shape_b along normal (>= 0) */
    ts_vec3 tangent_impulse; /**< N s, friction on shape_b, world (perpendicular to normal) */
} ts_contact_impulse;

/** Turns hit events on (from the next step) when enable is true, with
 * hit_speed the approach speed (m/s) a hit needs, or off. Returns TS_OK,
 * TS_ERROR_STALE_ID, TS_ERROR_NOT_FINITE or TS_ERROR_OUT_OF_RANGE
 * (hit_speed not > 0; checked only when enable is true). */
TS_API ts_result ts_world_enable_hit_events(ts_world_id world, bool enable, float hit_speed);

/** Turns the per-step impulse totals on (from the next step) or off.
 * Returns TS_OK or TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_enable_contact_impulses(ts_world_id world, bool enable);

/** The hit events of the last step into hits[]: *count receives how many
 * there are; pass NULL and 0 to count only. Returns TS_OK,
 * TS_ERROR_NULL_POINTER (count, or hits with capacity > 0),
 * TS_ERROR_OUT_OF_RANGE (capacity < 0), TS_ERROR_STALE_ID,
 * TS_ERROR_INVALID_OPERATION (hit events are off), TS_ERROR_CAPACITY (the
 * first capacity were written, *count says how many there are). */
TS_API ts_result ts_world_get_hit_events(ts_world_id world, ts_contact_hit_event *hits, int capacity, int *count);

/** The impulses of every contact the last step solved into impulses[], as
 * ts_world_get_hit_events() does with hits (TS_ERROR_INVALID_OPERATION
 * when the impulse totals are off). */
TS_API ts_result ts_world_get_contact_impulses(ts_world_id world, ts_contact_impulse *impulses, int capacity,
                                               int *count);

#ifdef __cplusplus
}
#endif

#endif

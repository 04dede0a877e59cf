/* The checked lookups of the API's ids: each returns the record and its
 * world, or NULL after recording TS_ERROR_STALE_ID for `function` (a
 * destroyed object, a destroyed world, an index never handed out, a forged
 * id). */
#ifndef TS_API_LOOKUP_H
#define TS_API_LOOKUP_H

#include "api/world.h"

ts_body *ts_body_lookup(ts_body_id id, ts_world **world, const char *function);
ts_shape *ts_shape_lookup(ts_shape_id id, ts_world **world, const char *function);
ts_joint *ts_joint_lookup(ts_joint_id id, ts_world **world, const char *function);

/* The live bodies of a world (only the faulted ones when faulted_only) into
 * ids, up to capacity, in slot order; their count in *count. The checks
 * and errors of ts_world_get_bodies, naming `function`. */
ts_result ts_list_bodies(ts_world_id id, ts_body_id *ids, int capacity, int *count, bool faulted_only,
                         const char *function);

#endif

/** @file
 * Body move events (included by tessera.h; see docs/queries.md): which
 * bodies the last step moved, with their new transforms, in one array, for
 * programs that mirror the simulation elsewhere (a renderer, a game
 * engine's scene graph, a network). Off by default; on, each step lists
 * every body it simulated (awake dynamic and kinematic bodies), in the
 * step's body order, which is the same at every thread count and SIMD
 * width. A body whose island fell asleep at the end of the step is listed
 * with fell_asleep set: its last move until something wakes it. Sleeping
 * and static bodies are not listed. */
#ifndef TESSERA_BODY_MOVES_H
#define TESSERA_BODY_MOVES_H

#include "tessera/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One body the last step moved. */
typedef struct ts_body_move_event {
    ts_body_id body;        /**< the body */
    ts_transform transform; /**< its pose after the step (origin and rotation, as ts_body_get_transform) */
    bool fell_asleep;       /**< its island fell asleep at the end of the step */
} ts_body_move_event;

/** The move events of the last step. The array belongs to the world and
 * stays valid until the next step, until the events are turned off, or
 * until the world is destroyed; the id of a body destroyed since is stale
 * there. */
typedef struct ts_body_moves {
    const ts_body_move_event *events; /**< count events */
    int count;                        /**< bodies the last step moved */
} ts_body_moves;

/** Turns body move events on (from the next step) or off. Either way the
 * list held is emptied. Returns TS_OK or TS_ERROR_STALE_ID. */
TS_API ts_result ts_world_enable_body_moves(ts_world_id world, bool enable);

/** The move events of the last step (see ts_body_moves; none before the
 * first step after they were turned on, and none after a step that ran
 * out of memory). Returns TS_OK, TS_ERROR_NULL_POINTER (moves),
 * TS_ERROR_STALE_ID, or TS_ERROR_INVALID_OPERATION when the events are
 * off (ts_world_enable_body_moves first). */
TS_API ts_result ts_world_get_body_moves(ts_world_id world, ts_body_moves *moves);

#ifdef __cplusplus
}
#endif

#endif

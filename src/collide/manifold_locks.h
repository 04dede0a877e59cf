/* Manifolds of bodies with motion locks (tessera/motion_locks.h): points
 * whose contact rows are the same once the locks are applied are one
 * point. See manifold_locks.c. */
#ifndef TS_COLLIDE_MANIFOLD_LOCKS_H
#define TS_COLLIDE_MANIFOLD_LOCKS_H

#include "collide/manifold.h"
#include "soa/records.h"

/* Merges the points of m (between bodies body_a and body_b) that the locks
 * make redundant; nothing when neither body has locks. */
void ts_manifold_merge_locked(const ts_records *records, int32_t body_a, int32_t body_b, ts_manifold *m);

#endif

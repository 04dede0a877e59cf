/* Ray queries of one ray over the broadphase's two trees (static and
 * movable), for the public ray casts (tessera/query.h): closest hit, any
 * hit, every hit. The shape tests and their rules are ray_lanes.h's, run at
 * width 1; the batched casts (ray_batch.h) give the same hits. Read only. */
#ifndef TS_COLLIDE_RAY_CAST_H
#define TS_COLLIDE_RAY_CAST_H

#include "collide/broadphase.h"
#include "collide/ray.h"
#include "tessera/query.h"

/* The public hit of shape at distance t with the given normal. */
ts_cast_hit ts_ray_make_hit(const ts_records *records, const ts_ray *ray, int32_t shape, float t, ts_vec3 normal);

/* The closest hit by (t, shape index), or hit = false. */
void ts_ray_cast_closest(const ts_records *records, const ts_broadphase *broadphase, const ts_ray *ray,
                         const ts_query_filter *filter, ts_cast_hit *hit);

/* The first hit the walk meets (static tree first), or hit = false. */
void ts_ray_cast_any(const ts_records *records, const ts_broadphase *broadphase, const ts_ray *ray,
                     const ts_query_filter *filter, ts_cast_hit *hit);

/* Every hit to fn in the walk's order until it returns false. */
void ts_ray_cast_each(const ts_records *records, const ts_broadphase *broadphase, const ts_ray *ray,
                      const ts_query_filter *filter, ts_cast_hit_fn *fn, void *context);

/* Every hit, the capacity nearest (by fraction, then shape index) into
 * hits in that order; returns how many there are. */
int ts_ray_cast_all(const ts_records *records, const ts_broadphase *broadphase, const ts_ray *ray,
                    const ts_query_filter *filter, ts_cast_hit *hits, int capacity);

#endif

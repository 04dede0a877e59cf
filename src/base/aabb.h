/* Axis-aligned bounding boxes: the volumes of the broadphase tree.
 *
 * A box is the closed set lower <= p <= upper; two boxes that only touch
 * overlap. Every helper is inline and uses only compares, + - * (no FMA, the
 * build uses -ffp-contract=off), so results are bitwise the same everywhere. */
#ifndef TS_AABB_H
#define TS_AABB_H

#include "base/math3.h"

#include <stdbool.h>

/* Default enlargement of a shape's tight box before it enters the broadphase
 * (metres). A body can move this far before its proxy must move in the tree.
 * The caller (the world) applies it; the tree stores whatever box it is given. */
#define TS_AABB_MARGIN 0.1f

typedef struct ts_aabb {
    ts_vec3 lower;
    ts_vec3 upper;
} ts_aabb;

/* Closed-interval overlap on all three axes (touching boxes overlap). */
static inline bool ts_aabb_overlaps(ts_aabb a, ts_aabb b)
{
    return !(a.upper.x < b.lower.x || b.upper.x < a.lower.x || a.upper.y < b.lower.y || b.upper.y < a.lower.y ||
             a.upper.z < b.lower.z || b.upper.z < a.lower.z);
}

/* Smallest box holding both. */
static inline ts_aabb ts_aabb_union(ts_aabb a, ts_aabb b)
{
    return (ts_aabb){ts_min3(a.lower, b.lower), ts_max3(a.upper, b.upper)};
}

/* True when a holds all of b. */
static inline bool ts_aabb_contains(ts_aabb a, ts_aabb b)
{
    return a.lower.x <= b.lower.x && a.lower.y <= b.lower.y && a.lower.z <= b.lower.z && b.upper.x <= a.upper.x &&
           b.upper.y <= a.upper.y && b.upper.z <= a.upper.z;
}

/* Surface area 2 (wx wy + wy wz + wz wx): the cost metric of the tree (the
 * chance that a random ray or box hits a convex volume grows with its area). */
static inline float ts_aabb_area(ts_aabb a)
{
    float wx = a.upper.x - a.lower.x;
    float wy = a.upper.y - a.lower.y;
    float wz = a.upper.z - a.lower.z;
    return 2.0f * (wx * wy + wy * wz + wz * wx);
}

/* Sum of the edge lengths wx + wy + wz (a cheaper, flat-box-friendly metric). */
static inline float ts_aabb_perimeter(ts_aabb a)
{
    return (a.upper.x - a.lower.x) + (a.upper.y - a.lower.y) + (a.upper.z - a.lower.z);
}

static inline ts_vec3 ts_aabb_center(ts_aabb a)
{
    return (ts_vec3){0.5f * (a.lower.x + a.upper.x), 0.5f * (a.lower.y + a.upper.y), 0.5f * (a.lower.z + a.upper.z)};
}

static inline ts_vec3 ts_aabb_extents(ts_aabb a)
{
    return (ts_vec3){0.5f * (a.upper.x - a.lower.x), 0.5f * (a.upper.y - a.lower.y), 0.5f * (a.upper.z - a.lower.z)};
}

/* The box grown by margin on every side (the "fat" box of a proxy). */
static inline ts_aabb ts_aabb_enlarge(ts_aabb a, float margin)
{
    ts_vec3 m = {margin, margin, margin};
    return (ts_aabb){ts_sub(a.lower, m), ts_add(a.upper, m)};
}

/* Grows *a in place to hold b; returns true when *a changed. */
static inline bool ts_aabb_enlarge_to_contain(ts_aabb *a, ts_aabb b)
{
    bool changed = false;
    if (b.lower.x < a->lower.x) { a->lower.x = b.lower.x; changed = true; }
    if (b.lower.y < a->lower.y) { a->lower.y = b.lower.y; changed = true; }
    if (b.lower.z < a->lower.z) { a->lower.z = b.lower.z; changed = true; }
    if (b.upper.x > a->upper.x) { a->upper.x = b.upper.x; changed = true; }
    if (b.upper.y > a->upper.y) { a->upper.y = b.upper.y; changed = true; }
    if (b.upper.z > a->upper.z) { a->upper.z = b.upper.z; changed = true; }
    return changed;
}

/* Finite and lower <= upper on every axis. */
static inline bool ts_aabb_is_valid(ts_aabb a)
{
    return ts_vec3_is_finite(a.lower) && ts_vec3_is_finite(a.upper) && a.lower.x <= a.upper.x &&
           a.lower.y <= a.upper.y && a.lower.z <= a.upper.z;
}

#endif

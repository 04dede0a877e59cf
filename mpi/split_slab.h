/* One world split in slabs along x (docs/distributed.md): where each
 * rank's slab lies, who owns a body, which bodies a neighbour needs as
 * ghosts, and the record a body travels in. Pure geometry: no MPI, no
 * tessera calls. */
#ifndef TESSERA_SPLIT_SLAB_H
#define TESSERA_SPLIT_SLAB_H

#include "scene_desc.h"

#include <stdbool.h>
#include <stdint.h>

/* A body's state as it crosses a slab boundary: its number in the scene
 * description (the same on every rank) and what the state hash reads. 56 bytes. */
typedef struct split_record {
    int32_t gid;
    float p[3], q[4], v[3], w[3];
} split_record;

/* Rank `rank` of `ranks` owns the bodies whose centre x lies in [lo, hi):
 * the first and last slabs reach to -inf and +inf. */
typedef struct split_slab {
    int rank, ranks;
    float lo, hi;
    float margin; /* m: bodies within margin of a boundary are ghosts on the other side */
} split_slab;

/* Slabs of equal width over [x_min, x_max]; fills slab for rank. */
void split_slab_init(split_slab *slab, int rank, int ranks, float x_min, float x_max, float margin);

/* Width of the narrowest inner slab (infinite with one or two ranks). */
float split_slab_min_width(float x_min, float x_max, int ranks);

static inline bool split_owns(const split_slab *s, float x)
{
    return x >= s->lo && x < s->hi;
}

/* The owned body at x is sent to the left (right) neighbour: it lies within
 * margin of that boundary, or beyond it (then it migrates). */
static inline bool split_send_left(const split_slab *s, float x)
{
    return s->rank > 0 && x < s->lo + s->margin;
}
static inline bool split_send_right(const split_slab *s, float x)
{
    return s->rank < s->ranks - 1 && x >= s->hi - s->margin;
}

/* Whether a body at x belongs here at all, owned or as a ghost. */
static inline bool split_keeps(const split_slab *s, float x)
{
    return x >= s->lo - s->margin && x < s->hi + s->margin;
}

/* The x range of a description's dynamic bodies, and the default margin:
 * twice the largest bounding radius of a dynamic shape plus 0.25 m, so that
 * every body that could touch an owned body within one step is a ghost. */
void split_scene_extent(const scene_desc *desc, float *x_min, float *x_max);
float split_default_margin(const scene_desc *desc);

#endif

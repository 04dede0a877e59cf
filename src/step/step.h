/* The stepping pipeline: the stages of one ts_world_step, in order (step.c),
 * and what the step does with the narrowphase's lists (touches.c). */
#ifndef TS_STEP_H
#define TS_STEP_H

#include "step/world_state.h"

/* One step of dt (checked by the caller). Allocates only while the world
 * grows (new contacts, events); nothing once it has reached its size.
 * *held: the id index of a body held at its last finite state (the result
 * is then TS_ERROR_NOT_FINITE), else -1. */
ts_result ts_step_world(ts_world *world, float dt, int32_t *held);

/* After the narrowphase (worker 0, in slot order): each contact that began
 * touching wakes its bodies' islands, takes a graph colour and links the
 * islands; each that stopped gives its colour and link up; then the
 * parted ones give theirs up too and are destroyed in one batch. The same
 * order as if the narrowphase had done it contact by contact.
 * ts_step_link_early (a ts_news_fn, collide/contact.h) does the first part
 * beside the narrowphase's last stage: the touches listed so far, up to
 * the first that wakes an island; ts_step_link_touches the rest. */
typedef struct ts_step_links {
    ts_world *world;
    int32_t linked; /* the listed touches done */
} ts_step_links;
ts_result ts_step_link_early(void *context);
ts_result ts_step_link_touches(ts_step_links *links);

#endif

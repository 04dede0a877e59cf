/* A joint's graph colour (see graph.h): taken when the joint is made or
 * its bodies' types change, given up when it goes. */
#ifndef TS_JOINT_GRAPH_H
#define TS_JOINT_GRAPH_H

#include "base/core.h"

struct ts_world;

/* Puts joint `index` into the first colour free for its dynamic bodies (no
 * colour when neither is dynamic). False when out of memory. */
bool ts_joint_color(struct ts_world *world, int32_t index);

/* Takes joint `index` out of its colour (no-op when it has none). */
void ts_joint_uncolor(struct ts_world *world, int32_t index);

#endif

/* One run of a sweep: the seeded perturbation of the scene, the bench's own
 * run (tessera_run, so the figures and the state hash mean what they mean
 * in tessera-bench), and its JSON line. No MPI here. */
#ifndef TESSERA_SWEEP_RUN_H
#define TESSERA_SWEEP_RUN_H

#include "sweep_desc.h"

/* Runs run on this process and returns its JSON line ("{...}\n", malloc'ed;
 * the caller frees it): tessera-bench's keys, then "sweep_run" (the run
 * number), "rank", "ok" (built and stepped without an error), and "sweep"
 * (the description's values for this run). A run that fails still gives
 * its line, with "ok": false and the reason in "error". Returns NULL only
 * when memory runs out. */
char *sweep_execute(const sweep_run *run, int rank);

/* The perturbation of a seeded run: every dynamic body's linear velocity,
 * component by component in body order, gets jitter * 2 (u - 0.5), u drawn
 * from scenes.md's linear congruential generator seeded with seed. */
void sweep_perturb(scene_desc *desc, uint32_t seed, float jitter);

#endif

/* The schedule of a paired colour pass (solver.c): with two workers, the
 * colours' contacts are ordered by the two halves of the awake slots
 * (contact_order.h): in each colour first those of the lower half alone
 * (int0), then those that join the halves (cross), then those of the upper
 * half alone that touch a border body, one that some crossing contact of
 * any colour touches (int1b), then the rest of the upper half's (int1n). A
 * colour pass is then one stage of two blocks instead of a stage per
 * colour: side 0 runs int0 and cross of colour after colour, side 1 int1n
 * and int1b, and each waits only for what it needs of the other:
 *
 *   int0 of colour c   touches lower bodies only: needs nothing of side 1
 *   cross of colour c  needs int1b of the colours before c
 *   int1n of colour c  touches no body side 0 touches: needs nothing
 *   int1b of colour c  needs cross of the colours before c
 *
 * These are all the pairs of constraints of different colours that can
 * share a body, so the result is the result of a stage per colour, or of
 * one worker: bitwise the same state. (int0 of the next colour cannot run
 * ahead of cross: they share lower bodies.) Each side has a unit that
 * needs nothing of the other between two that do (int0, int1n), so a
 * colour whose share is larger on one side costs a wait only where that
 * slack does not cover it (the cut balances the sums, not each colour).
 * When int1 waited for cross as a whole, side 1 had no such unit: pile at
 * two workers waited ~21 us a pass summed over both sides, now ~10
 * (wide_pyramid ~20 -> ~13), and its colour passes take ~6% less time.
 * No bundle holds contacts of both sides' units: int1b starts on a
 * bundle's first lane (the order pads the crossing bundles). Moving the
 * next colour's int0 that touches no border body ahead of cross too (a
 * second pad, before cross) waited no less in sum: not done.
 *
 * A side's units (int0, cross, int0, cross, ... for side 0; int1n, int1b,
 * ... for side 1) are claimed from a cursor and counted done on lines of their
 * own, so a worker whose partner does not come (descheduled, or a task
 * system that runs its tasks late) takes the partner's next unit itself
 * after a patience, when the partner is between units: no wait lasts for
 * ever, and no unit runs twice or before the one before it. The counters
 * only grow: each stage counts from a base past the last stage's counts. */
#ifndef TS_PAIR_SCHEDULE_H
#define TS_PAIR_SCHEDULE_H

#include "base/parallel.h"

#include <stdbool.h>
#include <stdint.h>

/* Runs unit `unit` of `side` / tells whether it runs no bundle. */
typedef void ts_pair_unit_fn(void *context, int side, int32_t unit);
typedef bool ts_pair_empty_fn(void *context, int side, int32_t unit);

typedef struct ts_pair_schedule {
    ts_worker_line *lines; /* 4: side 0's cursor and done count, side 1's */
    uint64_t base;         /* the stage's counts start past it */
    int colors;
    int patience; /* spins before a waiting worker takes the other side's unit */
} ts_pair_schedule;

/* How far the base moves from stage to stage. */
static inline uint64_t ts_pair_stride(int colors) { return 2 * (uint64_t)colors + 1; }

/* Runs side `side`'s units of the stage (a block of the paired stage). */
void ts_pair_run(const ts_pair_schedule *schedule, int side, ts_pair_unit_fn *run, ts_pair_empty_fn *empty,
                 void *context);

#endif

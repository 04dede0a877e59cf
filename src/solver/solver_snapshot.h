/* Snapshots of the solver's part of a world (docs/snapshots.md): its
 * settings, and what the soft step keeps between steps outside the
 * records: the ball joints' bundles (ball_joint.h) keep each lane's pose
 * of the last substep and impulse from one step to the next, so that a
 * world resumed without them would refill them from the bodies' poses and
 * differ in the last bits. The lanes are written per joint, so that a
 * world saved at one SIMD width resumes at another.
 *
 * The width and thread count are not saved: the loading program chooses
 * them (ts_world_load), and every width gives the same bits. */
#ifndef TS_SOLVER_SNAPSHOT_H
#define TS_SOLVER_SNAPSHOT_H

#include "soa/records_snapshot.h"
#include "solver/solver.h"

/* step_count: the world's steps so far. Flushes the ball bundles' pending
 * impulses into the joints first (as a read of them would). */
void ts_solver_save(ts_writer *w, ts_solver *solver, ts_records *records, const ts_constraint_graph *graph,
                    int32_t step_count);
ts_load_status ts_solver_load(ts_reader *r, ts_solver *solver, const ts_records *records,
                              const ts_constraint_graph *graph, int32_t step_count);

#endif

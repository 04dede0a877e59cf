/* XPBD's ball joints on the soft step's ball bundles (ball_joint.h):
 * the same compact layout, preparation (ts_ball_prepare) and isotropic
 * fast path, with XPBD's kernels: a warm start of the velocities and a
 * projection of the poses (xpbd_ball.c). Compiled once per width.
 *
 * What the bundle's rows mean here: `impulse` is the last substep's
 * multiplier over h (N s; its reaction force is impulse / h, as the soft
 * step's; zero after a violent correction), and `anchor_a`, `anchor_b`,
 * `delta_center` the pose at the step's start, which
 * XPBD evaluates from the bodies' poses every step (ts_joint_prepare_context
 * ball_refresh): its last projection of a step is followed by other joints'
 * projections that turn the same bodies, so the pose it saw is not the
 * step's end, as the soft step's last relax is. */
#ifndef TS_XPBD_BALL_H
#define TS_XPBD_BALL_H

#include "solver/ball_joint.h"

typedef struct ts_xpbd_ball_context {
    ts_body_state *states;           /* awake bodies by slot, then the dummy */
    const ts_joint_scratch *scratch; /* the step's bundles (for the cold parts) */
    float h, inv_h;
    float warm_scale; /* share of the last substep's multiplier the warm start applies */
} ts_xpbd_ball_context;

/* Applies warm_scale times the last substep's impulses at the anchors
 * turned with the bodies, to the velocities (before the positions are
 * integrated), and keeps them as the substep's multiplier so far. `count`
 * consecutive bundles of one colour. */
void TS_WIDE(ts_xpbd_ball_warm_start)(const ts_xpbd_ball_context *c, ts_ball_bundle *b, int32_t count);

/* A joint loaded beyond this many times the weight of its two bodies
 * (xpbd_ball.c) is projected twice a substep. The second projection is
 * what a heavy load on light links needs (the 1,000:1 ball and chain's
 * largest gap at 8 substeps: 0.084 m gated so, 0.081 m with two
 * projections everywhere, 0.17 m with one), and little else does:
 * joint_grid's joints carry less and are projected once (callgrind,
 * 4 substeps, one thread: 23.6 M instructions a step against the soft
 * step's 20.4 M; two projections everywhere cost 1.9 times the soft
 * step's). Tried with it: stopping the anchors' relative velocity after
 * each projection (the soft step's relax); the chain then diverged at 4
 * substeps and opened to 0.21 m at 8, dropped. */
#define TS_XPBD_LOADED_RATIO 100.0f

/* The share of warm_scale a joint that is not loaded (above) carries over:
 * one Gauss-Seidel sweep a substep carries most of a light joint's load
 * within the substep, and the multiplier carried over from the last one
 * mostly feeds the slow ring of a resting chain's multipliers. A chain of
 * six 1 kg links hanging at rest at 4 substeps (test_joints): its top
 * joint's force rings by 5.6 N around its 60 N between 0.4 and 0.7 s at
 * 0.4 (x 1), 2.8 N at 0.3 (x 0.75), and it falls asleep reading 59.25 N
 * and 59.97 N; the 1,000:1 ball and chain's joints are all loaded and keep
 * 0.4. */
#define TS_XPBD_LIGHT_WARM_SHARE 0.75f

/* One projection of the point constraints at the current poses: the gap
 * d = (cB + rB) - (cA + rA) closed by P = -K^-1 d, the poses and velocities
 * moved (xpbd_lanes.h), P / h added to the impulse. `again`: the substep's
 * second projection, of the loaded lanes alone (above). */
void TS_WIDE(ts_xpbd_ball_project)(const ts_xpbd_ball_context *c, ts_ball_bundle *b, int32_t count, bool again);

#endif

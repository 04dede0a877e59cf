/* Ball joints in bundles of their own (compiled once per width, like every
 * kernel): a compact layout holding only what a point constraint reads, the
 * preparation going wide, and kernels that keep the pose of the substep in
 * the bundle so that the warm start and the biased solve gather only the
 * bodies' velocities.
 *
 * Why: a large jointed scene (joint_grid: 19,800 ball joints) is nearly all
 * ball joints, and the general joint bundle (joint_solver.h) carries ~2.5 kB
 * of rows for the other types. Most of a ball pass was the gather and
 * scatter of the two bodies and turning the anchors with the bodies'
 * rotations; both are done once per substep here, in the relax pass.
 *
 * Isotropic lanes: all of joint_grid's bodies are spheres, whose inverse
 * inertia is a scalar times the identity in every frame. A lane whose two
 * bodies are so keeps the two scalars, and its angular responses and K
 * take a few products (ball_joint.c); a bundle of such lanes reads no
 * inertia matrix at all. Whether a lane is isotropic depends on its bodies
 * alone, and a bundle with a general lane computes both forms and selects
 * per lane, so a joint gets the same bits in any bundle at any width.
 *
 * The substep's pose: the relax pass runs after the positions moved, so the
 * anchors it turns, the gap between the frame origins and K^-1 at those
 * anchors are also those of the next substep's warm start and solve (the
 * velocity integration between moves no body); the preparation stores those
 * of the step's start for the first substep.
 *
 * The step's start: the step's last relax also keeps its anchors and the
 * offset between the centres (moved by the bodies' dp) as the next step's
 * start, and a kept bundle of isotropic lanes then needs no preparation at
 * all (it cost a tenth of joint_grid's step: the bodies' poses gathered per
 * lane and two rotations). Those anchors are the step-start anchors turned
 * by dq, where the stored rotation is normalise(dq q0): they differ by
 * rounding (~1e-7 a step), so every TS_BALL_REFRESH_STEPS steps the
 * preparation evaluates them from the bodies' poses again, and a body moved
 * through the API, a new layout or a held body refills them. */
#ifndef TS_BALL_JOINT_H
#define TS_BALL_JOINT_H

#include "soa/records.h"
#include "solver/joint_solver.h"

struct ts_joint_prepare_context;

/* Every row starts at a multiple of its own size (TS_W floats), so no row
 * load splits a cache line; the array of bundles starts at 64 bytes. */
#define TS_BALL_ROW_ALIGN (TS_W * 4 < 64 ? TS_W * 4 : 64)

typedef struct ts_ball_bundle {
    /* Read by every kernel, in this order. */
    /* byte offset of the body's state, index * sizeof(ts_body_state) (the
     * dummy's for static and sleeping bodies and empty lanes) */
    _Alignas(TS_BALL_ROW_ALIGN) int32_t state_a[TS_W];
    int32_t state_b[TS_W];
    float inv_mass_a[TS_W];
    float inv_mass_b[TS_W];
    /* An isotropic lane (both bodies' inverse inertias a multiple of the
     * identity, as for spheres, cubes and bodies that do not move here)
     * keeps the two scalars; a general lane keeps zeros here and its world
     * inverse inertias below. */
    float iso_inertia_a[TS_W];
    float iso_inertia_b[TS_W];
    /* The pose of the substep: the anchors turned with the bodies, the gap
     * (cB + rB) - (cA + rA) and the inverse of K at those anchors. */
    float arm_a[3][TS_W];
    float arm_b[3][TS_W];
    float gap[3][TS_W];
    float point_mass[6][TS_W];
    float impulse[3][TS_W];
    /* Read by the relax pass: the pose at the step's start. */
    float anchor_a[3][TS_W];     /* frame A's origin - centre of mass of A (world, step start) */
    float anchor_b[3][TS_W];
    float delta_center[3][TS_W]; /* centre of B - centre of A at the step's start */
    int32_t general; /* some lane is not isotropic */
} ts_ball_bundle;

/* What the passes do not read, kept beside the bundles in an array of its
 * own at the same index: the passes stream their bundles from memory
 * (joint_grid's 2,475 outgrow the caches), and with these rows inside each
 * bundle every pass paid for them (measured: 704 bytes more per bundle made
 * the warm start 30% slower). */
typedef struct ts_ball_cold {
    /* Kept across steps with the layout (joint_scratch.h), read only by the
     * preparation: each body's store slot (for its pose at the step's
     * start; -1 in an empty lane) and the anchors in the simulation frames. */
    _Alignas(TS_BALL_ROW_ALIGN) int32_t slot_a[TS_W];
    int32_t slot_b[TS_W];
    float local_a[3][TS_W];
    float local_b[3][TS_W];
    /* Read only when the bundle has a general lane (`general`): 1 in an
     * isotropic lane, 0 in a general one, and the general lanes' world
     * inverse inertias at the step's start (xx yy zz xy xz yz; zeros in the
     * isotropic lanes). */
    float isotropic[TS_W];
    float inv_inertia_a[6][TS_W];
    float inv_inertia_b[6][TS_W];
} ts_ball_cold;

/* The ball bundles of the world's joint scratch (64-byte aligned). */
ts_ball_bundle *TS_WIDE(ts_ball_bundles)(const ts_joint_scratch *scratch);

/* The cold part of ball bundle b (of the world's joint scratch). */
ts_ball_cold *TS_WIDE(ts_ball_cold_of)(const ts_joint_scratch *scratch, const ts_ball_bundle *b);

/* Bytes to reserve for n ball bundles and their cold parts (with room to
 * align them). */
int32_t TS_WIDE(ts_ball_bundle_bytes)(int32_t n);

/* Fills ball bundle b with the joints ids[0 .. lanes - 1]: everything
 * when c->ball_fill says so (a new layout, the bundle not prepared in the
 * previous step, or a body moved by the API since); else in a bundle with a
 * general lane only what moves with the bodies (anchors in the world,
 * centres, world inverse inertias), the rest kept from the previous step
 * (bodies, masses, local anchors, the impulses it ended with); else, in a
 * bundle of isotropic lanes, nothing but on c->ball_refresh (the pose and
 * K^-1 its last relax kept, see above). */
void TS_WIDE(ts_ball_prepare)(const struct ts_joint_prepare_context *c, ts_ball_bundle *b, const int32_t *ids,
                              int lanes);

/* Every ball lane's kept pose and impulse into kept (TS_BALL_KEPT floats
 * per joint id, the first set to 1; solver/solver_snapshot.h). */
void TS_WIDE(ts_ball_export_kept)(const ts_joint_scratch *s, float *kept);

/* The kernels run over `count` consecutive bundles from b (one colour's:
 * they touch different bodies). */

/* Applies the accumulated impulses at the substep's anchors. */
void TS_WIDE(ts_ball_warm_start)(const ts_joint_solver_context *c, ts_ball_bundle *b, int32_t count);

/* One soft pass at the substep's pose (velocities only). */
void TS_WIDE(ts_ball_solve)(const ts_joint_solver_context *c, ts_ball_bundle *b, int32_t count);

/* One rigid pass at the pose after the positions moved; keeps that pose
 * (anchors, gap, K^-1) for the next substep. */
void TS_WIDE(ts_ball_relax)(const ts_joint_solver_context *c, ts_ball_bundle *b, int32_t count);

/* Writes the impulses and reaction forces back to the joints. */
void TS_WIDE(ts_ball_store_impulses)(ts_records *records, const ts_ball_bundle *b, const int32_t *ids, int lanes,
                                     float inv_h);

#endif

/* The joint part of a step's solver scratch (width independent): the
 * joints of each graph colour sorted by type, and where each bundle of TS_W
 * joints of one type starts. The bundles themselves have the width's layouts
 * (ball joints: ball_joint.h; the other types: joint_solver.h), each layout
 * in an array of its own; the world keeps this scratch so that a world that
 * stopped growing allocates nothing. */
#ifndef TS_JOINT_SCRATCH_H
#define TS_JOINT_SCRATCH_H

#include "base/core.h"
#include "soa/records.h"

typedef struct ts_joint_bundle_ref {
    int32_t first; /* index into sorted of the bundle's first joint */
    int32_t slot;  /* index in its layout's array: ball_bundles for ball joints, custom_lanes for custom
                    * constraints (its first lane: one per constraint), else bundles */
    int16_t type;  /* ts_joint_type of every lane */
    int16_t lanes; /* joints in the bundle (<= TS_W; 1 in the overflow) */
    int32_t run_end; /* one past the last bundle of its colour with its type (a pass calls a kernel per run) */
} ts_joint_bundle_ref;

typedef struct ts_joint_scratch {
    int32_t *sorted; /* joint ids, colour by colour, type by type within a colour */
    int32_t sorted_capacity;
    ts_joint_bundle_ref *refs; /* one per bundle */
    int32_t ref_capacity;
    void *bundles; /* the width's general bundles (every type but the ball), in the order of refs */
    int32_t bundle_bytes;
    void *ball_bundles; /* the width's ball bundles, in the order of refs (64-byte aligned inside), then their cold parts */
    int32_t ball_bytes;
    int32_t ball_count; /* ball bundles of the layout */
    void *custom_lanes; /* custom constraints: one ts_custom_lane each (solver/custom_constraint.h) */
    int32_t custom_bytes;
    int32_t custom_count; /* custom constraints of the layout */
    int32_t color_begin[TS_COLOR_COUNT + 2]; /* bundles of colour c: [color_begin[c], color_begin[c + 1]) */
    /* The layout above is kept while nothing it depends on changed: the
     * graph's joints (graph joint_revision), the body slots and masses
     * (body store table revision) and the width. layout_width 0: none yet. */
    uint32_t layout_graph_revision;
    uint32_t layout_store_revision;
    int32_t layout_width;
    /* The graph's joint revision and the width whose joint counts the
     * step's reserve (solver_reserve.c) made room for, and the bundles it
     * counted: the count is skipped while they stay. reserved_width 0: none. */
    uint32_t reserved_revision;
    int32_t reserved_width;
    int32_t reserved_bundles;
    /* The ball bundles keep their bodies, masses, anchors in the bodies'
     * simulation frames and impulses across steps: valid when the soft step
     * filled them in the previous step (the world's step count) with this layout;
     * -1 forces a full fill (a new layout, a switch of solver). */
    int32_t ball_step;
    bool layout_rebuilt; /* ts_joint_solver_begin laid out the bundles afresh this step */
    /* The soft step leaves the ball joints' impulses in their bundles (a
     * write to every joint record per step cost ~5% of joint_grid's step):
     * while pending, the bundles hold the newest impulses, and
     * ts_joint_flush_impulses writes them (and the reaction forces, impulse
     * times ball_inv_h) to the joints. It must run before the layout's
     * joints change (a joint leaves the graph, the layout is rebuilt) and
     * before a joint's impulses or reactions are read. */
    bool ball_impulses_pending;
    float ball_inv_h;
    /* A loaded snapshot's kept ball lanes (solver/solver_snapshot.h): per
     * joint id TS_BALL_KEPT floats, the first 1 when the joint has them.
     * The first step after the load lays the bundles out afresh and puts
     * these back into their lanes, so that it goes on as the saved world's
     * next step would have with the bundles it kept; then they are freed. */
    float *ball_kept;
    int32_t ball_kept_count; /* joints (ids) it has room for; 0: none */
} ts_joint_scratch;

/* Floats of one joint's kept ball lane: the flag, then the pose of the
 * substep (arms, gap, K^-1), the impulse and the step-start pose. */
#define TS_BALL_KEPT 28

void ts_joint_scratch_free(ts_joint_scratch *scratch, const ts_allocator *allocator);

/* Frees a loaded snapshot's kept ball lanes (ball_kept). */
void ts_joint_scratch_free_kept(ts_joint_scratch *scratch, const ts_allocator *allocator);

/* Writes the ball bundles' pending impulses to their joints (nothing when
 * none are pending); the generic entry and its build per width. */
void ts_joint_flush_impulses(ts_joint_scratch *scratch, ts_records *records);
void ts_ball_flush_impulses_w1(const ts_joint_scratch *scratch, ts_records *records);
void ts_ball_flush_impulses_w4(const ts_joint_scratch *scratch, ts_records *records);
void ts_ball_flush_impulses_w8(const ts_joint_scratch *scratch, ts_records *records);
void ts_ball_flush_impulses_w16(const ts_joint_scratch *scratch, ts_records *records);
void ts_ball_flush_impulses_w16x(const ts_joint_scratch *scratch, ts_records *records);

#endif

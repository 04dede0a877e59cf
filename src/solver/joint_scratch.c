/* The joint scratch of the solver (joint_scratch.h): freed with the world. */
#include "solver/joint_scratch.h"

#include "base/array.h"
#include "solver/joint_prepare.h"

void ts_joint_scratch_free(ts_joint_scratch *scratch, const ts_allocator *allocator)
{
    ts_array_free(allocator, (void **)&scratch->sorted, &scratch->sorted_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&scratch->refs, &scratch->ref_capacity, sizeof(ts_joint_bundle_ref));
    ts_array_free(allocator, &scratch->bundles, &scratch->bundle_bytes, 1);
    ts_array_free(allocator, &scratch->ball_bundles, &scratch->ball_bytes, 1);
    ts_array_free(allocator, &scratch->custom_lanes, &scratch->custom_bytes, 1);
    scratch->custom_count = 0;
    ts_joint_scratch_free_kept(scratch, allocator);
    scratch->layout_width = 0;
    scratch->reserved_width = 0;
    scratch->ball_step = -1;
}

void ts_joint_scratch_free_kept(ts_joint_scratch *scratch, const ts_allocator *allocator)
{
    ts_free(allocator, scratch->ball_kept, (size_t)scratch->ball_kept_count * TS_BALL_KEPT * sizeof(float));
    scratch->ball_kept = NULL;
    scratch->ball_kept_count = 0;
}

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
    scratch->layout_width = 0;
    scratch->ball_step = -1;
}

/* Picks the solver (soft step or XPBD) of the world's SIMD width, finds the widest width the CPU
 * runs, and frees the solver's scratch. */
#include "solver/solver.h"

#include "solver/xpbd_solver.h"

#include "base/array.h"

/* Width 16 has two builds (base/wide.h): for AVX-512 (_w16x) where the
 * CPU and its OS run avx512f/dq/bw/vl, else on AVX2 registers (_w16). Both
 * give the same bits. */
#ifdef TS_BUILT_W16X
static bool w16_native(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}
#endif

void ts_solver_scratch_free(ts_solver_scratch *scratch, const ts_allocator *allocator)
{
    ts_array_free(allocator, (void **)&scratch->states, &scratch->state_capacity, sizeof(ts_body_state));
    ts_array_free(allocator, &scratch->bundles, &scratch->bundle_bytes, 1);
    ts_array_free(allocator, &scratch->bounces, &scratch->bounce_bytes, 1);
    ts_array_free(allocator, &scratch->totals, &scratch->total_bytes, 1);
    ts_array_free(allocator, (void **)&scratch->ordered, &scratch->ordered_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&scratch->order_keys, &scratch->order_key_capacity, sizeof(uint16_t));
    ts_array_free(allocator, (void **)&scratch->order_slots, &scratch->order_slot_capacity, sizeof(int32_t));
    ts_array_free(allocator, (void **)&scratch->border, &scratch->border_capacity, sizeof(uint8_t));
    ts_array_free(allocator, (void **)&scratch->substep_start, &scratch->substep_start_capacity, sizeof(ts_body_state));
    ts_array_free(allocator, &scratch->xpbd_lanes, &scratch->xpbd_lane_bytes, 1);
    ts_array_free(allocator, &scratch->xpbd_joint_bundles, &scratch->xpbd_joint_bundle_bytes, 1);
    ts_array_free(allocator, &scratch->stage_list, &scratch->stage_list_bytes, 1);
}

void ts_joint_flush_impulses(ts_joint_scratch *scratch, ts_records *records)
{
    if (!scratch->ball_impulses_pending) {
        return;
    }
    switch (scratch->layout_width) { /* the width that laid the bundles out */
#ifdef TS_BUILT_W4
    case 4: ts_ball_flush_impulses_w4(scratch, records); break;
#endif
#ifdef TS_BUILT_W8
    case 8: ts_ball_flush_impulses_w8(scratch, records); break;
#endif
#ifdef TS_BUILT_W16
    case 16:
#ifdef TS_BUILT_W16X
        if (w16_native()) {
            ts_ball_flush_impulses_w16x(scratch, records);
            break;
        }
#endif
        ts_ball_flush_impulses_w16(scratch, records);
        break;
#endif
    default: ts_ball_flush_impulses_w1(scratch, records); break;
    }
    scratch->ball_impulses_pending = false;
}

bool ts_simd_width_is_built(int width)
{
    switch (width) {
    case 1: return true;
#ifdef TS_BUILT_W4
    case 4: return true;
#endif
#ifdef TS_BUILT_W8
    case 8: return true;
#endif
#ifdef TS_BUILT_W16
    case 16: return true;
#endif
    default: return false;
    }
}

/* The widest width the CPU runs natively: 16 where width 16's AVX-512 build
 * runs (avx512f/dq/bw/vl; measured faster than 8 in every scene, and in
 * every kernel pass but the warm start (equal), on an AMD EPYC with AVX-512:
 * docs/performance.md), else 8 on AVX2, 4
 * on SSE4.1. Elsewhere SIMDe emulates 16 on narrower registers: exact, for
 * tests, only when forced. */
int ts_detect_simd_width(void)
{
#if defined(TS_SIMD_PORTABLE)
    return 1; /* the wide kernels are SIMDe's portable C: slower than scalar; forcible for tests */
#elif defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
#if defined(TS_BUILT_W16X)
    if (w16_native()) {
        return 16;
    }
#endif
#ifdef TS_BUILT_W8
    if (__builtin_cpu_supports("avx2")) {
        return 8;
    }
#endif
#ifdef TS_BUILT_W4
    if (__builtin_cpu_supports("sse4.1")) {
        return 4;
    }
#endif
    return 1;
#elif defined(TS_BUILT_W4)
    return 4; /* NEON, or SIMDe's portable C: 4 lanes fit every vector unit */
#else
    return 1;
#endif
}

static ts_result solve_xpbd(ts_solver *solver, const ts_solve_input *in, int32_t *held)
{
    switch (solver->simd_width) {
#ifdef TS_BUILT_W4
    case 4: return ts_solve_xpbd_w4(solver, in, held);
#endif
#ifdef TS_BUILT_W8
    case 8: return ts_solve_xpbd_w8(solver, in, held);
#endif
#ifdef TS_BUILT_W16
    case 16:
#ifdef TS_BUILT_W16X
        if (w16_native()) {
            return ts_solve_xpbd_w16x(solver, in, held);
        }
#endif
        return ts_solve_xpbd_w16(solver, in, held);
#endif
    default: return ts_solve_xpbd_w1(solver, in, held);
    }
}

ts_result ts_solve(ts_solver *solver, const ts_solve_input *in, int32_t *held)
{
    if (solver->type == TS_SOLVER_XPBD) {
        return solve_xpbd(solver, in, held);
    }
    switch (solver->simd_width) {
#ifdef TS_BUILT_W4
    case 4: return ts_solve_w4(solver, in, held);
#endif
#ifdef TS_BUILT_W8
    case 8: return ts_solve_w8(solver, in, held);
#endif
#ifdef TS_BUILT_W16
    case 16:
#ifdef TS_BUILT_W16X
        if (w16_native()) {
            return ts_solve_w16x(solver, in, held);
        }
#endif
        return ts_solve_w16(solver, in, held);
#endif
    default: return ts_solve_w1(solver, in, held);
    }
}

bool ts_solver_reserve_step(ts_solver *solver, const ts_records *records, const ts_constraint_graph *graph,
                            ts_step_adds adds, ts_overflow_bound_fn *overflow_bound, void *context)
{
    switch (solver->simd_width) {
#ifdef TS_BUILT_W4
    case 4: return ts_solver_reserve_step_w4(solver, records, graph, adds, overflow_bound, context);
#endif
#ifdef TS_BUILT_W8
    case 8: return ts_solver_reserve_step_w8(solver, records, graph, adds, overflow_bound, context);
#endif
#ifdef TS_BUILT_W16
    case 16:
#ifdef TS_BUILT_W16X
        if (w16_native()) {
            return ts_solver_reserve_step_w16x(solver, records, graph, adds, overflow_bound, context);
        }
#endif
        return ts_solver_reserve_step_w16(solver, records, graph, adds, overflow_bound, context);
#endif
    default: return ts_solver_reserve_step_w1(solver, records, graph, adds, overflow_bound, context);
    }
}

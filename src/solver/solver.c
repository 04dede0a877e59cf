/* The soft-step solver of a step (see solver.h), compiled once per SIMD
 * width TS_W: prepares the body states and one constraint bundle per TS_W
 * touching contacts of a graph colour,
 * then runs, per substep,
 *
 *   integrate velocities, warm start, solve (soft bias), integrate positions,
 *   relax (no bias)
 *
 * and after the substeps restitution and the impulse store; finally writes
 * the bodies back and runs the step's pass over them (ts_solve_input.finish:
 * their bounds and sleep timers). Runs on worker 0 inside
 * the step's parallel region: every pass over bodies and every colour of a
 * pass over bundles is one stage of the step's workers (base/parallel.h),
 * colours in order, the overflow bundles a stage of one block after them;
 * with two workers and no joints a colour pass is one paired stage
 * instead, each worker waiting only for what it needs of the other
 * (below), with the same result, and prepare and the store are one stage
 * each, every worker preparing and storing the bundles its side runs.
 * The stages are listed first and published as two lists (prepare's; the
 * substeps' to the write-back), so the workers walk from stage to stage
 * without a publish each (ts_parallel_for_list). */
#include "solver/solver.h"

#include "base/array.h"
#include "base/error.h"
#include "base/math3.h"
#include "base/parallel.h"
#include "base/timer.h"
#include "solver/contact_order.h"
#include "solver/contact_prepare.h"
#include "solver/contact_solver.h"
#include "solver/integrate.h"
#include "solver/custom_constraint.h"
#include "solver/joint_prepare.h"
#include "solver/pair_schedule.h"

#include <string.h>

/* Items per block of a parallel stage (base/parallel.h): enough work that
 * claiming a block (one compare-and-swap, ~50-100 ns between cores) costs a
 * few percent, few enough blocks per colour that every worker gets some. */
#define TS_BODY_BLOCK 128
#define TS_BUNDLE_BLOCK (32 / TS_W > 1 ? 32 / TS_W : 1)
/* A colour of mostly joints: a ball bundle is a few hundred instructions,
 * and at 32 joints a block its claim and dispatch cost ~10% of a pass
 * (joint_grid); 128 joints a block still leave ~40 blocks per colour there. */
#define TS_JOINT_BLOCK (128 / TS_W > 1 ? 128 / TS_W : 1)
/* Contacts per block of the paired order's border marks (mark_border). */
#define TS_MARK_BLOCK 256

/* ---- the stages ---- */

typedef struct solve_context {
    ts_solver *solver;
    ts_records *records;
    const ts_constraint_graph *graph;
    ts_parallel *parallel;
    ts_step_profile *profile;
    ts_body_pass_fn *finish;
    void *finish_context;
    ts_solver_scratch *scratch;
    ts_contact_prepare_context prepare;
    ts_contact_solver_context kernels;
    ts_joint_prepare_context joint_prepare;
    ts_joint_solver_context joint_kernels[2]; /* [1]: the step's last relax pass (last_relax) */
    ts_vec3 gravity;
    float h;
    ts_speed_limit limit; /* the world's speed limits in a substep */
    int substeps;
    int32_t awake;
    int32_t step;          /* the world's step count: the report's stamp */
    bool reports;          /* the world reports impulses or hits (solver/contact_report.h) */
    bool report_impulses;  /* ... impulses: the totals lanes are kept */
    int32_t first_bad[TS_MAX_THREADS]; /* per worker: the first body held at its last finite state */
    bool free_found[TS_MAX_THREADS];   /* per worker: the states' start met a full bundle of free bodies */
    bool bounce_found[TS_MAX_THREADS]; /* per worker: prepare met a bundle that restitutes */
    bool free_bodies;                  /* some worker did: the body passes treat them so (integrate.h) */
    int filled[TS_OVERFLOW_COLOR + 1]; /* the colours that hold contacts, in order: the order pass's items */
    int paired_count;                  /* the first of them the paired passes run (all but the overflow) */
    bool pairs;                        /* the colour passes run paired (two workers, no joints) */
    /* the step's stages, published as lists (base/parallel.h): */
    ts_stage_def *defs;
    struct solve_stage *stages; /* defs[i].context */
    int32_t listed;             /* stages so far */
    int32_t list_first;         /* the first of the list being built */
    int32_t list_capacity;
    int substep;     /* the substep whose stages are being listed */
    double *slot;    /* the profile stage they are charged to */
    double mark;     /* worker 0: when the last charged stage ended */
} solve_context;

static inline int32_t min_slot(int32_t a, int32_t b) { return a < b ? a : b; }

typedef enum pass {
    PASS_STATES_BEGIN,
    PASS_INTEGRATE_VELOCITIES,
    PASS_INTEGRATE_POSITIONS,
    PASS_FINISH,
    PASS_ORDER,
    PASS_BORDER,
    PASS_PREPARE,
    PASS_WARM_START,
    PASS_SOLVE,
    PASS_RELAX,
    PASS_RESTITUTION,
    PASS_STORE
} pass;

/* One parallel stage: a pass over a range of items: bodies, or contact
 * bundles [first, first + count) followed by joint bundles
 * [joint_first, joint_first + joint_count) (a colour's joints touch other
 * bodies than its contacts, so both run in the same stage); or over a run
 * of small colours [first_color, end_color), or the overflow set. */
typedef struct solve_stage {
    solve_context *c;
    pass kind;
    int32_t first; /* first item */
    int32_t count;
    int32_t joint_first;
    int32_t joint_count;
    int32_t block_size;
    int first_color, end_color;
    uint64_t pair_base; /* paired passes: the counters' base of this stage */
    int substep;
    bool last_relax; /* the step's last relax pass (joint_solver.h) */
    double *slot;    /* the profile stage its time is charged to */
} solve_stage;

/* A pass streams its bundles from memory (a large scene's outgrow the
 * caches) and reads each one's rows out of order (head, points, tail), so the
 * next bundle's lines are asked for while this one is solved. */
static void prefetch_bundle(const ts_contact_bundle *b) { ts_contact_prefetch_bundle(b); }

/* Contact bundle k. Most contacts do not bounce: their bundles leave the
 * restitution bookkeeping alone and skip the restitution pass. */
static void run_bundle(solve_context *c, int32_t k, pass kind)
{
    ts_contact_bundle *b = (ts_contact_bundle *)c->scratch->bundles + k;
    ts_contact_bounce_lanes *bounce = b->bounces ? (ts_contact_bounce_lanes *)c->scratch->bounces + k : NULL;
    /* the reports' totals (solver/contact_report.h), only where they are kept */
#define TOTALS (c->report_impulses ? (ts_contact_total_lanes *)c->scratch->totals + k : NULL)
    switch (kind) {
    case PASS_WARM_START: TS_WIDE(ts_contact_warm_start)(&c->kernels, b); break;
    case PASS_SOLVE: TS_WIDE(ts_contact_solve)(&c->kernels, b, bounce, true); break;
    case PASS_RELAX:
        if (c->report_impulses) {
            TS_WIDE(ts_contact_relax_totals)(&c->kernels, b, bounce, TOTALS);
        } else {
            TS_WIDE(ts_contact_solve)(&c->kernels, b, bounce, false);
        }
        break;
    case PASS_RESTITUTION:
        if (bounce && b->restitutes) {
            TS_WIDE(ts_contact_restitution)(&c->kernels, b, bounce, TOTALS);
        }
        break;
    case PASS_STORE:
        TS_WIDE(ts_contact_store_impulses)(c->records, b);
        if (c->reports) {
            TS_WIDE(ts_contact_report_bundle)(c->records, b, c->solver->report.hits ? bounce : NULL, TOTALS,
                                              c->solver->report.entries, c->step);
        }
        break;
    default: break;
    }
#undef TOTALS
}

/* Contact bundles [first, end), each next one's lines asked for ahead. */
static void run_bundles(solve_context *c, int32_t first, int32_t end, pass kind)
{
    for (int32_t k = first; k < end; ++k) {
        if (k + 1 < end) {
            prefetch_bundle((ts_contact_bundle *)c->scratch->bundles + k + 1);
        }
        run_bundle(c, k, kind);
    }
}

/* Joint bundle k of the solver's joint scratch in the stage's pass
 * (restitution is no joint pass). */
static void run_joint_bundle(const solve_stage *s, int32_t k)
{
    solve_context *c = s->c;
    ts_joint_solver_context *kernels = c->joint_kernels + s->last_relax;
    switch (s->kind) {
    case PASS_PREPARE: TS_WIDE(ts_joint_prepare_bundle)(&c->joint_prepare, k); break;
    case PASS_WARM_START: TS_WIDE(ts_joint_warm_start)(kernels, k); break;
    case PASS_SOLVE: TS_WIDE(ts_joint_solve)(kernels, k, true); break;
    case PASS_RELAX: TS_WIDE(ts_joint_solve)(kernels, k, false); break;
    case PASS_STORE: TS_WIDE(ts_joint_store_impulses)(&c->solver->joint_scratch, c->records, k, kernels->inv_h); break;
    default: break;
    }
}

/* Joint bundles [begin, end): the solver passes a run at a time. */
static void run_joint_bundles(const solve_stage *s, int32_t begin, int32_t end)
{
    pass kind = s->kind;
    if (kind == PASS_WARM_START || kind == PASS_SOLVE || kind == PASS_RELAX) {
        ts_joint_pass_kind joint_kind = kind == PASS_WARM_START ? TS_JOINT_PASS_WARM_START
                                        : kind == PASS_SOLVE    ? TS_JOINT_PASS_SOLVE
                                                                : TS_JOINT_PASS_RELAX;
        TS_WIDE(ts_joint_pass)(s->c->joint_kernels + s->last_relax, begin, end, joint_kind);
        return;
    }
    if (kind == PASS_PREPARE) {
        TS_WIDE(ts_joint_prepare_bundles)(&s->c->joint_prepare, begin, end);
        return;
    }
    for (int32_t k = begin; k < end; ++k) {
        run_joint_bundle(s, k);
    }
}

/* Prepares bundles [begin, end), which may span colours, on `worker`. */
static void prepare_bundles(solve_context *c, int32_t begin, int32_t end, int worker)
{
    const int32_t *color_begin = c->scratch->color_begin;
    ts_contact_bundle *bundles = c->scratch->bundles;
    int color = 0;
    for (int32_t k = begin; k < end; ++k) {
        while (k >= color_begin[color + 1]) {
            ++color;
        }
        int lanes = color == TS_OVERFLOW_COLOR ? 1 : TS_W;
        TS_WIDE(ts_contact_prepare_bundle)(&c->prepare, bundles + k, (ts_contact_bounce_lanes *)c->scratch->bounces + k,
                                           c->scratch->ordered + c->scratch->ordered_begin[color],
                                           c->scratch->ordered_count[color], (k - color_begin[color]) * lanes,
                                           lanes);
        if (bundles[k].restitutes && bundles[k].bounces && !c->bounce_found[worker]) {
            c->bounce_found[worker] = true; /* written only then: the workers' entries share a cache line */
        }
        if (c->report_impulses) {
            memset((ts_contact_total_lanes *)c->scratch->totals + k, 0, sizeof(ts_contact_total_lanes));
        }
    }
}

/* Orders the filled colours [begin, end) of c->filled (contact_order.h):
 * the paired passes' colours in two steps (the border marks of every
 * colour first, PASS_BORDER), the others in one. */
static void order_colors(solve_context *c, int32_t begin, int32_t end)
{
    ts_solver_scratch *s = c->scratch;
    for (int32_t k = begin; k < end; ++k) {
        int color = c->filled[k];
        const ts_graph_color *gc = c->graph->colors + color;
        int32_t at = s->ordered_begin[color];
        if (!c->pairs || color == TS_OVERFLOW_COLOR) {
            /* the overflow set runs in this order on worker 0 (its contacts
             * share bodies): by point count alone, whatever the worker count */
            int ranges = color == TS_OVERFLOW_COLOR ? 1 : c->parallel->worker_count;
            ts_contact_order_color(c->records, gc, ranges, s->order_keys + at, s->ordered + at, 0);
            continue;
        }
        int32_t splits[3];
        int32_t entries = ts_contact_order_pairs(gc, s->order_keys + at, s->order_slots + 2 * at, s->border, TS_W,
                                                 s->ordered + at, splits);
        s->ordered_count[color] = entries;
        s->color_end[color] = s->color_begin[color] + (entries + TS_W - 1) / TS_W;
        s->pair_splits[color][0] = splits[0] / TS_W; /* the bundles that hold a crossing contact */
        s->pair_splits[color][1] = splits[1] / TS_W; /* int1b's, from a bundle's first lane */
        s->pair_splits[color][2] = (splits[2] + TS_W - 1) / TS_W;
        s->pair_work[color][0] = splits[1] - (entries - gc->count); /* worker 0's contacts (not the pad) */
        s->pair_work[color][1] = gc->count - s->pair_work[color][0];
    }
}

/* The paired order's first step for the contacts [begin, end) of the
 * paired colours one after the other (contact_order.h): keys, body slots
 * and border marks. Blocks of contacts, not of colours: a pile's colours
 * hold from 2 to ~1,500 contacts. */
static void mark_border(solve_context *c, int32_t begin, int32_t end)
{
    ts_solver_scratch *s = c->scratch;
    int32_t at = 0; /* the contacts of the colours before */
    for (int k = 0; k < c->paired_count && at < end; ++k) {
        int color = c->filled[k];
        const ts_graph_color *gc = c->graph->colors + color;
        int32_t first = begin > at ? begin - at : 0, last = end - at < gc->count ? end - at : gc->count;
        if (first < last) {
            int32_t o = s->ordered_begin[color];
            ts_contact_order_mark(c->records, gc, first, last, s->order_keys + o, s->order_slots + 2 * o, s->border,
                                  c->solver->pair_cut);
        }
        at += gc->count;
    }
}

/* The order pass's items: the colours that hold contacts (empty ones have
 * nothing to order, and `ordered` is NULL before the first contact). A
 * colour a block, the workers' shares cut in this list: cut among all the
 * colours, worker 0 got most of the filled ones (wide_pyramid: 12 of 17,
 * the other worker waiting more than half of the pass). */
static int list_filled_colors(solve_context *c)
{
    int count = 0;
    for (int color = 0; color <= TS_OVERFLOW_COLOR; ++color) {
        if (c->graph->colors[color].count > 0) {
            c->filled[count++] = color;
        }
    }
    c->paired_count = count > 0 && c->filled[count - 1] == TS_OVERFLOW_COLOR ? count - 1 : count;
    return count;
}

static void run_block(void *context, int32_t block, int worker)
{
    const solve_stage *stage = context;
    solve_context *c = stage->c;
    ts_body_state *states = c->scratch->states;
    ts_body_store *store = &c->records->store;
    int32_t begin, end;
    ts_block_range(block, stage->block_size, stage->count + stage->joint_count, &begin, &end);
    if (end > stage->count) { /* the block's joint bundles */
        int32_t first = stage->joint_first + (begin > stage->count ? begin : stage->count) - stage->count;
        run_joint_bundles(stage, first, stage->joint_first + end - stage->count);
        end = stage->count;
    }
    begin += stage->first;
    end += stage->first;
    int32_t bad = INT32_MAX;
    switch (stage->kind) {
    case PASS_STATES_BEGIN:
        if (TS_WIDE(ts_states_begin)(states, store, begin, end, true)) {
            c->free_found[worker] = true; /* written only then: the workers' entries share a cache line */
        }
        break;
    case PASS_INTEGRATE_VELOCITIES: {
        ts_free_bodies free = !c->free_bodies ? TS_FREE_AS_OTHERS
                              : stage->substep == 0 ? TS_FREE_ALL_SUBSTEPS
                                                : TS_FREE_SKIP;
        bad = TS_WIDE(ts_integrate_velocities)(states, store, begin, end, c->gravity, c->h, free, c->substeps,
                                               c->solver->forces_pending, c->limit);
        break;
    }
    case PASS_INTEGRATE_POSITIONS:
        bad = TS_WIDE(ts_integrate_positions)(states, store, begin, end, c->h,
                                              c->free_bodies ? TS_FREE_SKIP : TS_FREE_AS_OTHERS, c->limit);
        break;
    case PASS_FINISH:
        bad = TS_WIDE(ts_states_finish_wide)(states, store, begin, end, c->solver->forces_pending,
                                       c->free_bodies ? TS_FREE_SKIP : TS_FREE_AS_OTHERS, c->limit);
        c->finish(c->finish_context, begin, end);
        break;
    case PASS_ORDER: order_colors(c, begin, end); break;
    case PASS_BORDER: mark_border(c, begin, end); break;
    case PASS_PREPARE:
        if (begin < end) {
            prepare_bundles(c, begin, end, worker);
        }
        break;
    default:
        run_bundles(c, begin, end, stage->kind);
        break;
    }
    if (bad < c->first_bad[worker]) { /* written only then: the workers' entries share a cache line */
        c->first_bad[worker] = bad;
    }
}

/* Adds a stage to the list being built: `blocks` blocks of run over a copy
 * of stage, charged to the current profile slot. */
static void add_stage(solve_context *c, ts_block_fn *run, solve_stage stage, int32_t blocks)
{
    TS_ASSERT(c->listed < c->list_capacity);
    stage.substep = c->substep;
    stage.last_relax = stage.kind == PASS_RELAX && c->substep == c->substeps - 1;
    stage.slot = c->slot;
    c->stages[c->listed] = stage;
    c->defs[c->listed] = (ts_stage_def){run, c->stages + c->listed, blocks};
    c->listed += 1;
}

static void add_range(solve_context *c, pass kind, int32_t first, int32_t count, int32_t joint_first,
                      int32_t joint_count, int32_t min_block)
{
    int32_t items = count + joint_count;
    if (items <= 0) {
        return;
    }
    /* one worker: the whole stage is one block (a claim and a dispatch per
     * block were 2% of joint_grid's instructions); the blocks' split never
     * changes a result */
    int32_t block_size = c->parallel->worker_count > 1 ? ts_block_size(items, min_block) : items;
    solve_stage stage = {.c = c, .kind = kind, .first = first, .count = count, .joint_first = joint_first,
                         .joint_count = joint_count, .block_size = block_size};
    add_stage(c, run_block, stage, ts_block_count(items, block_size));
}

static void add_bodies(solve_context *c, pass kind) { add_range(c, kind, 0, c->awake, 0, 0, TS_BODY_BLOCK); }

/* A colour this small is one or two blocks: splitting it gains less than
 * the stage's synchronisation costs (~4 us a stage on two cores, pile). */
#define TS_SMALL_COLOR_BUNDLES (2 * TS_BUNDLE_BLOCK)
#define TS_SMALL_COLOR_JOINTS (2 * TS_JOINT_BLOCK)

/* Colours [first_color, end_color) one after the other on one worker: the
 * order is the colours' order, as when each is a stage, so the result is
 * the same. */
static void run_color_run(void *context, int32_t block, int worker)
{
    (void)block;
    const solve_stage *run = context;
    solve_context *c = run->c;
    const int32_t *begin = c->scratch->color_begin;
    const int32_t *joint_begin = c->solver->joint_scratch.color_begin;
    for (int color = run->first_color; color < run->end_color; ++color) {
        int32_t contacts = c->scratch->color_end[color] - begin[color];
        int32_t joints = joint_begin[color + 1] - joint_begin[color];
        solve_stage stage = *run;
        stage.first = begin[color];
        stage.count = contacts;
        stage.joint_first = joint_begin[color];
        stage.joint_count = joints;
        stage.block_size = contacts + joints;
        if (contacts + joints > 0) {
            run_block(&stage, 0, worker);
        }
    }
}

/* The overflow set's bundles in order on one worker (they may share bodies). */
static void run_overflow(void *context, int32_t block, int worker)
{
    (void)block;
    const solve_stage *s = context;
    solve_context *c = s->c;
    const int32_t *begin = c->scratch->color_begin;
    const int32_t *joint_begin = c->solver->joint_scratch.color_begin;
    if (s->kind == PASS_PREPARE) {
        if (begin[TS_OVERFLOW_COLOR] < begin[TS_OVERFLOW_COLOR + 1]) {
            prepare_bundles(c, begin[TS_OVERFLOW_COLOR], begin[TS_OVERFLOW_COLOR + 1], worker);
        }
    } else {
        for (int32_t k = begin[TS_OVERFLOW_COLOR]; k < begin[TS_OVERFLOW_COLOR + 1]; ++k) {
            run_bundle(c, k, s->kind);
        }
    }
    for (int32_t k = joint_begin[TS_OVERFLOW_COLOR]; k < joint_begin[TS_OVERFLOW_COLOR + 1]; ++k) {
        run_joint_bundle(s, k);
    }
}

static bool small_color(solve_context *c, int color)
{
    const int32_t *begin = c->scratch->color_begin;
    const int32_t *joint_begin = c->solver->joint_scratch.color_begin;
    return c->scratch->color_end[color] - begin[color] <= TS_SMALL_COLOR_BUNDLES &&
           joint_begin[color + 1] - joint_begin[color] <= TS_SMALL_COLOR_JOINTS;
}

/* The overflow set's stage of a pass, when it holds contacts or joints. */
static void add_overflow(solve_context *c, pass kind)
{
    const int32_t *begin = c->scratch->color_begin;
    const int32_t *joint_begin = c->solver->joint_scratch.color_begin;
    if (begin[TS_OVERFLOW_COLOR] < begin[TS_OVERFLOW_COLOR + 1] ||
        joint_begin[TS_OVERFLOW_COLOR] < joint_begin[TS_OVERFLOW_COLOR + 1]) {
        add_stage(c, run_overflow, (solve_stage){.c = c, .kind = kind}, 1);
    }
}

/* Colours in order, each a stage over its contact and joint bundles, but a
 * run of small colours is one stage of one block (a pile's last colours
 * hold a few bundles each); then the overflow bundles, one block (they may
 * share bodies). Prepare and the impulse store go by colour too,
 * though their bundles are independent: a stage's blocks go to the same
 * workers in every pass (each starts at its share, parallel.h), so a bundle
 * and its bodies' states stay in one core's cache from prepare to store.
 * One stage over all bundles split them differently from the colour passes:
 * on a two-core machine whose cores pass a cache line in ~260 ns, the store
 * then took 5x longer on two workers than on one (scattered writes into the
 * contact store), and many_pyramids' step ~10% longer. */
static void add_colors(solve_context *c, pass kind)
{
    const int32_t *begin = c->scratch->color_begin;
    const int32_t *joint_begin = c->solver->joint_scratch.color_begin;
    for (int color = 0; color < TS_GRAPH_COLOR_COUNT;) {
        int end = color, filled = 0; /* small colours from here; how many hold bundles */
        while (end < TS_GRAPH_COLOR_COUNT && small_color(c, end)) {
            filled += c->scratch->color_end[end] > begin[end] || joint_begin[end + 1] > joint_begin[end];
            end += 1;
        }
        if (filled >= 2) {
            add_stage(c, run_color_run, (solve_stage){.c = c, .kind = kind, .first_color = color, .end_color = end},
                      1);
            color = end;
            continue;
        }
        /* a colour that is not small, or small colours of which at most one
         * holds bundles: each its own stage (empty ones add none) */
        for (end = end > color ? end : color + 1; color < end; ++color) {
            int32_t contacts = c->scratch->color_end[color] - begin[color];
            int32_t joints = joint_begin[color + 1] - joint_begin[color];
            add_range(c, kind, begin[color], contacts, joint_begin[color], joints,
                      joints > contacts ? TS_JOINT_BLOCK : TS_BUNDLE_BLOCK);
        }
    }
    add_overflow(c, kind);
}

/* ---- paired passes (solver/pair_schedule.h) ---- */

/* The bundles of unit `unit` of `side`: side 0 runs a colour's int0 and
 * then its crossing bundles, side 1 its int1n and then its int1b bundles
 * (pair_schedule.h; int1n lies past int1b in the colour's bundles). The
 * units are those of the filled colours only: an empty colour's units ran
 * nothing but still moved the counters, whose lines then went from core to
 * core (pile fills ~14 of the 24 colours). */
static void pair_unit(const solve_context *c, int side, int32_t unit, int32_t *first, int32_t *end)
{
    int color = c->filled[unit / 2];
    int32_t b = c->scratch->color_begin[color];
    const int32_t *split = c->scratch->pair_splits[color];
    if (side == 0) {
        *first = b + (unit % 2 == 0 ? 0 : split[0]);
        *end = b + (unit % 2 == 0 ? split[0] : split[1]);
    } else {
        *first = unit % 2 == 0 ? b + split[2] : b + split[1];
        *end = unit % 2 == 0 ? c->scratch->color_end[color] : b + split[2];
    }
}

static bool pair_unit_empty(void *context, int side, int32_t unit)
{
    const solve_stage *s = context;
    int32_t first, end;
    pair_unit(s->c, side, unit, &first, &end);
    return first == end;
}

static void run_pair_unit(void *context, int side, int32_t unit)
{
    const solve_stage *s = context;
    solve_context *c = s->c;
    int32_t first, end;
    pair_unit(c, side, unit, &first, &end);
    run_bundles(c, first, end, s->kind);
}

/* Block `block` of a paired pass: that side's units (pair_schedule.h). */
static void run_pairs(void *context, int32_t block, int worker)
{
    (void)worker;
    const solve_stage *s = context;
    ts_pair_schedule schedule = {s->c->solver->pair_lines, s->pair_base, s->c->paired_count,
                                 8 * s->c->parallel->steal_patience};
    ts_pair_run(&schedule, block, run_pair_unit, pair_unit_empty, context);
}

/* Worker 0 runs the crossing contacts besides its own: the next step's
 * cut moves its range down by half the difference of the two workers'
 * contacts (as bodies: awake / contacts each). Where the ranges meet
 * changes no bit (contact_order.h), so this needs no record. */
static void balance_pairs(solve_context *c)
{
    int64_t work[2] = {0, 0};
    for (int k = 0; k < TS_OVERFLOW_COLOR; ++k) {
        if (c->graph->colors[k].count > 0) {
            work[0] += c->scratch->pair_work[k][0];
            work[1] += c->scratch->pair_work[k][1];
        }
    }
    int64_t awake = c->awake, total = work[0] + work[1];
    int64_t cut = c->solver->pair_cut > 0 && c->solver->pair_cut < awake ? c->solver->pair_cut : (awake + 1) / 2;
    if (total > 0) {
        cut -= (work[0] - work[1]) / 2 * awake / total;
    }
    c->solver->pair_cut = cut < awake / 4 ? awake / 4 : cut > awake - awake / 4 ? awake - awake / 4 : cut;
}

/* Prepare or the impulse store, paired: one stage of two blocks, each
 * worker's block the bundles its side of the paired passes runs (its
 * colours' bundles [0, split) or [split, end)), so that a bundle stays in
 * one core from prepare to store. They are independent: no waits. */
static void run_paired_bundles(void *context, int32_t block, int worker)
{
    const solve_stage *s = context;
    solve_context *c = s->c;
    const int32_t *begin = c->scratch->color_begin;
    for (int color = 0; color < TS_OVERFLOW_COLOR; ++color) {
        if (c->graph->colors[color].count == 0) {
            continue;
        }
        int32_t split = begin[color] + c->scratch->pair_splits[color][1];
        int32_t first = block == 0 ? begin[color] : split, end = block == 0 ? split : c->scratch->color_end[color];
        if (s->kind == PASS_PREPARE) {
            if (first < end) {
                prepare_bundles(c, first, end, worker);
            }
        } else {
            for (int32_t k = first; k < end; ++k) {
                run_bundle(c, k, s->kind);
            }
        }
    }
}

/* Prepare or the store over every colour: paired, or a stage per colour. */
static void add_bundle_pass(solve_context *c, pass kind)
{
    if (!c->pairs) {
        add_colors(c, kind);
        return;
    }
    add_stage(c, run_paired_bundles, (solve_stage){.c = c, .kind = kind}, 2);
    add_overflow(c, kind); /* its joints too: the pairs need none in the colours, the overflow may hold some */
}

/* A colour pass: a stage per colour, or paired. */
static void add_pass(solve_context *c, pass kind)
{
    if (!c->pairs) {
        add_colors(c, kind);
        return;
    }
    add_stage(c, run_pairs, (solve_stage){.c = c, .kind = kind, .pair_base = c->solver->pair_base}, 2);
    c->solver->pair_base += ts_pair_stride(c->paired_count);
    add_overflow(c, kind);
}

/* Charges the time since the last mark to a stage. */
static void lap(double *mark, double *stage)
{
    double now = ts_now_ms();
    *stage += now - *mark;
    *mark = now;
}

/* Worker 0, after stage `index` of the running list: the last stage of a
 * slot charges the slot. */
static void stage_done(void *context, int32_t index)
{
    solve_context *c = context;
    int32_t i = c->list_first + index;
    if (i + 1 == c->listed || c->stages[i + 1].slot != c->stages[i].slot) {
        lap(&c->mark, c->stages[i].slot);
    }
}

/* Publishes the stages listed since the last list, once (base/parallel.h). */
static void run_list(solve_context *c)
{
    ts_parallel_for_list(c->parallel, c->defs + c->list_first, c->listed - c->list_first, stage_done, c);
    c->list_first = c->listed;
}

/* The step's stages in two lists: the states and the bundles' prepare;
 * then (once worker 0 has read what prepare found: free bodies, bounces) the
 * substeps, restitution, the store and the write-back. */
static void run_solver(solve_context *c)
{
    ts_step_profile *p = c->profile;
    c->mark = ts_now_ms();

    c->slot = &p->prepare;
    add_bodies(c, PASS_STATES_BEGIN);
    int filled = list_filled_colors(c);
    if (c->pairs) { /* the border marks of every paired colour before any is ordered */
        memset((void *)c->scratch->border, 0, (size_t)c->awake + 1);
        int32_t contacts = 0;
        for (int k = 0; k < c->paired_count; ++k) {
            contacts += c->graph->colors[c->filled[k]].count;
        }
        add_range(c, PASS_BORDER, 0, contacts, 0, 0, TS_MARK_BLOCK);
    }
    add_range(c, PASS_ORDER, 0, filled, 0, 0, 1);
    add_bundle_pass(c, PASS_PREPARE);
    run_list(c);
    if (c->pairs) {
        balance_pairs(c);
    }
    bool bounce = false; /* most steps: no bundle restitutes, and the pass's stages are skipped */
    for (int w = 0; w < c->parallel->worker_count; ++w) {
        c->free_bodies |= c->free_found[w];
        bounce |= c->bounce_found[w];
    }

    for (int sub = 0; sub < c->substeps; ++sub) {
        c->substep = sub;
        c->slot = &p->integrate_velocities;
        add_bodies(c, PASS_INTEGRATE_VELOCITIES);
        c->slot = &p->warm_start;
        add_pass(c, PASS_WARM_START);
        c->slot = &p->solve;
        add_pass(c, PASS_SOLVE);
        c->slot = &p->integrate_positions;
        add_bodies(c, PASS_INTEGRATE_POSITIONS);
        c->slot = &p->relax;
        add_pass(c, PASS_RELAX);
    }
    if (bounce) {
        c->slot = &p->restitution;
        add_colors(c, PASS_RESTITUTION);
    }
    c->slot = &p->store_impulses;
    add_bundle_pass(c, PASS_STORE);
    c->slot = &p->finalize;
    add_bodies(c, PASS_FINISH);
    run_list(c);
}

/* ---- the entry ---- */

bool TS_WIDE(ts_solver_reserve_scratch)(ts_solver_scratch *s, const ts_allocator *allocator, bool spare,
                                        const ts_constraint_graph *graph, int32_t awake)
{
    int32_t bundles = 0, contacts = 0, pad = spare ? TS_W - 1 : 0;
    for (int color = 0; color <= TS_OVERFLOW_COLOR; ++color) {
        int32_t count = graph->colors[color].count;
        s->ordered_begin[color] = contacts;
        s->ordered_count[color] = count;
        contacts += count + (color < TS_OVERFLOW_COLOR && count > 0 ? pad : 0);
    }
    s->ordered_begin[TS_OVERFLOW_COLOR + 1] = contacts;
    for (int color = 0; color < TS_OVERFLOW_COLOR; ++color) {
        int32_t count = graph->colors[color].count;
        s->color_begin[color] = bundles;
        bundles += (count + TS_W - 1) / TS_W;
        s->color_end[color] = bundles;
        bundles += spare && count > 0 ? 1 : 0; /* room for the paired order's pad */
    }
    s->color_begin[TS_OVERFLOW_COLOR] = bundles;
    bundles += graph->colors[TS_OVERFLOW_COLOR].count; /* one lane each */
    s->color_begin[TS_OVERFLOW_COLOR + 1] = bundles;
    s->color_end[TS_OVERFLOW_COLOR] = bundles;
    return ts_array_reserve(allocator, (void **)&s->states, &s->state_capacity, awake + 1,
                            sizeof(ts_body_state)) &&
           ts_array_reserve(allocator, &s->bundles, &s->bundle_bytes,
                            bundles * (int32_t)sizeof(ts_contact_bundle), 1) &&
           ts_array_reserve(allocator, &s->bounces, &s->bounce_bytes,
                            bundles * (int32_t)sizeof(ts_contact_bounce_lanes), 1) &&
           ts_array_reserve(allocator, (void **)&s->ordered, &s->ordered_capacity, contacts,
                            sizeof(int32_t)) &&
           ts_array_reserve(allocator, (void **)&s->order_keys, &s->order_key_capacity, contacts,
                            sizeof(uint16_t)) &&
           (!spare || (ts_array_reserve(allocator, (void **)&s->order_slots, &s->order_slot_capacity, 2 * contacts,
                                        sizeof(int32_t)) &&
                       ts_array_reserve(allocator, (void **)&s->border, &s->border_capacity, awake + 1,
                                        sizeof(uint8_t))));
}

/* Room for the reports (contact_report.h): the totals beside the bundles. */
static bool reserve_report(ts_solver *solver, const ts_records *records)
{
    ts_solver_scratch *s = &solver->scratch;
    int32_t bundles = s->color_begin[TS_OVERFLOW_COLOR + 1];
    return ts_contact_report_reserve(&solver->report, records, &s->totals, &s->total_bytes,
                                     bundles * (int32_t)sizeof(ts_contact_total_lanes));
}

ts_result TS_WIDE(ts_solve)(ts_solver *solver, const ts_solve_input *in, int32_t *held)
{
    *held = -1;
    ts_records *records = in->records;
    float dt = in->dt;
    int32_t awake = records->store.table.end[TS_RANGE_AWAKE];
    bool reports = solver->report.impulses || solver->report.hits;
    int32_t list_capacity = ts_solver_stage_list_capacity(solver->substeps);
    static_assert(sizeof(solve_stage) <= TS_SOLVE_STAGE_BYTES, "solver.h's room for a stage record");
    /* the colour passes run paired with two workers and no joint in the colours (solver/pair_schedule.h) */
    bool pairs = in->parallel->worker_count == 2;
    for (int color = 0; color < TS_OVERFLOW_COLOR; ++color) {
        pairs = pairs && in->graph->colors[color].joint_count == 0;
    }
    if (!TS_WIDE(ts_solver_reserve_scratch)(&solver->scratch, &records->allocator, pairs, in->graph, awake) ||
        !ts_array_reserve(&records->allocator, &solver->scratch.stage_list, &solver->scratch.stage_list_bytes,
                          ts_solver_stage_list_bytes(solver->substeps), 1) ||
        (reports && !reserve_report(solver, records)) ||
        !TS_WIDE(ts_joint_solver_begin)(&solver->joint_scratch, records, in->graph)) {
        return ts_fail(TS_ERROR_OUT_OF_MEMORY, "ts_world_step", "the allocator returned NULL (solver scratch)");
    }
    ts_solver_scratch *scratch = &solver->scratch;
    scratch->states[awake] = ts_body_state_at_rest(ts_v3(0, 0, 0), ts_v3(0, 0, 0)); /* the dummy */

    float h = dt / (float)solver->substeps;
    /* The contact spring stays well below the substep rate. */
    float hertz = solver->contact_hertz < 0.25f / h ? solver->contact_hertz : 0.25f / h;
    float joint_hertz = solver->joint_hertz < 0.375f / h ? solver->joint_hertz : 0.375f / h; /* types.h */
    ts_softness joint_soft = ts_make_softness(joint_hertz, solver->joint_damping_ratio, h);
    solve_context c = {
        .solver = solver,
        .records = records,
        .graph = in->graph,
        .parallel = in->parallel,
        .profile = in->profile,
        .finish = in->finish,
        .finish_context = in->finish_context,
        .scratch = scratch,
        .prepare = {records, awake, ts_make_softness(hertz, solver->contact_damping_ratio, h),
                    ts_make_softness(2.0f * hertz, solver->contact_damping_ratio, h), solver->enable_warm_starting,
                    ts_v3(solver->gravity.x * h, solver->gravity.y * h, solver->gravity.z * h),
                    solver->contact_mass_ratio, solver->report.hits},
        .kernels = {scratch->states, 1.0f / h, solver->contact_push_speed, solver->contact_push_speed * h,
                    solver->restitution_threshold},
        .joint_prepare = {records, &solver->joint_scratch, awake, h, solver->enable_warm_starting,
                          TS_WIDE(ts_joint_take_ball_fill)(&solver->joint_scratch, records, in->step),
                          in->step % TS_BALL_REFRESH_STEPS == 0, scratch->states},
        .joint_kernels = {{scratch->states, &solver->joint_scratch, 1.0f / h, joint_soft.bias_rate,
                           joint_soft.mass_scale, joint_soft.impulse_scale, false, h},
                          {scratch->states, &solver->joint_scratch, 1.0f / h, joint_soft.bias_rate,
                           joint_soft.mass_scale, joint_soft.impulse_scale, true, h}},
        .gravity = solver->gravity,
        .h = h,
        .limit = {solver->max_linear_speed, solver->max_rotation / h},
        .substeps = solver->substeps,
        .awake = awake,
        .step = in->step,
        .reports = reports,
        .report_impulses = solver->report.impulses,
        .defs = scratch->stage_list,
        .stages = (solve_stage *)((ts_stage_def *)scratch->stage_list + list_capacity), /* 8-byte aligned */
        .list_capacity = list_capacity,
        .pairs = pairs,
    };
    solver->joint_scratch.ball_impulses_pending = true; /* the ball bundles' impulses are the newest from here on */
    solver->joint_scratch.ball_inv_h = 1.0f / h;
    int workers = in->parallel->worker_count;
    for (int w = 0; w < workers; ++w) {
        c.first_bad[w] = INT32_MAX;
    }
    run_solver(&c);
    if (solver->joint_scratch.ball_kept != NULL) {
        ts_joint_scratch_free_kept(&solver->joint_scratch, &records->allocator); /* put back into the bundles */
    }
    solver->forces_pending = false; /* the write-back cleared them */
    solver->switched = false;
    solver->dropped_joint = ts_custom_take_dropped(solver->joint_scratch.custom_lanes,
                                                   solver->joint_scratch.custom_count, records);
    int32_t bad = INT32_MAX;
    for (int w = 0; w < workers; ++w) {
        bad = min_slot(bad, c.first_bad[w]);
    }
    if (bad != INT32_MAX) {
        solver->joint_scratch.ball_step = -1; /* a held body's pose is not the one its ball bundles kept */
        *held = records->store.table.id_of_slot[bad];
        return TS_ERROR_NOT_FINITE;
    }
    return TS_OK;
}

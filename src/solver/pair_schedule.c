/* The schedule of a paired colour pass (see pair_schedule.h). */
#include "solver/pair_schedule.h"

#include <stdatomic.h>

static _Atomic uint64_t *line(const ts_pair_schedule *s, int side, bool done)
{
    return &s->lines[side * 2 + (done ? 1 : 0)].value;
}

/* A counter's units past the stage's base. */
static int32_t count_of(const ts_pair_schedule *s, uint64_t value)
{
    return value > s->base ? (int32_t)(value - s->base) : 0;
}

static int32_t done_count(const ts_pair_schedule *s, int side)
{
    return count_of(s, atomic_load_explicit(line(s, side, true), memory_order_acquire));
}

static int32_t units_of(const ts_pair_schedule *s) { return 2 * s->colors; }

/* Whether unit `unit` of `side` may run: the side's units before it are
 * done, and what it needs of the other side (pair_schedule.h). An empty
 * unit needs nothing of the other side. *seen is the other side's done
 * count as last read: its line is written by the other core, so each read
 * while that side works is a cache miss (~0.1-0.4 us here); it is read
 * again only when the count seen falls short (counts only grow, and the
 * acquire that saw it covers every unit below it). */
static bool ready(const ts_pair_schedule *s, int side, int32_t unit, bool empty, int32_t *seen)
{
    if (done_count(s, side) < unit) {
        return false;
    }
    if (empty || unit % 2 == 0) {
        return true;
    }
    int32_t need = unit - 1; /* the other side's units of the colours before */
    if (*seen < need) {
        *seen = done_count(s, 1 - side);
    }
    return *seen >= need;
}

/* Claims and runs the next unit of `side` if it is ready (and, when
 * `between` is set, only if no unit of the side is running): false when
 * there was none to take. */
static bool take(const ts_pair_schedule *s, int side, bool between, ts_pair_unit_fn *run, ts_pair_empty_fn *empty,
                 void *context, int32_t *seen)
{
    _Atomic uint64_t *cursor = line(s, side, false);
    uint64_t at = atomic_load_explicit(cursor, memory_order_acquire);
    int32_t unit = count_of(s, at);
    if (unit >= units_of(s) || (between && done_count(s, side) != unit) ||
        !ready(s, side, unit, empty(context, side, unit), seen) ||
        !atomic_compare_exchange_strong_explicit(cursor, &at, s->base + (uint64_t)unit + 1, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        return false;
    }
    run(context, side, unit);
    atomic_store_explicit(line(s, side, true), s->base + (uint64_t)unit + 1, memory_order_release);
    return true;
}

void ts_pair_run(const ts_pair_schedule *s, int side, ts_pair_unit_fn *run, ts_pair_empty_fn *empty, void *context)
{
    int spins = 0;
    int32_t seen = 0; /* the other side's done count, as last read (ready) */
    while (count_of(s, atomic_load_explicit(line(s, side, false), memory_order_acquire)) < units_of(s)) {
        if (take(s, side, false, run, empty, context, &seen)) {
            spins = 0;
            continue;
        }
        ts_cpu_pause();
        if (++spins > s->patience) {
            int32_t mine = 0; /* read afresh: this side's count is what the other unit needs */
            take(s, 1 - side, true, run, empty, context, &mine);
            spins = 0;
        }
    }
}

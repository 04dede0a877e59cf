/* Motion locks in lanes (compiled once per width, like the integrators that
 * use them): the store's locks column (TS_LOCK_* bits, motion_locks.h) of W
 * consecutive slots as per-component lane masks, and the selects that keep
 * a locked component. Every pass tests the store's locked_count first, so a
 * world without locks never reads the column. A select picks a lane's old
 * bits or a zero, so a locked component keeps its bits exactly, and an
 * unlocked lane's result is untouched (the same bits as without locks, at
 * every width). */
#ifndef TS_LOCK_LANES_H
#define TS_LOCK_LANES_H

#include "base/core.h"
#include "soa/body_store.h"
#include "base/wide.h"

typedef struct lock_lanes {
    ts_wm linear[3];  /* lanes locked along world x, y, z */
    ts_wm angular[3]; /* lanes locked about world x, y, z */
    ts_wm all_angular; /* lanes locked about all three (their rotation is kept) */
    bool any;         /* some lane has a lock */
} lock_lanes;

/* Whether any of slots [i, i + count) has a lock (the store has some). */
TS_FORCE_INLINE bool locks_in(const ts_body_store *store, int32_t i, int count)
{
    if (store->locked_count == 0) {
        return false;
    }
    int32_t any = 0;
    for (int l = 0; l < count; ++l) {
        any |= store->locks[i + l];
    }
    return any != 0;
}

/* The masks of slots i .. i + count (count < W: the last one repeated). */
TS_FORCE_INLINE lock_lanes lock_lanes_of(const ts_body_store *store, int32_t i, int count)
{
    float bits[7][TS_W];
    int32_t any = 0;
    for (int l = 0; l < TS_W; ++l) {
        int32_t locks = store->locks[i + (l < count ? l : count - 1)];
        any |= locks;
        for (int k = 0; k < 6; ++k) {
            bits[k][l] = (locks >> k & 1) != 0 ? 1.0f : 0.0f;
        }
        bits[6][l] = (locks & 0x38) == 0x38 ? 1.0f : 0.0f;
    }
    lock_lanes m;
    ts_wf zero = ts_w_zero();
    for (int k = 0; k < 3; ++k) {
        m.linear[k] = ts_w_gt(ts_w_load(bits[k]), zero);
        m.angular[k] = ts_w_gt(ts_w_load(bits[3 + k]), zero);
    }
    m.all_angular = ts_w_gt(ts_w_load(bits[6]), zero);
    m.any = any != 0;
    return m;
}

/* v with the locked components zero. */
TS_FORCE_INLINE ts_wv3 lock_zero(ts_wv3 v, const ts_wm locked[3])
{
    ts_wf zero = ts_w_zero();
    return (ts_wv3){ts_w_select(locked[0], zero, v.x), ts_w_select(locked[1], zero, v.y),
                    ts_w_select(locked[2], zero, v.z)};
}

/* next with the locked components of old. */
TS_FORCE_INLINE ts_wv3 lock_keep(ts_wv3 next, ts_wv3 old, const ts_wm locked[3])
{
    return (ts_wv3){ts_w_select(locked[0], old.x, next.x), ts_w_select(locked[1], old.y, next.y),
                    ts_w_select(locked[2], old.z, next.z)};
}

#endif

/* The awake bodies' storage order, kept close to their places in space.
 *
 * The solver's workers split every pass by body slot: worker w of n takes
 * the awake slots [awake * w / n, awake * (w + 1) / n) in the body passes
 * and, in each colour, the contacts of the bodies there first
 * (solver/contact_order.h). A contact whose bodies lie in two workers'
 * ranges hands a body state from one core to the other in every colour
 * pass. Bodies keep the slots they were made in, so the ranges are only as
 * compact in space as the order of creation was: pyramids built row by row
 * cross in a few contacts (large_pyramid 1%), but a pile that falls and
 * mixes crosses more and more (pile, two workers: 3% of its dynamic
 * contacts after 100 steps, 12% from step 200 on).
 *
 * So every TS_BODY_ORDER_STEPS steps the step's end compares the halves of
 * the awake range with the halves along x, y and z (each the awake bodies
 * sorted by that coordinate, ties kept in slot order) by how many
 * touching contacts join two halves, and when the best axis crosses at
 * most 4/5 of what the slots do, moves the awake bodies into that axis's
 * order (pile: 12% -> ~4%). Halves, whatever the worker count, so the
 * storage order is the same at every thread count (body move events and
 * the awake bulk reads list bodies in it); at more workers the slabs of a
 * sorted axis are still compact. The bodies' order changes no result:
 * every kernel's per-body and per-contact arithmetic is independent of
 * slots.
 *
 * The awake contacts follow: when the bodies moved, or when more than
 * 1/16 of them sit after a contact whose first awake body comes later,
 * they move into the order of their first awake body's slot (stable). The
 * narrowphase splits the contacts by slot, the colour passes by body
 * range: in creation order half of a mixed pile's contact rows went from
 * one worker's cache to the other's twice a step, and both wrote the same
 * lines in the impulse store. Pyramids' contacts are made in their bodies'
 * order and never move. The contacts' order is the order in which the
 * step meets their touches, so it is the order in which new touches take
 * graph colours and the order of their events: moving them changes the
 * simulation's bits from there on (the same at every thread count and
 * SIMD width; tests/expected_hashes.txt's 60-step scenes never re-order). */
#ifndef TS_BODY_ORDER_H
#define TS_BODY_ORDER_H

#include "base/parallel.h"
#include "soa/records.h"

/* Steps between two looks at the order. */
#define TS_BODY_ORDER_STEPS 32
/* Fewer awake bodies than this, or fewer touching awake contacts than
 * this fraction of them, and the order is left alone: too few crossings
 * to pay for the look. */
#define TS_BODY_ORDER_MIN_BODIES 256
#define TS_BODY_ORDER_MIN_CONTACTS_PER_BODY 0.5f
/* Slot halves that cut fewer than this fraction of the awake contacts are
 * left alone without sorting along the axes (large_pyramid's cut 1.0%,
 * many_pyramids' none: the sorts cost ~0.6 ms every 32 steps there, 10k
 * bodies, on one worker). */
#define TS_BODY_ORDER_FEW_CROSSINGS 0.015f

typedef struct ts_body_order {
    int32_t *order;     /* capacity: awake slots in a candidate order; then the contacts' sort's starts */
    uint16_t *buckets;  /* capacity: each awake body's bucket along one axis */
    uint8_t *halves;    /* capacity: bit a set when the body lies in the upper half along axis a; bit 3: by slot */
    int32_t *contact_order; /* contact_capacity: awake contact slots in their new order */
    int32_t *contact_keys;  /* contact_capacity: each awake contact's first awake body slot */
    uint32_t *scratch;  /* workers x stride: one column per worker while the columns move */
    int32_t every;      /* steps between two looks: TS_BODY_ORDER_STEPS; 0: never (tests compare) */
    bool keep_contacts; /* tests: the contacts keep their slots (then no result changes) */
    int32_t capacity;         /* bodies (and one more) every body array holds: set once all were made */
    int32_t contact_capacity; /* contacts every contact array holds: likewise */
    int32_t stride;           /* elements of a worker's scratch: a body column or a 4-wide contact column */
    /* each array's own length (a reserve that fails half way leaves them apart) */
    int32_t order_capacity, bucket_capacity, half_capacity, contact_order_capacity, contact_key_capacity;
    int32_t scratch_capacity; /* elements of scratch */
} ts_body_order;

/* A world's: no room yet, a look every TS_BODY_ORDER_STEPS steps. */
static inline void ts_body_order_init(ts_body_order *order)
{
    *order = (ts_body_order){.every = TS_BODY_ORDER_STEPS};
}

/* Room for `bodies` awake bodies and `contacts` awake contacts on
 * `workers` workers (before a step changes anything; a look past the room
 * leaves the order alone). */
bool ts_body_order_reserve(ts_body_order *order, const ts_allocator *allocator, int32_t bodies, int32_t contacts,
                           int workers);
void ts_body_order_destroy(ts_body_order *order, const ts_allocator *allocator);

/* At the end of step `step` (worker 0, inside the step's parallel region):
 * every `every` steps, the awake range moved into the order
 * along the axis whose halves cross least, when that crosses at most 4/5
 * of the slot halves. Returns true when the bodies moved. */
bool ts_body_order_update(ts_body_order *order, ts_records *records, ts_parallel *parallel, int step);

#endif

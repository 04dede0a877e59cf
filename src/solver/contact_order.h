/* The order in which a colour's contacts fill the soft step's bundles.
 *
 * Most points first, so that the lanes of a bundle have as many points as
 * each other and the kernels, which visit a bundle's points up to the most of
 * any lane, do little work for points most lanes lack (a pile's sphere
 * contacts have one point, box stacks four; Box3D groups its wide contacts
 * the same way).
 *
 * Before that, by body slot, when the step has several workers: the awake
 * slots are cut into one range per worker and a colour's contacts go range
 * by range (by their first awake body). A pass's workers split each
 * colour's blocks in order (base/parallel.h), so each works on about the same
 * bodies in every colour and their states stay in its cache; in the order
 * the colours were filled, every colour sent most bodies from one core to
 * the other. Within a range, the contacts whose other body lies in a lower
 * range come first and those whose other body lies in a higher range last,
 * so the contacts that cross between two workers' bodies sit where their
 * shares meet, and a share that strays past its range takes those before
 * the contacts wholly of the other range (pile, two workers: body states
 * handed between the workers in a substep's colour passes 9.8k -> 6.7k,
 * wide_pyramid 4.1k -> 3.2k, counted by a temporary model of the static
 * split). Within these the point-count groups hold, so at most workers x 15
 * bundles mix counts; one worker orders by point count alone.
 *
 * The order changes no bits: a lane's result does not depend on the other
 * lanes of its bundle (every width and thread count gives the same state). */
#ifndef TS_CONTACT_ORDER_H
#define TS_CONTACT_ORDER_H

#include "islands/graph.h"
#include "soa/records.h"

#include <stdatomic.h>
#include <stdint.h>


/* Writes the colour's count contact ids to ordered: by slot range (of
 * `ranges`, at most 64), then by where the other body is (a lower range,
 * the same or none, a higher range), then 4-point manifolds first, then 3,
 * 2, 1 (and 0), each group in the colour's own order. keys: room for the
 * colour's count keys (scratch). Two ranges meet at slot `cut` (0: half the
 * awake slots). The paired passes order in two steps instead (below). */
void ts_contact_order_color(const ts_records *records, const ts_graph_color *color, int ranges, uint16_t *keys,
                            int32_t *ordered, int64_t cut);

/* The paired passes' order (solver/pair_schedule.h), two ranges: a body is
 * a border body when a crossing contact (one that joins the ranges) of any
 * paired colour touches it, and the contacts of the upper range alone are
 * cut in two: those that touch a border body (int1b) right after the
 * crossing ones, then those that touch none (int1n), which share no body
 * with anything the lower range's worker runs.
 *
 * First step, for the colour's contacts [first, end) (blocks of any
 * colour, every paired colour's before any second step): the keys, each
 * contact's two body slots (slots[2 i], slots[2 i + 1]; -1 for a static or
 * sleeping body) and the border marks (border[slot] = 1; the two workers
 * may mark the same body, hence relaxed atomic stores). */
void ts_contact_order_mark(const ts_records *records, const ts_graph_color *color, int32_t first, int32_t end,
                           uint16_t *keys, int32_t *slots, _Atomic uint8_t *border, int64_t cut);

/* Second step: the colour in bundle order, int0, crossing, `pad` empty
 * entries (-1) so that int1b starts on a multiple of `align`, int1b, int1n
 * (each by point count). splits: where the crossing contacts, int1b and
 * int1n start. Returns the entries written (count + pad, pad < align). */
int32_t ts_contact_order_pairs(const ts_graph_color *color, uint16_t *keys, const int32_t *slots,
                               const _Atomic uint8_t *border, int align, int32_t *ordered, int32_t splits[3]);

#endif

/* A colour's contacts in bundle order (see contact_order.h): by the slot
 * range of their bodies, then by point count. */
#include "solver/contact_order.h"

#include <stdbool.h>

/* The most slot ranges a colour is cut into (see contact_order.h). */
#define TS_ORDER_RANGES 64
#define TS_ORDER_GROUPS (TS_CONTACT_POINTS + 1)

/* Where the contact's other body is, seen from its range: a lower range,
 * the same range or none (static, sleeping), a higher range. */
#define TS_ORDER_SIDES 3

/* The contact's key: the range of its first awake body slot (a contact has
 * one; static and sleeping bodies sit past the awake slots), the side of
 * its other body, and its point-count group, 4 points first. slots, if not
 * NULL: the awake body's slot and the other body's (-1 when not awake). */
TS_FORCE_INLINE int key_of(const ts_records *records, int32_t contact, int64_t awake, int ranges, int64_t cut,
                           int32_t *slots)
{
    const ts_contact_store *s = &records->contact_store;
    const int32_t *slot_of_body = records->store.table.slot_of_id;
    int32_t i = s->table.slot_of_id[contact];
    int group = TS_CONTACT_POINTS - s->point_count[i];
    if (ranges == 1) {
        return group;
    }
    int64_t slot_a = slot_of_body[s->body_a[i]], slot_b = slot_of_body[s->body_b[i]];
    int64_t slot = slot_a < awake ? slot_a : slot_b, other = slot_a < awake ? slot_b : slot_a;
    if (slots != NULL) {
        slots[0] = (int32_t)slot;
        slots[1] = other < awake ? (int32_t)other : -1;
    }
    int range = slot >= awake ? ranges - 1 : ranges == 2 ? slot >= cut : (int)(slot * ranges / awake);
    int side = 1;
    if (other < awake) {
        int other_range = ranges == 2 ? other >= cut : (int)(other * ranges / awake);
        side = other_range < range ? 0 : other_range > range ? 2 : 1;
    }
    return (range * TS_ORDER_SIDES + side) * TS_ORDER_GROUPS + group;
}

/* How far ahead the key loop asks for a contact's rows: its store slot
 * first, then (once that arrived) its bodies and point count, then the
 * bodies' slots. Each key is a chain of three dependent scattered reads,
 * and a colour's contacts come in no memory order, so without this the
 * loop waits on memory at every link (pile, two workers: the pass took
 * ~3x its one-worker time, whose keys read only the first link). */
#define TS_ORDER_AHEAD 12

TS_FORCE_INLINE void prefetch_key(const ts_records *records, const ts_graph_color *color, int32_t i, int ranges)
{
    const ts_contact_store *s = &records->contact_store;
    int32_t n = color->count;
    if (i + TS_ORDER_AHEAD < n) {
        TS_PREFETCH(s->table.slot_of_id + color->contacts[i + TS_ORDER_AHEAD]);
    }
    if (i + 2 * TS_ORDER_AHEAD / 3 < n) {
        int32_t slot = s->table.slot_of_id[color->contacts[i + 2 * TS_ORDER_AHEAD / 3]];
        TS_PREFETCH(s->point_count + slot);
        if (ranges > 1) {
            TS_PREFETCH(s->body_a + slot);
            TS_PREFETCH(s->body_b + slot);
        }
    }
    if (ranges > 1 && i + TS_ORDER_AHEAD / 3 < n) {
        int32_t slot = s->table.slot_of_id[color->contacts[i + TS_ORDER_AHEAD / 3]];
        const int32_t *slot_of_body = records->store.table.slot_of_id;
        TS_PREFETCH(slot_of_body + s->body_a[slot]);
        TS_PREFETCH(slot_of_body + s->body_b[slot]);
    }
}

/* Counting sort by key_of, stable; `ranges` is a constant where inlined.
 * The keys are computed once (each reads four scattered rows) and kept
 * for the second loop. */
TS_FORCE_INLINE void order_by_key(const ts_records *records, const ts_graph_color *color, int ranges, uint16_t *keys,
                                  int32_t *ordered, int64_t cut)
{
    int64_t awake = records->store.table.end[TS_RANGE_AWAKE];
    cut = cut > 0 && cut < awake ? cut : (awake + 1) / 2;
    int32_t next[TS_ORDER_RANGES * TS_ORDER_SIDES * TS_ORDER_GROUPS] = {0};
    for (int32_t i = 0; i < color->count; ++i) {
        prefetch_key(records, color, i, ranges);
        int key = key_of(records, color->contacts[i], awake, ranges, cut, NULL);
        keys[i] = (uint16_t)key;
        ++next[key];
    }
    int32_t start = 0;
    int key_count = (ranges > 1 ? ranges * TS_ORDER_SIDES : 1) * TS_ORDER_GROUPS;
    for (int k = 0; k < key_count; ++k) {
        int32_t size = next[k];
        next[k] = start;
        start += size;
    }
    for (int32_t i = 0; i < color->count; ++i) {
        ordered[next[keys[i]]++] = color->contacts[i];
    }
}

void ts_contact_order_color(const ts_records *records, const ts_graph_color *color, int ranges, uint16_t *keys,
                            int32_t *ordered, int64_t cut)
{
    if (ranges <= 1) {
        order_by_key(records, color, 1, keys, ordered, 0); /* point counts alone */
    } else if (ranges == 2) {
        order_by_key(records, color, 2, keys, ordered, cut);
    } else {
        order_by_key(records, color, ranges < TS_ORDER_RANGES ? ranges : TS_ORDER_RANGES, keys, ordered, 0);
    }
}

/* ---- the paired passes' order (contact_order.h) ---- */

/* The first keys of the crossing contacts (the lower range's, then the
 * upper's: keys [KEY_CROSS, KEY_INT1)), of the upper range's contacts with
 * no body in the lower, and of int1n (the second step's). */
#define KEY_CROSS ((0 * TS_ORDER_SIDES + 2) * TS_ORDER_GROUPS)
#define KEY_INT1 ((1 * TS_ORDER_SIDES + 1) * TS_ORDER_GROUPS) /* int1b in the second step */
#define KEY_INT1N (2 * TS_ORDER_SIDES * TS_ORDER_GROUPS)      /* past the two ranges' keys */

void ts_contact_order_mark(const ts_records *records, const ts_graph_color *color, int32_t first, int32_t end,
                           uint16_t *keys, int32_t *slots, _Atomic uint8_t *border, int64_t cut)
{
    int64_t awake = records->store.table.end[TS_RANGE_AWAKE];
    cut = cut > 0 && cut < awake ? cut : (awake + 1) / 2;
    for (int32_t i = first; i < end; ++i) {
        prefetch_key(records, color, i, 2);
        int key = key_of(records, color->contacts[i], awake, 2, cut, slots + 2 * i);
        keys[i] = (uint16_t)key;
        if (key >= KEY_CROSS && key < KEY_INT1) {
            atomic_store_explicit(border + slots[2 * i], 1, memory_order_relaxed);
            atomic_store_explicit(border + slots[2 * i + 1], 1, memory_order_relaxed);
        }
    }
}

/* slots[0] is the contact's awake body's (a coloured contact has one). */
static bool touches_border(const int32_t *slots, const _Atomic uint8_t *border)
{
    return atomic_load_explicit(border + slots[0], memory_order_relaxed) ||
           (slots[1] >= 0 && atomic_load_explicit(border + slots[1], memory_order_relaxed));
}

int32_t ts_contact_order_pairs(const ts_graph_color *color, uint16_t *keys, const int32_t *slots,
                               const _Atomic uint8_t *border, int align, int32_t *ordered, int32_t splits[3])
{
    int32_t next[KEY_INT1N + TS_ORDER_GROUPS] = {0};
    for (int32_t i = 0; i < color->count; ++i) {
        int key = keys[i];
        if (key >= KEY_INT1 && key < KEY_INT1 + TS_ORDER_GROUPS && !touches_border(slots + 2 * i, border)) {
            key += KEY_INT1N - KEY_INT1;
            keys[i] = (uint16_t)key;
        }
        ++next[key];
    }
    int32_t start = 0, pad = 0;
    for (int k = 0; k < KEY_INT1N + TS_ORDER_GROUPS; ++k) {
        if (k == KEY_INT1) { /* int1b on a bundle's first lane: no bundle holds both workers' contacts */
            pad = (align - start % align) % align;
            for (int32_t j = 0; j < pad; ++j) {
                ordered[start + j] = -1;
            }
            start += pad;
        }
        int32_t size = next[k];
        next[k] = start;
        start += size;
    }
    splits[0] = next[KEY_CROSS];
    splits[1] = next[KEY_INT1];
    splits[2] = next[KEY_INT1N];
    for (int32_t i = 0; i < color->count; ++i) {
        ordered[next[keys[i]]++] = color->contacts[i];
    }
    return color->count + pad;
}

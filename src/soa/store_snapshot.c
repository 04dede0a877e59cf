/* Snapshots of the SoA stores and the contact records (see
 * records_snapshot.h): a table's slots in range order, then per slot the
 * columns that differ from what that slot's object predicts.
 *
 * What is not written (and is zero in a loaded world) is what no stage
 * reads before writing it:
 * - the body store's world inverse inertias (inv_iw_*): written for the
 *   awake bodies by the solver at each step's start, read only for those;
 * - a contact's points past its point count (the narrowphase matches old
 *   points up to the old count only), its recycling columns unless
 *   TS_CONTACT_CACHED is set (read only with it), and its shift unless it
 *   has points (B's anchors are A's plus the shift). */
#include "soa/records_snapshot.h"
#include "soa/snapshot_ranges.h"

#include "base/alloc.h"
#include "base/math3.h"
#include "tessera/limits.h"

#include <stddef.h>
#include <string.h>

/* ---- a table's slots ---- */

static void save_slots(ts_writer *w, const ts_soa_table *t)
{
    ts_put_varint(w, (uint64_t)t->count);
    for (int r = 0; r + 1 < t->layout.range_count; ++r) {
        ts_put_varint(w, (uint64_t)t->end[r]);
    }
    ts_put_u32(w, t->revision);
    for (int32_t i = 0; i < t->count; ++i) {
        ts_put_varint(w, (uint64_t)t->id_of_slot[i]);
    }
}

/* Reads the slots of a table whose objects are the live ids below `ids`
 * (`live` of them). The columns are left as allocated: the caller writes
 * every element of every slot (zeroing them first too was a tenth of a
 * load's time). */
static ts_load_status load_slots(ts_reader *r, ts_soa_table *t, void **columns, const ts_records *records,
                                 bool (*alive)(const ts_records *, int32_t), int32_t ids, int32_t live,
                                 const char *what)
{
    int32_t count = ts_get_count(r, live, 1, what);
    int32_t previous = 0;
    for (int k = 0; k + 1 < t->layout.range_count; ++k) {
        t->end[k] = ts_get_count(r, count < 0 ? 0 : count, 0, "a range end");
        if (!r->failed && t->end[k] < previous) {
            ts_reader_fail(r, "the range ends are out of order");
        }
        previous = t->end[k];
    }
    uint32_t revision = ts_get_u32(r);
    if (r->failed) {
        return TS_LOAD_INVALID;
    }
    if (count != live) {
        ts_reader_fail(r, "%d slots for %d live objects", (int)count, (int)live);
        return TS_LOAD_INVALID;
    }
    if (!ts_soa_reserve(t, columns, &records->allocator, count, ids)) {
        return TS_LOAD_NO_MEMORY;
    }
    t->end[t->layout.range_count - 1] = count;
    t->count = count;
    t->revision = revision;
    for (int32_t i = 0; i < count; ++i) {
        int32_t id = ts_get_index(r, 0, ids, "a slot's id");
        if (r->failed) {
            return TS_LOAD_INVALID;
        }
        if (t->slot_of_id[id] != -1 || !alive(records, id)) {
            ts_reader_fail(r, "id %d is dead or has two slots", (int)id);
            return TS_LOAD_INVALID;
        }
        t->id_of_slot[i] = id;
        t->slot_of_id[id] = i;
    }
    return TS_LOAD_OK;
}

/* ---- the body store ---- */

static bool body_alive(const ts_records *records, int32_t index) { return records->bodies[index].alive; }

/* Columns in the order of their mask bits: those most often set first, so
 * that a moving body's mask is two bytes; -1 ends the list. */
static const int8_t body_order[] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 37, /* p, q, v, w, sleep_time */
    13, 14, 15, 16, 17, 18,                                 /* force, torque */
    19, 20, 21, 22, 23, 24, 25, 26, 27, 28,                 /* masses, damping, gravity scale */
    35, 36, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, /* extent, sleep threshold, bounds, edges */
    50,                                                     /* locks (format 2) */
    -1,
};
enum { BODY_ORDER_V1 = 49 }; /* format 1's columns: body_order's first 49 */

void ts_body_store_save(ts_writer *w, const ts_records *records, ts_body_predict_fn *predict)
{
    const ts_body_store *s = &records->store;
    save_slots(w, &s->table);
    for (int32_t i = 0; i < s->table.count; ++i) {
        uint32_t predicted[TS_BODY_COLUMNS];
        predict(records, s->table.id_of_slot[i], predicted);
        uint64_t mask = 0;
        for (int b = 0; body_order[b] >= 0; ++b) {
            int c = body_order[b];
            mask |= ((const uint32_t *)s->columns[c])[i] != predicted[c] ? (uint64_t)1 << b : 0;
        }
        ts_put_varint(w, mask);
        for (int b = 0; body_order[b] >= 0; ++b) {
            if (mask >> b & 1) {
                ts_put_u32(w, ((const uint32_t *)s->columns[body_order[b]])[i]);
            }
        }
    }
}

/* A load fills the stores a chunk of slots at a time: each slot's values
 * (predicted, then the written ones over them) go into a row of a small
 * buffer, and the rows then into the columns, CHUNK consecutive elements of
 * one column after another. Written slot by slot, each slot's 51 (body) or
 * 57 (contact) scattered stores missed the cache one column each: that was
 * half of a load's time. */
enum { CHUNK = 32 };

#define B_COLUMN(field) ((int)(offsetof(ts_body_store, field) / sizeof(void *)))
_Static_assert(B_COLUMN(locks) == 50 && B_COLUMN(edges) == 49, "body_store.h's columns moved: check body_order");

static float column_value(const uint32_t *row, int c)
{
    float value;
    memcpy(&value, row + c, 4);
    return value;
}

/* The columns after the pose and velocity that a step reads (the file may
 * write any of them): the masses, dampings, gravity scale and extent are
 * what api/body_mass.c writes from the records (an inverse mass of 1e30
 * on a 1 kg body would pass every range); forces, the sleep threshold and
 * timer finite; the bounds' fast path, when taken (a radius or box half
 * extent > 0), as ts_body_sync_bounds keeps it: its box, half extents and
 * radius those of the body's only shape (a crafted radius or fat box went
 * into the broadphase tree unchecked). */
static bool check_body_columns(ts_reader *r, int32_t id, const uint32_t row[TS_BODY_COLUMNS],
                               const uint32_t predicted[TS_BODY_COLUMNS])
{
    for (int c = B_COLUMN(fx); c <= B_COLUMN(tz); ++c) {
        if (!ts_is_finite(column_value(row, c))) {
            return ts_reader_fail(r, "body %d's force or torque (column %d) is not finite", (int)id, c);
        }
    }
    int same[] = {B_COLUMN(inv_mass), B_COLUMN(inv_ix), B_COLUMN(inv_iy), B_COLUMN(inv_iz), B_COLUMN(ix),
                  B_COLUMN(iy), B_COLUMN(iz), B_COLUMN(linear_damping), B_COLUMN(angular_damping),
                  B_COLUMN(gravity_scale), B_COLUMN(max_extent)};
    for (int k = 0; k < (int)(sizeof same / sizeof same[0]); ++k) {
        if (row[same[k]] != predicted[same[k]]) {
            return ts_reader_fail(r, "body %d's column %d is %g, not what its mass data and settings give (%g)",
                                  (int)id, same[k], (double)column_value(row, same[k]),
                                  (double)column_value(predicted, same[k]));
        }
    }
    float threshold = column_value(row, B_COLUMN(sleep_threshold)), timer = column_value(row, B_COLUMN(sleep_time));
    if (!(threshold >= 0.0f || threshold == -1.0f) || !ts_is_finite(threshold) || !(timer >= 0.0f) ||
        !ts_is_finite(timer)) {
        return ts_reader_fail(r, "body %d's sleep threshold or timer (%g, %g) is out of range", (int)id,
                              (double)threshold, (double)timer);
    }
    if (column_value(row, B_COLUMN(sphere_radius)) > 0.0f || column_value(row, B_COLUMN(box_hx)) > 0.0f) {
        for (int c = B_COLUMN(sphere_radius); c <= B_COLUMN(fat_uz); ++c) {
            if (row[c] != predicted[c]) {
                return ts_reader_fail(r, "body %d's bounds column %d is %g, not its only shape's (%g)", (int)id, c,
                                      (double)column_value(row, c), (double)column_value(predicted, c));
            }
        }
    }
    return true;
}

/* Checks one body's row (its slot i) after reading it; false after failing. */
static bool check_body_row(ts_reader *r, const ts_records *records, const ts_body_store *s, int32_t i,
                           const uint32_t row[TS_BODY_COLUMNS], const uint32_t predicted[TS_BODY_COLUMNS])
{
    int32_t id = s->table.id_of_slot[i];
    const ts_body *body = records->bodies + id;
    /* pose and velocity: finite, and within what the API's setters accept
     * (a body far beyond TS_MAX_EXTENT made a NaN box in the next step:
     * the fuzzer's find) */
    static const float bounds[13] = {TS_MAX_EXTENT, TS_MAX_EXTENT, TS_MAX_EXTENT, 2.0f, 2.0f, 2.0f, 2.0f,
                                     TS_MAX_SPEED, TS_MAX_SPEED, TS_MAX_SPEED, TS_MAX_ANGULAR_SPEED,
                                     TS_MAX_ANGULAR_SPEED, TS_MAX_ANGULAR_SPEED};
    for (int c = 0; c < 13; ++c) {
        float value;
        memcpy(&value, row + c, 4);
        if (!ts_is_finite(value) || !(value >= -bounds[c] && value <= bounds[c])) {
            return ts_reader_fail(r, "body %d's pose or velocity (column %d: %g) is not finite or out of range",
                                  (int)id, c, (double)value);
        }
    }
    /* a unit rotation (a zero one made NaN when the step normalised it) */
    ts_quat q = {column_value(row, B_COLUMN(qx)), column_value(row, B_COLUMN(qy)), column_value(row, B_COLUMN(qz)),
                 column_value(row, B_COLUMN(qw))};
    if (!ts_unit_rotation(q)) {
        return ts_reader_fail(r, "body %d's rotation (%g, %g, %g, %g) is not unit", (int)id, (double)q.x,
                              (double)q.y, (double)q.z, (double)q.w);
    }
    if (!check_body_columns(r, id, row, predicted)) {
        return false;
    }
    if ((int32_t)row[B_COLUMN(first_shape)] != body->first_shape ||
        (int32_t)row[B_COLUMN(edges)] != body->contact_count + body->joint_count) {
        return ts_reader_fail(r, "body %d's first-shape or edge column disagrees with its lists", (int)id);
    }
    return true;
}

ts_load_status ts_body_store_load(ts_reader *r, ts_records *records, ts_body_predict_fn *predict)
{
    ts_body_store *s = &records->store;
    int32_t live = 0;
    for (int32_t b = 0; b < records->body_ids.next_index; ++b) {
        live += records->bodies[b].alive ? 1 : 0;
    }
    ts_load_status status =
        load_slots(r, &s->table, s->columns, records, body_alive, records->body_ids.next_index, live, "the body slots");
    if (status != TS_LOAD_OK) {
        return status;
    }
    int bits = 0;
    while (body_order[bits] >= 0) {
        ++bits;
    }
    bits = r->version < 2 ? BODY_ORDER_V1 : bits;
    uint32_t rows[CHUNK][TS_BODY_COLUMNS];
    for (int32_t first = 0; first < s->table.count && !r->failed; first += CHUNK) {
        int32_t n = s->table.count - first < CHUNK ? s->table.count - first : CHUNK;
        for (int32_t j = 0; j < n && !r->failed; ++j) {
            int32_t i = first + j;
            int32_t id = s->table.id_of_slot[i];
            const ts_body *body = records->bodies + id;
            if (!body->alive || (body->type == TS_BODY_STATIC) != (i >= s->table.end[TS_RANGE_SLEEPING])) {
                ts_reader_fail(r, "body %d is dead, or static outside the static range (or the reverse)", (int)id);
                break;
            }
            predict(records, id, rows[j]);
            for (int c = B_COLUMN(inv_iw_xx); c <= B_COLUMN(inv_iw_yz); ++c) {
                rows[j][c] = 0; /* the world inverse inertia: the solver's, each step (see the top of this file) */
            }
            uint32_t predicted[TS_BODY_COLUMNS];
            memcpy(predicted, rows[j], sizeof predicted);
            uint64_t mask = ts_get_varint(r);
            if (mask >> bits != 0) {
                ts_reader_fail(r, "body %d's column mask names a column that is never written", (int)id);
                break;
            }
            for (int b = 0; b < bits; ++b) {
                if (mask >> b & 1) {
                    rows[j][body_order[b]] = ts_get_u32(r);
                }
            }
            if (!r->failed) {
                check_body_row(r, records, s, i, rows[j], predicted);
            }
        }
        for (int c = 0; c < TS_BODY_COLUMNS && !r->failed; ++c) {
            uint32_t *column = (uint32_t *)s->columns[c] + first;
            for (int32_t j = 0; j < n; ++j) {
                column[j] = rows[j][c];
            }
        }
    }
    s->locked_count = 0; /* the bodies with locks in effect (the step checks the column against the records) */
    for (int32_t i = 0; i < s->table.count && !r->failed; ++i) {
        s->locked_count += s->locks[i] != 0 ? 1 : 0;
    }
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}

/* ---- contacts ---- */

static int32_t *contact_head(ts_records *records, int32_t body) { return &records->bodies[body].contact_head; }
static int32_t *contact_count(ts_records *records, int32_t body) { return &records->bodies[body].contact_count; }
static int32_t *contact_edge(ts_records *records, int32_t key)
{
    return &records->contacts[key >> 1].edges[key & 1].body;
}
static bool contact_alive(const ts_records *records, int32_t index) { return records->contacts[index].alive; }

static ts_edge_lists contact_lists(const ts_records *records)
{
    return (ts_edge_lists){contact_head, contact_count, contact_edge, contact_alive, records->contact_ids.next_index};
}

/* Per-contact columns and per-point ones (the last 7) of the contact
 * store, by index: each named column's place in contact_store.h's table. */
#define C_INDEX(field) ((int)(offsetof(ts_contact_store, field) / sizeof(void *)))
enum {
    C_SHAPE_A = C_INDEX(shape_a),
    C_SHAPE_B = C_INDEX(shape_b),
    C_BODY_A = C_INDEX(body_a),
    C_BODY_B = C_INDEX(body_b),
    C_FRICTION = C_INDEX(friction),
    C_RESTITUTION = C_INDEX(restitution),
    C_POINT_COUNT = C_INDEX(point_count),
    C_FLAGS = C_INDEX(flags),
    C_SHIFT = C_INDEX(shift_x), /* shift_x, _y, _z */
    C_CACHE = C_INDEX(cache_ax), /* the recycling columns, up to the first per-point one */
    C_PER_CONTACT = C_INDEX(anchor_ax),
    C_POINT_COLUMNS = TS_CONTACT_COLUMNS - C_INDEX(anchor_ax),
};
_Static_assert(C_SHIFT + 3 == C_CACHE && C_POINT_COLUMNS == 7, "contact_store.h's columns moved: check the snapshot");

/* What a contact's per-contact columns are unless written. */
static void predict_contact(const ts_records *records, int32_t contact, uint32_t out[C_PER_CONTACT])
{
    const ts_contact *c = records->contacts + contact;
    const ts_shape *a = records->shapes + c->shape_a;
    const ts_shape *b = records->shapes + c->shape_b;
    memset(out, 0, sizeof(uint32_t) * C_PER_CONTACT);
    out[C_SHAPE_A] = (uint32_t)c->shape_a;
    out[C_SHAPE_B] = (uint32_t)c->shape_b;
    out[C_BODY_A] = (uint32_t)a->body;
    out[C_BODY_B] = (uint32_t)b->body;
    float friction = sqrtf(a->friction * b->friction); /* as contact.c mixes them */
    float restitution = a->restitution > b->restitution ? a->restitution : b->restitution;
    memcpy(out + C_FRICTION, &friction, 4);
    memcpy(out + C_RESTITUTION, &restitution, 4);
}

/* Whether per-contact column c is kept for a contact with these flags and points. */
static bool contact_column_kept(int c, uint32_t flags, int32_t points)
{
    if (c == C_POINT_COUNT || c == C_FLAGS) {
        return false; /* in the slot's first byte */
    }
    if (c >= C_SHIFT && c < C_SHIFT + 3) {
        return points > 0;
    }
    /* a hull pair's separating-axis cache is kept while the pair is apart
     * too (the narrowphase updates it without TS_CONTACT_CACHED): dropped,
     * a loaded hull pile went another way within 100 steps */
    if (c == C_INDEX(sat_feature) || c == C_INDEX(sat_depth)) {
        return true;
    }
    /* mixed from the shapes: recomputed on load (step/world_snapshot.c) */
    if (c == C_INDEX(rolling_resistance)) {
        return false;
    }
    if (c >= C_CACHE) {
        return (flags & TS_CONTACT_CACHED) != 0;
    }
    return true;
}

void ts_contacts_save(ts_writer *w, const ts_records *records)
{
    ts_id_pool_save(w, &records->contact_ids);
    for (int32_t i = 0; i < records->contact_ids.next_index; ++i) {
        const ts_contact *c = records->contacts + i;
        if (c->alive) {
            ts_put_varint(w, (uint64_t)c->shape_a);
            ts_put_varint(w, (uint64_t)c->shape_b);
            ts_put_u8(w, c->linked ? 1 : 0);
        }
    }
    ts_edge_lists lists = contact_lists(records);
    ts_edge_lists_save(w, records, &lists);

    const ts_contact_store *s = &records->contact_store;
    save_slots(w, &s->table);
    for (int32_t i = 0; i < s->table.count; ++i) {
        uint32_t flags = s->flags[i];
        int32_t points = s->point_count[i];
        ts_put_u8(w, (uint8_t)((uint32_t)points | flags << 3));
        uint32_t predicted[C_PER_CONTACT];
        predict_contact(records, s->table.id_of_slot[i], predicted);
        uint32_t mask = 0;
        for (int c = 0; c < C_PER_CONTACT; ++c) {
            uint32_t value = ((const uint32_t *)s->columns[c])[i];
            mask |= contact_column_kept(c, flags, points) && value != predicted[c] ? 1u << c : 0u;
        }
        ts_put_varint(w, mask);
        for (int c = 0; c < C_PER_CONTACT; ++c) {
            if (mask >> c & 1) {
                ts_put_u32(w, ((const uint32_t *)s->columns[c])[i]);
            }
        }
        for (int k = 0; k < points; ++k) {
            uint8_t point_mask = 0;
            for (int c = 0; c < C_POINT_COLUMNS; ++c) {
                point_mask |= ((const uint32_t *)s->columns[C_PER_CONTACT + c])[4 * i + k] != 0 ? 1u << c : 0u;
            }
            ts_put_u8(w, point_mask);
            for (int c = 0; c < C_POINT_COLUMNS; ++c) {
                if (point_mask >> c & 1) {
                    ts_put_u32(w, ((const uint32_t *)s->columns[C_PER_CONTACT + c])[4 * i + k]);
                }
            }
        }
    }
}

static ts_load_status load_contact_records(ts_reader *r, ts_records *records, int32_t *live)
{
    const ts_allocator *a = &records->allocator;
    ts_load_status status = ts_id_pool_load(r, &records->contact_ids, a, TS_MAX_OBJECTS, "the contact count");
    if (status != TS_LOAD_OK) {
        return status;
    }
    int32_t n = records->contact_ids.next_index, shapes = records->shape_ids.next_index;
    if (n > 0) {
        records->contacts = ts_alloc(a, (size_t)n * sizeof(ts_contact));
        if (records->contacts == NULL) {
            return TS_LOAD_NO_MEMORY;
        }
        records->contact_capacity = n;
        memset(records->contacts, 0, (size_t)n * sizeof(ts_contact));
    }
    *live = n - records->contact_ids.free_count;
    for (int32_t k = 0; k < records->contact_ids.free_count; ++k) {
        ts_contact *c = records->contacts + records->contact_ids.free_ids[k];
        if (c->color == 1) {
            ts_reader_fail(r, "free contact id %d is listed twice", (int)records->contact_ids.free_ids[k]);
            return TS_LOAD_INVALID;
        }
        c->color = 1; /* marks a free id until the loop below */
    }
    for (int32_t i = 0; i < n && !r->failed; ++i) {
        ts_contact *c = records->contacts + i;
        bool is_free = c->color == 1;
        *c = (ts_contact){.color = -1, .color_index = -1, .graph_body = {-1, -1}, .alive = !is_free,
                          .shape_a = -1, .shape_b = -1, .edges = {{-1, -1, -1}, {-1, -1, -1}}};
        if (is_free) {
            continue;
        }
        c->shape_a = ts_get_index(r, 0, shapes, "a contact's shape");
        c->shape_b = ts_get_index(r, 0, shapes, "a contact's shape");
        c->linked = ts_get_bool(r, "a contact's linked flag");
        if (r->failed) {
            break;
        }
        const ts_shape *sa = records->shapes + c->shape_a, *sb = records->shapes + c->shape_b;
        if (!sa->alive || !sb->alive || c->shape_a >= c->shape_b) {
            ts_reader_fail(r, "contact %d's shapes %d and %d are dead or out of order", (int)i, (int)c->shape_a,
                           (int)c->shape_b);
            break;
        }
        c->edges[0].body = sa->body;
        c->edges[1].body = sb->body;
    }
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}

/* A slot's prediction reads its contact's record and both shapes', which
 * lie all over memory: the loop asks for the record of the slot 2 * AHEAD
 * on and, the record being there by then, for the shapes of the one AHEAD
 * on (a third of the loop's time were these misses). Written out in the
 * loop: GCC drops the calls of a static function that only prefetches. */
enum { AHEAD = 8 };

/* Whether element c of a contact's row (per-contact columns, then point
 * column c' point k at C_PER_CONTACT + 4c' + k) is a float. */
enum { ROW_LENGTH = C_PER_CONTACT + TS_CONTACT_POINTS * C_POINT_COLUMNS };
static bool contact_float(int c)
{
    if (c >= C_PER_CONTACT) {
        return (c - C_PER_CONTACT) / TS_CONTACT_POINTS != C_INDEX(feature) - C_PER_CONTACT;
    }
    return c != C_SHAPE_A && c != C_SHAPE_B && c != C_BODY_A && c != C_BODY_B && c != C_POINT_COUNT && c != C_FLAGS &&
           c != C_INDEX(sat_feature);
}

/* What a contact's row holds beyond finite values: the shapes' mixed
 * friction (>= 0) and restitution (in [0, 1]); a unit normal when it
 * touches (a normal of (0, 1e-44, 0) made NaN tangents in the next step:
 * the fuzzer's find), else a zero or unit one; anchors near its shapes;
 * kept impulses (friction, twist, each point's normal one) that its
 * bodies can take (ts_usable_impulse). */
static void check_contact_row(ts_reader *r, const ts_records *records, int32_t i, const uint32_t *row, int32_t points)
{
    float v[ROW_LENGTH];
    memcpy(v, row, sizeof v);
    if (!(v[C_FRICTION] >= 0.0f) || !(v[C_RESTITUTION] >= 0.0f && v[C_RESTITUTION] <= 1.0f)) {
        ts_reader_fail(r, "contact slot %d's friction or restitution (%g, %g) is out of range", (int)i,
                       (double)v[C_FRICTION], (double)v[C_RESTITUTION]);
        return;
    }
    ts_vec3 normal = {v[C_INDEX(nx)], v[C_INDEX(ny)], v[C_INDEX(nz)]};
    bool zero = normal.x == 0.0f && normal.y == 0.0f && normal.z == 0.0f;
    if (points > 0 ? !ts_unit_vector(normal) : !(zero || ts_unit_vector(normal))) {
        ts_reader_fail(r, "contact slot %d's normal (%g, %g, %g) is not unit", (int)i, (double)normal.x,
                       (double)normal.y, (double)normal.z);
        return;
    }
    /* the shift between the mass centres and each point's anchor (from A's
     * centre) within the two shapes' reach, twice, and TS_MAX_EXTENT for a
     * speculative gap (an anchor of 9e18 m made the next step's torques
     * overflow: the fuzzer's find) */
    float reach = 2.0f * (ts_shape_reach(records->shapes + row[C_SHAPE_A]) +
                          ts_shape_reach(records->shapes + row[C_SHAPE_B])) + TS_MAX_EXTENT;
    bool near = ts_within_reach((ts_vec3){v[C_SHIFT], v[C_SHIFT + 1], v[C_SHIFT + 2]}, reach);
    enum { ANCHOR_X = C_PER_CONTACT + TS_CONTACT_POINTS * (C_INDEX(anchor_ax) - C_PER_CONTACT) };
    for (int k = 0; k < points; ++k) {
        const float *a = v + ANCHOR_X + k;
        near = near && ts_within_reach((ts_vec3){a[0], a[TS_CONTACT_POINTS], a[2 * TS_CONTACT_POINTS]}, reach);
    }
    if (!near) {
        ts_reader_fail(r, "contact slot %d's anchors or centre shift reach beyond its shapes (%g m)", (int)i,
                       (double)reach);
        return;
    }
    const int32_t bodies[2] = {(int32_t)row[C_BODY_A], (int32_t)row[C_BODY_B]};
    enum { NORMAL_IMPULSE = C_PER_CONTACT + TS_CONTACT_POINTS * (C_INDEX(normal_impulse) - C_PER_CONTACT) };
    for (int c = 0; c < 5 + TS_CONTACT_POINTS; ++c) {
        int column = c < 3 ? C_INDEX(friction_impulse1) + c
                     : c < 5 ? C_INDEX(rolling_impulse1) + c - 3 /* format 3's rolling resistance: torques */
                             : NORMAL_IMPULSE + c - 5;
        bool angular = column == C_INDEX(twist_impulse) || (c >= 3 && c < 5);
        if (!ts_usable_impulse(records, bodies, v[column], angular)) {
            ts_reader_fail(r, "contact slot %d's kept impulse %d is %g, more than its bodies can take", (int)i,
                           column, (double)v[column]);
            return;
        }
    }
}

/* Reads contact slot i into a row (see CHUNK); fails through the reader. */
static void load_contact_row(ts_reader *r, const ts_records *records, int32_t i, uint32_t *row)
{
    uint8_t head = ts_get_u8(r);
    int32_t points = head & 7;
    uint32_t flags = (uint32_t)head >> 3;
    if (points > TS_CONTACT_POINTS || ((flags & TS_CONTACT_TOUCHING) != 0) != (points > 0)) {
        ts_reader_fail(r, "contact slot %d has %d points and flags %u", (int)i, (int)points, (unsigned)flags);
        return;
    }
    predict_contact(records, records->contact_store.table.id_of_slot[i], row);
    uint32_t predicted[4] = {row[C_SHAPE_A], row[C_SHAPE_B], row[C_BODY_A], row[C_BODY_B]};
    row[C_POINT_COUNT] = (uint32_t)points;
    row[C_FLAGS] = flags;
    uint64_t mask = ts_get_varint(r);
    for (int c = 0; c < C_PER_CONTACT; ++c) {
        if (mask >> c & 1) {
            if (!contact_column_kept(c, flags, points)) {
                ts_reader_fail(r, "contact slot %d writes column %d, which is never written", (int)i, c);
                return;
            }
            row[c] = ts_get_u32(r);
        }
    }
    if (mask >> C_PER_CONTACT != 0) {
        ts_reader_fail(r, "contact slot %d's column mask is %llu", (int)i, (unsigned long long)mask);
    }
    if (row[C_SHAPE_A] != predicted[0] || row[C_SHAPE_B] != predicted[1] || row[C_BODY_A] != predicted[2] ||
        row[C_BODY_B] != predicted[3]) {
        ts_reader_fail(r, "contact slot %d names other shapes or bodies than its contact", (int)i);
    }
    for (int k = 0; k < TS_CONTACT_POINTS; ++k) { /* the points past the count are zero */
        uint8_t point_mask = k < points && !r->failed ? ts_get_u8(r) : 0;
        if (point_mask >= 128) {
            ts_reader_fail(r, "contact slot %d's point mask is %u", (int)i, (unsigned)point_mask);
        }
        for (int c = 0; c < C_POINT_COLUMNS; ++c) {
            row[C_PER_CONTACT + TS_CONTACT_POINTS * c + k] = (point_mask >> c & 1) ? ts_get_u32(r) : 0u;
        }
    }
    /* every float column finite and within TS_MAX_FORCE (a NaN impulse or
     * normal in a crafted file made NaN bodies in the next step); the
     * integer ones (ids, count, flags, features) are checked above */
    for (int c = 0; c < ROW_LENGTH && !r->failed; ++c) {
        if (!contact_float(c)) {
            continue;
        }
        float value;
        memcpy(&value, row + c, 4);
        if (!ts_is_finite(value) || !(value >= -TS_MAX_FORCE && value <= TS_MAX_FORCE)) {
            ts_reader_fail(r, "contact slot %d's value %d is %g", (int)i, c, (double)value);
        }
    }
    if (!r->failed) {
        check_contact_row(r, records, i, row, points);
    }
}

ts_load_status ts_contacts_load(ts_reader *r, ts_records *records)
{
    int32_t live = 0;
    ts_load_status status = load_contact_records(r, records, &live);
    if (status != TS_LOAD_OK) {
        return status;
    }
    ts_edge_lists lists = contact_lists(records);
    status = ts_edge_lists_load(r, records, &lists);
    if (status != TS_LOAD_OK) {
        return status;
    }
    ts_contact_store *s = &records->contact_store;
    status = load_slots(r, &s->table, s->columns, records, contact_alive, records->contact_ids.next_index, live,
                        "the contact slots");
    if (status != TS_LOAD_OK) {
        return status;
    }
    uint32_t rows[CHUNK][ROW_LENGTH]; /* point column c, point k: C_PER_CONTACT + 4c + k */
    for (int32_t first = 0; first < s->table.count && !r->failed; first += CHUNK) {
        int32_t n = s->table.count - first < CHUNK ? s->table.count - first : CHUNK;
        for (int32_t j = 0; j < n && !r->failed; ++j) {
#if defined(__GNUC__)
            int32_t ahead = first + j + AHEAD;
            if (ahead + AHEAD < s->table.count) {
                __builtin_prefetch(records->contacts + s->table.id_of_slot[ahead + AHEAD]);
            }
            if (ahead < s->table.count) {
                const ts_contact *c = records->contacts + s->table.id_of_slot[ahead];
                __builtin_prefetch(&records->shapes[c->shape_a].body);
                __builtin_prefetch(&records->shapes[c->shape_a].friction);
                __builtin_prefetch(&records->shapes[c->shape_b].body);
                __builtin_prefetch(&records->shapes[c->shape_b].friction);
            }
#endif
            load_contact_row(r, records, first + j, rows[j]);
        }
        for (int c = 0; c < C_PER_CONTACT && !r->failed; ++c) {
            uint32_t *column = (uint32_t *)s->columns[c] + first;
            for (int32_t j = 0; j < n; ++j) {
                column[j] = rows[j][c];
            }
        }
        for (int c = 0; c < C_POINT_COLUMNS && !r->failed; ++c) {
            uint32_t *column = (uint32_t *)s->columns[C_PER_CONTACT + c] + TS_CONTACT_POINTS * first;
            for (int32_t j = 0; j < n; ++j) {
                memcpy(column + TS_CONTACT_POINTS * j, rows[j] + C_PER_CONTACT + TS_CONTACT_POINTS * c,
                       TS_CONTACT_POINTS * sizeof(uint32_t));
            }
        }
    }
    return r->failed ? TS_LOAD_INVALID : TS_LOAD_OK;
}

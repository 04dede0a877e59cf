/* The SoA body store: ranges stay ordered, the slot <-> body maps stay
 * inverse, and every column's value travels with its body through moves;
 * a batch of removals gives the same store as removing one by one. */
#include "test_common.h"

#include "base/alloc.h"
#include "soa/body_store.h"
#include "soa/soa_removal.h"

#include <string.h>

/* Each column of body b holds b * 100 + column, so a value that lands on the
 * wrong body or column is caught. */
static void tag(ts_body_store *s, int32_t slot, int32_t body)
{
    for (int c = 0; c < TS_BODY_COLUMNS; ++c) {
        ((float *)s->columns[c])[slot] = (float)(body * 100 + c);
    }
}

static void check_tags(const ts_body_store *s)
{
    for (int32_t slot = 0; slot < s->table.count; ++slot) {
        int32_t body = s->table.id_of_slot[slot];
        for (int c = 0; c < TS_BODY_COLUMNS; ++c) {
            assert_true(((float *)s->columns[c])[slot] == (float)(body * 100 + c));
        }
    }
}

/* 5,000 random adds, removes and range moves; after each, the maps and
 * ranges validate, and after every 100 the tags are on the right bodies. */
static void test_random_moves_keep_maps(void **state)
{
    (void)state;
    ts_allocator a = ts_default_allocator();
    ts_body_store s;
    ts_body_store_init(&s);
    int32_t bodies[4096];
    int live = 0, next_body = 0;
    uint32_t seed = 99;
    for (int op = 0; op < 5000; ++op) {
        uint32_t r = next_random(&seed) % 10;
        if (live == 0 || (r < 5 && live < 4096)) {
            int32_t body = next_body++;
            assert_true(ts_body_store_reserve(&s, &a, s.table.count + 1, body + 1));
            ts_body_range range = (ts_body_range)(next_random(&seed) % 3);
            int32_t slot = ts_body_store_add(&s, body, range);
            assert_int_equal(ts_body_store_range_of(&s, slot), range);
            tag(&s, slot, body);
            bodies[live++] = body;
        } else if (r < 7) {
            int k = (int)(next_random(&seed) % (uint32_t)live);
            ts_body_store_remove(&s, s.table.slot_of_id[bodies[k]]);
            assert_int_equal(s.table.slot_of_id[bodies[k]], -1);
            bodies[k] = bodies[--live];
        } else {
            int k = (int)(next_random(&seed) % (uint32_t)live);
            ts_body_range range = (ts_body_range)(next_random(&seed) % 3);
            int32_t slot = ts_body_store_move(&s, s.table.slot_of_id[bodies[k]], range);
            assert_int_equal(s.table.slot_of_id[bodies[k]], slot);
            assert_int_equal(ts_body_store_range_of(&s, slot), range);
        }
        assert_true(ts_body_store_validate(&s));
        if (op % 100 == 0) {
            check_tags(&s);
        }
    }
    check_tags(&s);
    assert_int_equal(s.table.count, live);
    ts_body_store_destroy(&s, &a);
}

/* Awake bodies are the prefix [0, awake_end): a body moved to the awake range
 * lands there and one moved out leaves it. */
static void test_awake_range_is_a_prefix(void **state)
{
    (void)state;
    ts_allocator a = ts_default_allocator();
    ts_body_store s;
    ts_body_store_init(&s);
    for (int32_t b = 0; b < 6; ++b) {
        assert_true(ts_body_store_reserve(&s, &a, s.table.count + 1, b + 1));
        ts_body_store_add(&s, b, TS_RANGE_STATIC);
    }
    assert_int_equal(s.table.end[TS_RANGE_AWAKE], 0);
    int32_t slot = ts_body_store_move(&s, s.table.slot_of_id[4], TS_RANGE_AWAKE);
    assert_int_equal(slot, 0);
    assert_int_equal(s.table.end[TS_RANGE_AWAKE], 1);
    slot = ts_body_store_move(&s, s.table.slot_of_id[2], TS_RANGE_SLEEPING);
    assert_int_equal(slot, 1);
    assert_int_equal(s.table.end[TS_RANGE_SLEEPING], 2);
    slot = ts_body_store_move(&s, s.table.slot_of_id[2], TS_RANGE_AWAKE);
    assert_int_equal(slot, 1);
    assert_int_equal(s.table.end[TS_RANGE_AWAKE], 2);
    assert_int_equal(s.table.end[TS_RANGE_SLEEPING], 2);
    assert_true(ts_body_store_validate(&s));
    ts_body_store_destroy(&s, &a);
}

/* Adds a body with tagged columns to a random range. */
static void add_tagged(ts_body_store *s, const ts_allocator *a, int32_t body, ts_body_range range)
{
    assert_true(ts_body_store_reserve(s, a, s->table.count + 1, body + 1));
    tag(s, ts_body_store_add(s, body, range), body);
}

/* Two stores with the same maps, ranges and columns, element for element. */
static void assert_same_stores(const ts_body_store *x, const ts_body_store *y)
{
    assert_int_equal(x->table.count, y->table.count);
    for (int r = 0; r < TS_RANGE_COUNT; ++r) {
        assert_int_equal(x->table.end[r], y->table.end[r]);
    }
    assert_memory_equal(x->table.id_of_slot, y->table.id_of_slot, (size_t)x->table.count * sizeof(int32_t));
    assert_int_equal(x->table.id_capacity, y->table.id_capacity);
    assert_memory_equal(x->table.slot_of_id, y->table.slot_of_id, (size_t)x->table.id_capacity * sizeof(int32_t));
    for (int c = 0; c < TS_BODY_COLUMNS; ++c) {
        assert_memory_equal(x->columns[c], y->columns[c], (size_t)x->table.count * sizeof(float));
    }
}

/* A permutation of the awake range (ts_soa_permute_column, _ids: the step's
 * storage order, step/body_order.h) carries every column's value with its
 * body, keeps the maps inverse and the ranges as they were, and leaves the
 * sleeping and static slots alone. 200 awake bodies in a random order,
 * 30 sleeping, 20 static. */
static void test_permute_keeps_tags(void **state)
{
    (void)state;
    ts_allocator a = ts_default_allocator();
    ts_body_store s;
    ts_body_store_init(&s);
    for (int32_t b = 0; b < 250; ++b) {
        add_tagged(&s, &a, b, b < 200 ? TS_RANGE_AWAKE : b < 230 ? TS_RANGE_SLEEPING : TS_RANGE_STATIC);
    }
    int32_t n = s.table.end[TS_RANGE_AWAKE], order[200], before[250];
    uint32_t scratch[200];
    memcpy(before, s.table.id_of_slot, sizeof before);
    for (int32_t k = 0; k < n; ++k) {
        order[k] = k;
    }
    uint32_t seed = 7;
    for (int32_t k = n - 1; k > 0; --k) { /* Fisher-Yates */
        int32_t j = (int32_t)(next_random(&seed) % (uint32_t)(k + 1)), t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
    uint32_t revision = s.table.revision;
    for (int c = 0; c < TS_BODY_COLUMNS; ++c) {
        ts_soa_permute_column(&s.table, s.columns, c, order, n, scratch);
    }
    ts_soa_permute_ids(&s.table, order, n, (int32_t *)scratch);
    assert_true(s.table.revision != revision); /* the joints' kept layout is refilled */
    assert_int_equal(s.table.end[TS_RANGE_AWAKE], 200);
    assert_int_equal(s.table.end[TS_RANGE_SLEEPING], 230);
    for (int32_t k = 0; k < n; ++k) {
        assert_int_equal(s.table.id_of_slot[k], before[order[k]]);
    }
    assert_memory_equal(s.table.id_of_slot + n, before + n, (size_t)(250 - n) * sizeof(int32_t));
    check_tags(&s);
    assert_true(ts_body_store_validate(&s));
    ts_body_store_destroy(&s, &a);
}

/* A batch of removals (soa_removal.h) leaves the store exactly as the same
 * removals one by one: 40 batches of up to half the objects, from all three
 * ranges, the copies of each range run last move first (any order must do),
 * new objects added between batches. */
static void test_batch_removal_matches_one_by_one(void **state)
{
    (void)state;
    ts_allocator a = ts_default_allocator();
    ts_body_store one, batch;
    ts_body_store_init(&one);
    ts_body_store_init(&batch);
    ts_soa_removal removal = {0};
    int32_t live[600], doomed[600];
    int live_count = 0, next_body = 0;
    uint32_t seed = 7;
    for (int round = 0; round < 40; ++round) {
        while (live_count < 600) {
            ts_body_range range = (ts_body_range)(next_random(&seed) % 3);
            add_tagged(&one, &a, next_body, range);
            add_tagged(&batch, &a, next_body, range);
            live[live_count++] = next_body++;
        }
        assert_same_stores(&one, &batch);
        int doomed_count = (int)(next_random(&seed) % 300);
        for (int k = 0; k < doomed_count; ++k) {
            int j = (int)(next_random(&seed) % (uint32_t)live_count);
            doomed[k] = live[j];
            live[j] = live[--live_count];
        }
        for (int k = 0; k < doomed_count; ++k) {
            ts_body_store_remove(&one, one.table.slot_of_id[doomed[k]]);
        }
        assert_true(ts_soa_removal_reserve(&removal, &a, batch.table.capacity));
        for (int k = 0; k < doomed_count; ++k) {
            ts_soa_remove_deferred(&batch.table, &removal, batch.table.slot_of_id[doomed[k]]);
        }
        int ranges = ts_soa_removal_plan(&batch.table, &removal);
        assert_int_equal(ranges, TS_RANGE_COUNT);
        for (int r = 0; r < ranges; ++r) {
            for (int32_t m = ts_soa_removal_moves(&removal, r) - 1; m >= 0; --m) {
                ts_soa_removal_copy(&batch.table, batch.columns, &removal, r, m, m + 1);
            }
        }
        ts_soa_removal_clear(&removal);
        assert_true(ts_body_store_validate(&batch));
        assert_same_stores(&one, &batch);
        check_tags(&batch);
    }
    ts_soa_removal_destroy(&removal, &a);
    ts_body_store_destroy(&one, &a);
    ts_body_store_destroy(&batch, &a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_moves_keep_maps),
        cmocka_unit_test(test_awake_range_is_a_prefix),
        cmocka_unit_test(test_batch_removal_matches_one_by_one),
        cmocka_unit_test(test_permute_keeps_tags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

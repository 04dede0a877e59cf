/* The SoA body store: ranges stay ordered, the slot <-> body maps stay
 * inverse, and every column's value travels with its body through moves. */
#include "test_common.h"

#include "alloc.h"
#include "soa/body_store.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_moves_keep_maps),
        cmocka_unit_test(test_awake_range_is_a_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

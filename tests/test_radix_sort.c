/* The step's radix sorts (base/radix_sort.h) against qsort: keys of every
 * shape (all bytes varying, two small indices, all equal, repeats, 0 and 1
 * keys) come out in the same order as qsort's, and ts_sort_order is stable
 * (equal keys keep their input order, so sorting by a second key and then
 * by the first orders by both). Exact comparisons: sorting has no tolerance. */
#include "test_common.h"

#include "base/radix_sort.h"

#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 3000

static uint64_t seed = 0x9e3779b97f4a7c15u;

static uint64_t draw(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Kinds of keys: any 64 bits, a pair of indices below 5,000 (the pair
 * keys), few distinct values (repeats), one value only. */
static uint64_t make_key(int kind)
{
    switch (kind) {
    case 0:
        return draw();
    case 1:
        return (draw() % 5000u) << 32 | (draw() % 5000u);
    case 2:
        return draw() % 7u << 40;
    default:
        return 0x0123456789abcdefu;
    }
}

static void test_keys_match_qsort(void **state)
{
    (void)state;
    static uint64_t keys[MAX_KEYS], expected[MAX_KEYS], scratch[MAX_KEYS];
    const int32_t sizes[] = {0, 1, 2, 3, 17, 256, 257, 1000, MAX_KEYS};
    for (int kind = 0; kind < 4; ++kind) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
            int32_t n = sizes[s];
            for (int32_t k = 0; k < n; ++k) {
                keys[k] = expected[k] = make_key(kind);
            }
            qsort(expected, (size_t)n, sizeof expected[0], compare_u64);
            ts_sort_keys(keys, scratch, n);
            assert_memory_equal(keys, expected, (size_t)n * sizeof keys[0]);
        }
    }
}

/* Two keys per item, few distinct values each: ordering by the second key
 * and then by the first must give the order by (first, second), and items
 * equal in both must keep their input order. */
static void test_order_is_stable(void **state)
{
    (void)state;
    static uint64_t first[MAX_KEYS], second[MAX_KEYS], keys[MAX_KEYS];
    static int32_t order[MAX_KEYS], scratch[MAX_KEYS];
    for (int32_t n = 0; n <= MAX_KEYS; n = n * 3 + 1) {
        for (int32_t k = 0; k < n; ++k) {
            first[k] = draw() % 5u << 33;
            second[k] = draw() % 3u;
            order[k] = k;
        }
        memcpy(keys, second, (size_t)n * sizeof keys[0]);
        ts_sort_order(keys, order, scratch, n);
        memcpy(keys, first, (size_t)n * sizeof keys[0]);
        ts_sort_order(keys, order, scratch, n);
        for (int32_t k = 1; k < n; ++k) {
            int32_t a = order[k - 1], b = order[k];
            bool before = first[a] < first[b] || (first[a] == first[b] && second[a] < second[b]) ||
                          (first[a] == first[b] && second[a] == second[b] && a < b);
            assert_true(before);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_match_qsort),
        cmocka_unit_test(test_order_is_stable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

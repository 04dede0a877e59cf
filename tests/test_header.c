// SPDX-License-Identifier: MIT
/* What the public header promises by itself: the run-time version equals
 * the header's (a program compares ts_version() with TS_VERSION_STRING to
 * catch a shared library of another version, so the two must agree in the
 * library's own build), and the constants built with TS_LITERAL hold the
 * values their names say (the C form; examples/hello_cpp.cpp builds the
 * C++ form with -pedantic -Werror). Exact comparisons: these are constants. */
#include "test_common.h"

#include <stdio.h>
#include <string.h>

/* ts_version() is TS_VERSION_STRING, which spells the three numbers. */
static void test_version_string_matches_header(void **state)
{
    (void)state;
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", TS_VERSION_MAJOR, TS_VERSION_MINOR, TS_VERSION_PATCH);
    assert_string_equal(TS_VERSION_STRING, expected);
    assert_string_equal(ts_version(), TS_VERSION_STRING);
}

/* ts_version_number() is TS_VERSION_NUMBER = major * 10000 + minor * 100 + patch. */
static void test_version_number_matches_header(void **state)
{
    (void)state;
    assert_int_equal(TS_VERSION_NUMBER, TS_VERSION_MAJOR * 10000 + TS_VERSION_MINOR * 100 + TS_VERSION_PATCH);
    assert_int_equal(ts_version_number(), TS_VERSION_NUMBER);
}

/* The null ids are null and invalid; the identity rotation is (0, 0, 0, 1). */
static void test_literal_constants(void **state)
{
    (void)state;
    assert_true(ts_world_id_is_null(TS_NULL_WORLD_ID));
    assert_true(ts_body_id_is_null(TS_NULL_BODY_ID));
    assert_true(ts_shape_id_is_null(TS_NULL_SHAPE_ID));
    assert_true(ts_joint_id_is_null(TS_NULL_JOINT_ID));
    assert_false(ts_world_is_valid(TS_NULL_WORLD_ID));
    assert_false(ts_body_is_valid(TS_NULL_BODY_ID));
    assert_false(ts_shape_is_valid(TS_NULL_SHAPE_ID));
    assert_false(ts_joint_is_valid(TS_NULL_JOINT_ID));
    ts_quat q = TS_QUAT_IDENTITY;
    assert_true(q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && q.w == 1.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_string_matches_header),
        cmocka_unit_test(test_version_number_matches_header),
        cmocka_unit_test(test_literal_constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

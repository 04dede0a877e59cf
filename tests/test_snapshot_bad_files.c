/* Bad snapshot files are refused (issue 28): a saved small pile truncated
 * at every byte offset, with every single bit flipped, with a wrong magic,
 * an older and a newer format version, trailing bytes, an unknown section
 * and absurd counts (a count that would need terabytes): each is refused
 * with TS_ERROR_INVALID_DATA and a message that says why, makes no world
 * and allocates nothing huge. And the parser behind the checksum: every
 * bit of the body flipped with the checksum made right again (what a
 * crafted file could hold) is either refused so or loads into a world that
 * steps; the pile runs under the sanitizers' builds too.
 *
 * (The loop counts are printed: the done-when asks for them.) */
#include "test_common.h"

#include "snapshot_scenes.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#define HEADER 32

static uint8_t *pile_snapshot(size_t *size, int count)
{
    const scene_info *pile = scene_find("pile");
    scene_desc desc;
    scene_params p = pile->small;
    p.count = count;
    scene_describe(pile, &p, &desc);
    tessera_settings settings = {1, 4, 0.0f, 1, TS_SOLVER_SOFT_STEP};
    char error[256];
    ts_world_id world = tessera_create_world(&desc, &settings, error, sizeof error);
    ts_body_id bodies[64];
    assert_true(desc.body_count <= 64 && tessera_build_scene(world, &desc, bodies, error, sizeof error));
    for (int i = 0; i < 40; ++i) {
        assert_ok(ts_world_step(world, 1.0f / 60.0f));
    }
    uint8_t *data = snapshot_save(world, size);
    assert_non_null(data);
    assert_ok(ts_destroy_world(world));
    scene_desc_free(&desc);
    return data;
}

/* The checksum made right again after an edit of the body. */
static void reseal(uint8_t *data, size_t size)
{
    uint64_t checksum = XXH3_64bits(data + HEADER, size - HEADER);
    for (int k = 0; k < 8; ++k) {
        data[24 + k] = (uint8_t)(checksum >> (8 * k));
    }
    uint64_t payload = size - HEADER;
    for (int k = 0; k < 8; ++k) {
        data[16 + k] = (uint8_t)(payload >> (8 * k));
    }
}

/* Loads and expects TS_ERROR_INVALID_DATA, a message with `word` (NULL:
 * any), and no world. */
static void expect_refused(const uint8_t *data, size_t size, const char *word, const char *what)
{
    ts_world_id world = {9, 9};
    ts_result r = ts_world_load(data, size, NULL, &world);
    if (r != TS_ERROR_INVALID_DATA || !ts_world_id_is_null(world) ||
        (word != NULL && strstr(ts_last_error(), word) == NULL)) {
        fail_msg("%s: %s, \"%s\" (expected TS_ERROR_INVALID_DATA naming '%s')", what, ts_result_name(r),
                 ts_last_error(), word != NULL ? word : "");
    }
}

/* Every truncation: refused (the header's size, or the header itself). */
static void test_every_truncation(void **state)
{
    (void)state;
    size_t size = 0;
    uint8_t *data = pile_snapshot(&size, 24);
    for (size_t n = 0; n < size; ++n) {
        expect_refused(data, n, NULL, "a truncated snapshot");
    }
    print_message("truncations refused: %zu of a %zu-byte snapshot (24-body pile)\n", size, size);
    free(data);
}

/* Every single flipped bit: refused (checksum, magic, version or size). */
static void test_every_bit_flip(void **state)
{
    (void)state;
    size_t size = 0;
    uint8_t *data = pile_snapshot(&size, 24);
    long flips = 0;
    for (size_t i = 0; i < size; ++i) {
        for (int bit = 0; bit < 8; ++bit) {
            data[i] ^= (uint8_t)(1u << bit);
            expect_refused(data, size, NULL, "a flipped bit");
            data[i] ^= (uint8_t)(1u << bit);
            flips += 1;
        }
    }
    ts_world_id world;
    assert_ok(ts_world_load(data, size, NULL, &world)); /* and the unflipped one loads */
    assert_ok(ts_destroy_world(world));
    print_message("bit flips refused: %ld (every bit of %zu bytes)\n", flips, size);
    free(data);
}

/* Behind the checksum: each bit flipped and the file resealed, as a
 * crafted file could be. Either refused with a message, or a world that
 * steps (a flipped float of a velocity is a valid world). The ThreadSanitizer
 * job (TESSERA_TEST_MAX_STEPS) flips one bit in 13. */
static void test_resealed_bit_flips(void **state)
{
    (void)state;
    size_t size = 0;
    uint8_t *data = pile_snapshot(&size, 24);
    uint8_t *copy = malloc(size);
    int stride = getenv("TESSERA_TEST_MAX_STEPS") != NULL ? 13 : 1;
    long refused = 0, loaded = 0;
    for (size_t i = HEADER; i < size; ++i) {
        for (int bit = 0; bit < 8; bit += 1) {
            if ((long)((i * 8 + (size_t)bit) % (size_t)stride) != 0) {
                continue;
            }
            memcpy(copy, data, size);
            copy[i] ^= (uint8_t)(1u << bit);
            reseal(copy, size);
            ts_world_id world;
            ts_result r = ts_world_load(copy, size, NULL, &world);
            if (r == TS_OK) {
                loaded += 1;
                for (int s = 0; s < 3; ++s) {
                    ts_result stepped = ts_world_step(world, 1.0f / 60.0f);
                    assert_true(stepped == TS_OK || stepped == TS_ERROR_NOT_FINITE);
                }
                assert_ok(ts_destroy_world(world));
            } else {
                if (r != TS_ERROR_INVALID_DATA || strstr(ts_last_error(), "section") == NULL) {
                    fail_msg("byte %zu bit %d: %s \"%s\"", i, bit, ts_result_name(r), ts_last_error());
                }
                refused += 1;
            }
        }
    }
    print_message("resealed bit flips: %ld refused, %ld loaded and stepped\n", refused, loaded);
    free(copy);
    free(data);
}

/* The offset of a section's payload (after its tag and length), or 0. */
static size_t section_payload(const uint8_t *data, size_t size, const char tag[4])
{
    size_t at = HEADER;
    while (at + 12 <= size) {
        uint64_t length = 0;
        for (int k = 0; k < 8; ++k) {
            length |= (uint64_t)data[at + 4 + (size_t)k] << (8 * k);
        }
        if (memcmp(data + at, tag, 4) == 0) {
            return at + 12;
        }
        at += 12 + (size_t)length;
    }
    return 0;
}

/* A copy of data with bytes [at, at + cut) replaced by `with` (n bytes),
 * the section's length fixed and the file resealed. */
static uint8_t *splice(const uint8_t *data, size_t size, size_t section, size_t at, size_t cut, const uint8_t *with,
                       size_t n, size_t *out_size)
{
    *out_size = size - cut + n;
    uint8_t *out = malloc(*out_size);
    memcpy(out, data, at);
    memcpy(out + at, with, n);
    memcpy(out + at + n, data + at + cut, size - at - cut);
    uint64_t length = 0;
    for (int k = 0; k < 8; ++k) {
        length |= (uint64_t)out[section - 8 + (size_t)k] << (8 * k);
    }
    length = length - cut + n;
    for (int k = 0; k < 8; ++k) {
        out[section - 8 + (size_t)k] = (uint8_t)(length >> (8 * k));
    }
    reseal(out, *out_size);
    return out;
}

/* Magic, versions, trailing bytes, unknown and missing sections, absurd counts. */
static void test_crafted_files(void **state)
{
    (void)state;
    size_t size = 0;
    uint8_t *data = pile_snapshot(&size, 24);
    uint8_t *copy = malloc(size + 64);

    memcpy(copy, data, size);
    memcpy(copy, "GIF89a..", 8);
    expect_refused(copy, size, "snapshot mark", "wrong magic");

    memcpy(copy, data, size);
    copy[8] = 0; /* version 0: older */
    expect_refused(copy, size, "older", "an older format version");
    copy[8] = 77;
    expect_refused(copy, size, "newer", "a newer format version");

    memcpy(copy, data, size);
    copy[size] = 0;
    expect_refused(copy, size + 1, "trailing", "a trailing byte");

    /* an unknown section after the last one */
    memcpy(copy, data, size);
    memcpy(copy + size, "XTRA\0\0\0\0\0\0\0\0", 12);
    reseal(copy, size + 12);
    expect_refused(copy, size + 12, "unknown section 'XTRA'", "an unknown section");

    /* a section's tag renamed: unknown where BODY belongs */
    memcpy(copy, data, size);
    size_t body = section_payload(copy, size, "BODY");
    assert_true(body > 0);
    memcpy(copy + body - 12, "BODZ", 4);
    reseal(copy, size);
    expect_refused(copy, size, "unknown section 'BODZ'", "a renamed section");

    /* absurd counts: 2^40 bodies; 2^27 bodies (in range, but the bytes left
     * cannot hold them); the same for contacts and tree nodes */
    const uint8_t terabytes[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x20}; /* 2^40 */
    const uint8_t many[] = {0x80, 0x80, 0x80, 0x40};                   /* 2^27 */
    const char *sections[] = {"BODY", "SHAP", "JONT", "CNTC", "BPHS", "ISLD"};
    int crafted = 0;
    for (int k = 0; k < 6; ++k) {
        size_t at = section_payload(data, size, sections[k]);
        assert_true(at > 0);
        /* the first field of each is a varint count (BPHS: the node capacity) */
        size_t old = 1;
        while (data[at + old - 1] & 0x80) {
            ++old;
        }
        size_t n;
        uint8_t *bad = splice(data, size, at, at, old, terabytes, sizeof terabytes, &n);
        expect_refused(bad, n, "at most", sections[k]);
        free(bad);
        bad = splice(data, size, at, at, old, many, sizeof many, &n);
        expect_refused(bad, n, k == 5 ? "at most" : "bytes left", sections[k]); /* islands: at most one a body */
        free(bad);
        crafted += 2;
    }
    print_message("crafted files refused: %d absurd counts, magic, 2 versions, trailing, 2 sections\n", crafted);
    free(copy);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_every_bit_flip),
        cmocka_unit_test(test_resealed_bit_flips),
        cmocka_unit_test(test_crafted_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* libFuzzer target for ts_world_load (issue 28): the fuzzer's bytes are a
 * snapshot's body; the harness puts a valid header with the right size and
 * checksum in front of them, so that the parser behind the checksum is
 * what gets fuzzed (with a wrong checksum every input would stop at the
 * header). A world that loads (its custom constraints given a callback
 * that reads no context) is stepped three times and saved again.
 * Build: cmake -DTESSERA_FUZZ=ON with clang (tests/fuzz/CMakeLists.txt);
 * seeds: tests/fuzz/snapshot_corpus/ (made by snapshot_seeds.c); how to
 * run it: docs/snapshots.md. FUZZ_TRACE=1 prints the load's result and
 * each step's (to read an input: a step that holds a body says so). */
#include "tessera/tessera.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static const uint8_t magic[8] = {0x89, 'T', 'S', 'W', '\r', '\n', 0x1A, '\n'};

static void put64(uint8_t *p, uint64_t v)
{
    for (int k = 0; k < 8; ++k) {
        p[k] = (uint8_t)(v >> (8 * k));
    }
}

/* A custom constraint's callback for a loaded world: one row holding body
 * A's height, reading nothing but its input (a crafted context number must
 * reach no callback). */
static void hold_height(const ts_constraint_input *in, ts_constraint_row *rows, void *context)
{
    (void)context;
    rows[0].value = in->body_a.center.y;
    rows[0].linear_a = (ts_vec3){0.0f, 1.0f, 0.0f};
}

static bool resolve(ts_joint_id joint, void *user_data, void *saved_context, void *resolver_context,
                    ts_constraint_fn **evaluate, void **context)
{
    (void)joint, (void)user_data, (void)saved_context, (void)resolver_context;
    *evaluate = hold_height;
    *context = NULL;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *file = malloc(size + 32);
    if (file == NULL) {
        return 0;
    }
    memcpy(file, magic, 8);
    memset(file + 8, 0, 8);
    file[8] = TS_SNAPSHOT_FORMAT_VERSION;
    put64(file + 16, size);
    put64(file + 24, XXH3_64bits(data, size));
    memcpy(file + 32, data, size);
    ts_world_def def = ts_default_world_def();
    def.threads = 1;
    ts_world_id world;
    bool trace = getenv("FUZZ_TRACE") != NULL;
    ts_snapshot_load_options options = ts_default_snapshot_load_options();
    options.resolve_constraint = resolve;
    ts_result loaded = ts_world_load_with(file, size + 32, &def, &options, &world);
    if (trace) {
        fprintf(stderr, "load: %s %s\n", ts_result_name(loaded), loaded == TS_OK ? "" : ts_last_error());
    }
    if (loaded == TS_OK) {
        for (int i = 0; i < 3; ++i) {
            ts_result stepped = ts_world_step(world, 1.0f / 60.0f);
            if (trace) {
                fprintf(stderr, "step %d: %s %s\n", i, ts_result_name(stepped), stepped == TS_OK ? "" : ts_last_error());
            }
        }
        size_t bytes = 0;
        ts_world_save(world, NULL, 0, &bytes);
        ts_destroy_world(world);
    } else if (!ts_world_id_is_null(world)) {
        abort(); /* a failed load must make no world */
    }
    free(file);
    return 0;
}

#!/usr/bin/env bash
# Runs the whole test suite: the layer check of src/ (scripts/check_layers.sh),
# the default build's suite (made by scripts/setup.sh), the install-and-link
# test of scripts/test_consumer.sh, the API reference, the aarch64 hashes
# (scripts/check_arm.sh), the suite under ThreadSanitizer, a clang build whose
# wide kernels are SIMDe's portable C under ASan + UBSan (both paths stay
# bitwise equal and clean) with a bounded fuzz run, and the browser viewer.
#
# CI has two cores and a 15-minute budget. The stages that keep one core
# busy (the aarch64 check under qemu, the fuzz run) run beside the others
# (their output goes to $LOG_DIR and is printed if they fail), and each
# stage prints the seconds since the start. The viewer's test also runs
# beside, from the start of the install-and-link stage on.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
PORTABLE_DIR="${PORTABLE_DIR:-build-portable}"
LOG_DIR="${LOG_DIR:-$BUILD_DIR/test-logs}"
mkdir -p "$LOG_DIR"

stage() { echo "test: [$SECONDS s] $*"; }

# Background stages: started with `beside name command...`, waited for by
# `wait_beside`, which prints the log of each one that failed and fails.
beside_pids=()
beside_names=()
beside() {
    local name="$1"
    shift
    stage "$name (beside the next stages, log $LOG_DIR/$name.log)"
    "$@" >"$LOG_DIR/$name.log" 2>&1 &
    beside_pids+=($!)
    beside_names+=("$name")
}
wait_beside() {
    local failed=0 i
    for i in "${!beside_pids[@]}"; do
        if wait "${beside_pids[$i]}"; then
            stage "${beside_names[$i]} passed"
        else
            echo "test: ${beside_names[$i]} FAILED; its log:" >&2
            cat "$LOG_DIR/${beside_names[$i]}.log" >&2
            failed=1
        fi
    done
    beside_pids=()
    beside_names=()
    return "$failed"
}
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT

# The layers of src/ first (src/README.md): no include runs upward (~1 s).
stage "layers"
scripts/check_layers.sh

# The default build's suite includes mpi_sweep and mpi_split: tessera-sweep
# and tessera-split under `mpirun -np 2` (and 1, 3, 4 ranks), built when
# Open MPI is installed (scripts/setup.sh). Two tests at a time on CI's two
# cores: no test asserts on a clock.
stage "default build's suite"
ctest --test-dir "$BUILD_DIR" -j "$(nproc)" --output-on-failure

# The same bits on aarch64 (scripts/check_arm.sh): a cross build run under
# qemu-user against tests/expected_hashes.txt, and x86-64 snapshots resumed
# there (~3.5 min on 2 cores: the cross build ~2, the run ~1.5 on one core).
cmake --build "$BUILD_DIR" --target tessera-hashes >/dev/null
ARM_HOST_BUILT=1 beside arm scripts/check_arm.sh

# The browser viewer: its reader and the built page in headless Chromium
# (installs chromium and the npm packages on first use). It needs only the
# default build's bench, so it runs beside the stages that follow instead
# of alone at the end (34 s of CI's time there: npm, vite, then one
# Chromium page at a time).
beside viewer scripts/test_viewer.sh

# The library as a user gets it: installed into a temporary prefix, the
# examples built against it with find_package and pkg-config, static and
# shared, and run (scripts/test_consumer.sh). Then the API reference:
# Doxygen fails on any undocumented public name (docs/Doxyfile).
stage "install and link"
scripts/test_consumer.sh
stage "API reference"
cmake --build "$BUILD_DIR" --target docs

# ThreadSanitizer over the whole suite: clang with LLVM's OpenMP runtime,
# whose Archer tool tells TSan about OpenMP's barriers and locks (gcc's
# libgomp is not built for TSan and would report its own barriers). The
# task-callback tests run their pthread pools in the same build, so both ways
# of running a step's stages (src/base/parallel.c) are checked.
# TESSERA_TEST_MAX_STEPS shortens test_simd's 600-step runs: TSan runs ~10x
# slower, and the races it looks for show in the first steps as in the last;
# it also shortens the heaviest tests' loops (test_short_run, tests/test_common.h).
# doc_snippets only compiles the docs' code (the default build runs it).
# The sanitizer suites leave out the physics tests' 8-substep variants
# (`*_8`: the same code as their 4-substep runs, more steps of it; the
# default build runs them): 86 of the TSan suite's 323 test-seconds.
TSAN_DIR="${TSAN_DIR:-build-tsan-clang}"
# The sanitizer builds keep line tables only (-gline-tables-only instead of
# -g): their reports still name file and line, and the wide kernels compile
# in 60% of the time (xpbd_joint.c at width 16 under ASan: 11.6 -> 7.0 s).
SANITIZER_OPT_FLAGS="-O2 -gline-tables-only -DNDEBUG"
ARCHER="$(ls /usr/lib/llvm-*/lib/libarcher.so | sort -V | tail -n 1)"
# -DTESSERA_AVX512=OFF: width 16 runs here on AVX2 registers (the default
# build's tests run its AVX-512 build where the CPU has it), so both builds
# of width 16 are held to the other widths' bits. Widths 1 and 16 only
# (TESSERA_WIDTHS): races do not depend on the lane count, widths 4 and 8
# are held to width 1 by the default and portable builds, and leaving them
# out takes a third of this build's compile time; the tests' entries of
# widths 4 and 8 on several threads run at width 1 here (test_entry_width).
stage "ThreadSanitizer build"
cmake -S . -B "$TSAN_DIR" $(scripts/generator.sh "$TSAN_DIR") -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$SANITIZER_OPT_FLAGS" -DTESSERA_BUILD_BENCH=OFF -DTESSERA_AVX512=OFF \
    "-DTESSERA_WIDTHS=1;16" \
    "-DCMAKE_C_FLAGS=-fsanitize=thread -Wno-psabi" -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
    -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build "$TSAN_DIR" -j "$(nproc)" >/dev/null
stage "ThreadSanitizer suite"
OMP_TOOL_LIBRARIES="$ARCHER" TESSERA_TEST_MAX_STEPS=120 \
    TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1 ${TSAN_OPTIONS:-}" \
    ctest --test-dir "$TSAN_DIR" -LE slow -E '^(doc_snippets|.*_8)$' -j "$(nproc)" --output-on-failure

# The portable build and AddressSanitizer + UndefinedBehaviorSanitizer in
# one (issue 21; one build instead of two keeps CI near its budget): the
# wide kernels as SIMDe's portable C (-DTESSERA_SIMD=OFF), so their bits are
# held to the native widths' by the same tests, and the suite without the
# `slow` label in a clang build where any sanitizer report aborts
# (-fno-sanitize-recover=all), but test_threads (its worlds of every thread
# count take minutes here; ThreadSanitizer runs it) and doc_snippets; then the libFuzzer driver over the public
# API (tests/fuzz/fuzz_api.c, same build: the library carries the fuzzer's
# coverage counters) beside the suite (one core of the two for
# FUZZ_SECONDS: ~half its time added to CI's) over the seed corpus, into a scratch
# copy so the repo's corpus stays as committed. A crash input is written to
# $ASAN_DIR/fuzz-crashes/: add it to tests/fuzz/corpus/ with the fix.
ASAN_DIR="${ASAN_DIR:-$PORTABLE_DIR}"
FUZZ_SECONDS="${FUZZ_SECONDS:-120}"
stage "portable + ASan/UBSan build"
cmake -S . -B "$ASAN_DIR" $(scripts/generator.sh "$ASAN_DIR") -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$SANITIZER_OPT_FLAGS" -DTESSERA_BUILD_BENCH=OFF \
    -DTESSERA_SIMD=OFF \
    -DTESSERA_FUZZ=ON \
    "-DCMAKE_C_FLAGS=-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer -Wno-psabi" \
    -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined \
    -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined >/dev/null
# The fuzz driver first (the library and fuzz_api.c, ~70% of this build's
# compile time), so that the fuzz run starts beside the rest of the build
# (the tests' ~120 s of CPU) instead of after it: with the tests' short
# runs (test_short_run in tests/test_common.h) the suite alone would end
# well before the fuzz run's 120 s, and CI would wait on the fuzz run.
cmake --build "$ASAN_DIR" -j "$(nproc)" --target fuzz_api >/dev/null
rm -rf "$ASAN_DIR/fuzz-corpus" "$ASAN_DIR/fuzz-crashes"
mkdir -p "$ASAN_DIR/fuzz-corpus" "$ASAN_DIR/fuzz-crashes"
cp tests/fuzz/corpus/* "$ASAN_DIR/fuzz-corpus/"
beside fuzz "$ASAN_DIR/tests/fuzz/fuzz_api" "$ASAN_DIR/fuzz-corpus" tests/fuzz/corpus -max_total_time="$FUZZ_SECONDS" \
    -max_len=4096 -timeout=30 -rss_limit_mb=2048 -artifact_prefix="$ASAN_DIR/fuzz-crashes/" -print_final_stats=1
stage "portable + ASan/UBSan build of the tests"
cmake --build "$ASAN_DIR" -j "$(nproc)" >/dev/null
stage "portable + ASan/UBSan suite"
ASAN_OPTIONS="detect_leaks=1 abort_on_error=1 ${ASAN_OPTIONS:-}" UBSAN_OPTIONS="print_stacktrace=1" \
    LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp ${LSAN_OPTIONS:-}" \
    TESSERA_TEST_MAX_STEPS=120 ctest --test-dir "$ASAN_DIR" -LE slow -E '^(test_threads|doc_snippets|.*_8)$' -j "$(nproc)" --output-on-failure
wait_beside
# what the fuzz run covered (libFuzzer's final stats)
grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$LOG_DIR/fuzz.log" | sed 's/^/fuzz: /' || true
stage "all passed"

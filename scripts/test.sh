#!/usr/bin/env bash
# Runs the whole test suite: the default build (made by scripts/setup.sh) and
# a second build whose wide kernels are SIMDe's portable C
# (-DTESSERA_SIMD=OFF), so that both paths stay bitwise equal and green;
# then the threaded test under ThreadSanitizer.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
PORTABLE_DIR="${PORTABLE_DIR:-build-portable}"

ctest --test-dir "$BUILD_DIR" --output-on-failure

cmake -S . -B "$PORTABLE_DIR" -DCMAKE_BUILD_TYPE=Release -DTESSERA_SIMD=OFF -DTESSERA_BUILD_BENCH=OFF >/dev/null
cmake --build "$PORTABLE_DIR" -j "$(nproc)" >/dev/null
ctest --test-dir "$PORTABLE_DIR" --output-on-failure

# ThreadSanitizer over the threaded test (tests/test_threads.c). gcc's
# libgomp is not built for TSan (it would report its own barriers), so this
# build has OpenMP off and its helpers are the test's pthreads behind the task
# callbacks: the same stages and the same claiming code (src/solver/parallel.c).
TSAN_DIR="${TSAN_DIR:-build-tsan}"
cmake -S . -B "$TSAN_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_OPENMP=OFF -DTESSERA_BUILD_BENCH=OFF \
    -DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
    -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build "$TSAN_DIR" -j "$(nproc)" --target test_threads >/dev/null
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" ctest --test-dir "$TSAN_DIR" -R '^test_threads$' --output-on-failure

#!/usr/bin/env bash
# Runs the whole test suite: the default build (made by scripts/setup.sh) and
# a second build whose wide kernels are SIMDe's portable C
# (-DTESSERA_SIMD=OFF), so that both paths stay bitwise equal and green;
# then the suite again under ThreadSanitizer.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
PORTABLE_DIR="${PORTABLE_DIR:-build-portable}"

ctest --test-dir "$BUILD_DIR" --output-on-failure

cmake -S . -B "$PORTABLE_DIR" -DCMAKE_BUILD_TYPE=Release -DTESSERA_SIMD=OFF -DTESSERA_BUILD_BENCH=OFF >/dev/null
cmake --build "$PORTABLE_DIR" -j "$(nproc)" >/dev/null
ctest --test-dir "$PORTABLE_DIR" --output-on-failure

# ThreadSanitizer over the whole suite: clang with LLVM's OpenMP runtime,
# whose Archer tool tells TSan about OpenMP's barriers and locks (gcc's
# libgomp is not built for TSan and would report its own barriers). The
# task-callback tests run their pthread pools in the same build, so both ways
# of running a step's stages (src/solver/parallel.c) are checked.
# TESSERA_TEST_MAX_STEPS shortens test_simd's 600-step runs: TSan runs ~10x
# slower, and the races it looks for show in the first steps as in the last.
TSAN_DIR="${TSAN_DIR:-build-tsan-clang}"
ARCHER="$(ls /usr/lib/llvm-*/lib/libarcher.so | sort -V | tail -n 1)"
cmake -S . -B "$TSAN_DIR" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_BUILD_BENCH=OFF \
    "-DCMAKE_C_FLAGS=-fsanitize=thread -Wno-psabi" -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
    -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build "$TSAN_DIR" -j "$(nproc)" >/dev/null
OMP_TOOL_LIBRARIES="$ARCHER" TESSERA_TEST_MAX_STEPS=120 \
    TSAN_OPTIONS="halt_on_error=1 ignore_noninstrumented_modules=1 ${TSAN_OPTIONS:-}" \
    ctest --test-dir "$TSAN_DIR" -j "$(nproc)" --output-on-failure

# The browser viewer: its reader and the built page in headless Chromium
# (installs chromium and the npm packages on first use).
scripts/test_viewer.sh

#!/usr/bin/env bash
# Runs the whole test suite: the default build (made by scripts/setup.sh) and
# a second build whose wide kernels are SIMDe's portable C
# (-DTESSERA_SIMD=OFF), so that both paths stay bitwise equal and green.
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
PORTABLE_DIR="${PORTABLE_DIR:-build-portable}"

ctest --test-dir "$BUILD_DIR" --output-on-failure

cmake -S . -B "$PORTABLE_DIR" -DCMAKE_BUILD_TYPE=Release -DTESSERA_SIMD=OFF -DTESSERA_BUILD_BENCH=OFF >/dev/null
cmake --build "$PORTABLE_DIR" -j "$(nproc)" >/dev/null
ctest --test-dir "$PORTABLE_DIR" --output-on-failure

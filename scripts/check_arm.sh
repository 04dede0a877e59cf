#!/usr/bin/env bash
# The same bits on ARM (issue 28): cross-builds tessera-hashes for aarch64
# (cmake/aarch64-linux-gnu.cmake: Debian's gcc-aarch64-linux-gnu, the wide
# kernels on NEON through SIMDe) and runs it under qemu-user. Every bench
# scene's small variant, both solvers, widths 1/4/8/16 and 1 and 2 threads
# must end with the state hashes of tests/expected_hashes.txt (made on
# x86-64 by `build/bench/tessera-hashes > tests/expected_hashes.txt`), and
# the snapshots the x86-64 build saves halfway must resume on aarch64 to the
# same hashes. The x86-64 build checks the same file first (every width and
# thread count).
#
# Cost on CI's 2 cores: the cross build of all widths ~230 s of CPU, the
# run under qemu ~80 s. So aarch64 builds and runs a subset by default:
# widths 1 and 4 (4 is NEON's own width; 8 and 16 are SIMDe's pairs and
# quads of it; TESSERA_WIDTHS builds only these) on one thread;
# ARM_WIDTHS=1,4,8,16 ARM_THREADS=1,2 runs the whole matrix (~4x the run
# time).
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
ARM_DIR="${ARM_DIR:-build-arm}"
SNAP_DIR="$ARM_DIR/snapshots"
ARM_WIDTHS="${ARM_WIDTHS:-1,4}"
ARM_THREADS="${ARM_THREADS:-1}"

# ARM_HOST_BUILT=1 (scripts/test.sh, which runs this beside other stages that
# use $BUILD_DIR): the x86-64 tessera-hashes is already built; do not start a
# second build in that directory.
[[ "${ARM_HOST_BUILT:-0}" == 1 ]] || cmake --build "$BUILD_DIR" --target tessera-hashes >/dev/null
mkdir -p "$SNAP_DIR"
"$BUILD_DIR/bench/tessera-hashes" --expect tests/expected_hashes.txt --save-dir "$SNAP_DIR" >/dev/null

cmake -S . -B "$ARM_DIR" $(scripts/generator.sh "$ARM_DIR") -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release \
    -DTESSERA_BUILD_TESTS=OFF -DTESSERA_MPI=OFF "-DTESSERA_WIDTHS=${ARM_WIDTHS//,/;}" >/dev/null
cmake --build "$ARM_DIR" -j "$(nproc)" --target tessera-hashes >/dev/null
[[ "$(aarch64-linux-gnu-readelf -h "$ARM_DIR/bench/tessera-hashes")" == *AArch64* ]] || { echo "check_arm: not an aarch64 binary"; exit 1; }
qemu-aarch64 -L /usr/aarch64-linux-gnu "$ARM_DIR/bench/tessera-hashes" \
    --expect tests/expected_hashes.txt --resume-dir "$SNAP_DIR" --widths "$ARM_WIDTHS" --threads "$ARM_THREADS" >/dev/null
echo "check_arm: aarch64 (widths $ARM_WIDTHS, threads $ARM_THREADS): hashes equal x86-64's (tests/expected_hashes.txt), x86-64 snapshots resume exactly"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Uses tessera as an outside project would: installs the already built
# library (BUILD_DIR, default build/) into a temporary prefix, then builds
# examples/ against that prefix and runs every program, four ways:
#   find_package(tessera), tessera::tessera static and shared (TESSERA_USE_SHARED)
#   pkg-config, shared (-ltessera) and static (the archive plus --static's Libs.private)
# It also checks the installed shared library: its SONAME, and that it
# exports exactly the functions the public headers declare (nothing internal).
# Called by scripts/test.sh; takes a few seconds.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT="$PWD"
BUILD_DIR="${BUILD_DIR:-build}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tessera-consumer.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"
CC="${CC:-cc}"
CXX="${CXX:-c++}"
WARN=(-Wall -Wextra -pedantic -Werror)

fail() {
    echo "test_consumer: FAIL: $*" >&2
    exit 1
}

run_examples() { # dir label
    for program in hello_world backend_loop solver_only hello_cpp; do
        "$1/$program" >"$WORK/out.txt" || { cat "$WORK/out.txt"; fail "$2: $program exited with $?"; }
    done
    echo "test_consumer: $2: hello_world, backend_loop, solver_only, hello_cpp built and ran"
}

# ---- install ----
cmake --install "$BUILD_DIR" --prefix "$PREFIX" >/dev/null
LIBDIR="$(dirname "$(find "$PREFIX" -name libtessera.a | head -n 1)")"
[[ -f "$PREFIX/include/tessera/tessera.h" ]] || fail "no include/tessera/tessera.h in the prefix"
[[ -f "$LIBDIR/cmake/tessera/tesseraConfig.cmake" ]] || fail "no tesseraConfig.cmake"
[[ -f "$LIBDIR/cmake/tessera/tesseraConfigVersion.cmake" ]] || fail "no tesseraConfigVersion.cmake"
[[ -f "$LIBDIR/pkgconfig/tessera.pc" ]] || fail "no tessera.pc"

# ---- the shared library: SONAME and exported symbols ----
SHARED="$(readlink -f "$LIBDIR/libtessera.so")"
soname="$(readelf -d "$SHARED" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
[[ -n "$soname" && -e "$LIBDIR/$soname" ]] || fail "libtessera.so has no SONAME, or no file of that name ($soname)"
# Declared: every TS_API function of the installed headers.
sed -n 's/^TS_API [^(]*[ *]\(ts_[a-z0-9_]*\)(.*/\1/p' "$PREFIX"/include/tessera/*.h | sort -u >"$WORK/declared.txt"
nm -D --defined-only "$SHARED" | awk '{print $3}' | sort -u >"$WORK/exported.txt"
if ! diff -u "$WORK/declared.txt" "$WORK/exported.txt" >"$WORK/symbols.diff"; then
    cat "$WORK/symbols.diff" >&2
    fail "the shared library's exports differ from the header's TS_API functions (- declared only, + exported only)"
fi
echo "test_consumer: $soname exports the $(wc -l <"$WORK/declared.txt") TS_API functions and nothing else"

# ---- find_package(tessera), static and shared ----
for kind in static shared; do
    use_shared=OFF
    [[ $kind == shared ]] && use_shared=ON
    cmake -S examples -B "$WORK/cmake-$kind" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release \
        -DTESSERA_USE_SHARED=$use_shared >"$WORK/configure.log" || { cat "$WORK/configure.log"; fail "configure ($kind)"; }
    cmake --build "$WORK/cmake-$kind" -j "$(nproc)" >"$WORK/build.log" || { cat "$WORK/build.log"; fail "build ($kind)"; }
    linked=no
    # ldd's output read whole first: `ldd | grep -q` under pipefail fails
    # when grep stops reading early and ldd dies of SIGPIPE (seen in CI).
    [[ "$(ldd "$WORK/cmake-$kind/hello_world")" == *libtessera.so* ]] && linked=yes
    [[ $kind == shared && $linked == no ]] && fail "find_package shared: hello_world does not load libtessera.so"
    [[ $kind == static && $linked == yes ]] && fail "find_package static: hello_world loads libtessera.so"
    run_examples "$WORK/cmake-$kind" "find_package, $kind"
done

# ---- pkg-config, shared and static ----
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
[[ "$(pkg-config --modversion tessera)" == "$(sed -n 's/^#define TS_VERSION_STRING "\(.*\)"/\1/p' include/tessera/tessera.h)" ]] ||
    fail "pkg-config --modversion tessera disagrees with TS_VERSION_STRING"
read -r -a cflags <<<"$(pkg-config --cflags tessera)"
read -r -a libs <<<"$(pkg-config --libs tessera)"
# A static link names the archive (-l:libtessera.a, GNU ld) in place of -ltessera.
read -r -a static_libs <<<"$(pkg-config --static --libs tessera | sed 's/-ltessera\b/-l:libtessera.a/')"
for kind in shared static; do
    out="$WORK/pc-$kind"
    mkdir -p "$out"
    if [[ $kind == shared ]]; then
        link=("${libs[@]}" "-Wl,-rpath,$LIBDIR")
    else
        link=("${static_libs[@]}")
    fi
    "$CC" -std=c11 "${WARN[@]}" "${cflags[@]}" examples/hello_world.c -o "$out/hello_world" "${link[@]}"
    "$CC" -std=c11 "${WARN[@]}" "${cflags[@]}" examples/backend_loop.c -o "$out/backend_loop" "${link[@]}"
    "$CC" -std=c11 "${WARN[@]}" "${cflags[@]}" examples/solver_only.c -o "$out/solver_only" "${link[@]}" -lm
    "$CXX" -std=c++17 "${WARN[@]}" "${cflags[@]}" examples/hello_cpp.cpp -o "$out/hello_cpp" "${link[@]}"
    if [[ $kind == static && "$(ldd "$out/hello_world")" == *libtessera.so* ]]; then
        fail "pkg-config static: hello_world loads libtessera.so"
    fi
    run_examples "$out" "pkg-config, $kind"
done
cd "$ROOT"
echo "test_consumer: passed"

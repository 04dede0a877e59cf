#!/usr/bin/env bash
# Installs what tessera needs from Debian's packages (only what is missing),
# then configures and builds it in ./build (Release). Safe to run again.
#
#   scripts/setup.sh            install if needed, configure, build
#   scripts/setup.sh --viewer   also the browser viewer (viewer/): Debian's
#                               chromium (for its test) and Node.js if missing,
#                               npm ci from the lockfile, vite build
#   scripts/setup.sh --viewer-only   the viewer's part alone
#   BUILD_DIR=out scripts/setup.sh
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"

viewer=false
library=true
for arg in "$@"; do
    case "$arg" in
    --viewer) viewer=true ;;
    --viewer-only) viewer=true library=false ;;
    *)
        echo "setup: unknown option $arg (known: --viewer, --viewer-only)" >&2
        exit 2
        ;;
    esac
done

# Debian packages: compiler and build tools, SIMDe, cglm, cmocka, xxHash (the
# snapshot checksum, header only); matplotlib
# for the benchmark charts; Bullet 3 for tessera-bench --compare bullet.
# OpenMP (libgomp) comes with gcc; clang and LLVM's OpenMP runtime (with its
# Archer tool) build the ThreadSanitizer job of scripts/test.sh; doxygen
# builds the API reference (cmake --build build --target docs), which
# scripts/test.sh checks for warnings. Open MPI builds tessera-sweep and
# tessera-split (mpi/, docs/distributed.md). The aarch64 cross compiler and
# qemu-user run the ARM determinism check (scripts/check_arm.sh). Ninja
# builds new build directories (~15% faster than make on 2 cores).
packages=()
if $library; then
    packages+=(build-essential cmake ninja-build pkg-config libsimde-dev libcglm-dev libcmocka-dev libxxhash-dev python3-matplotlib
               libbullet-dev clang libomp-dev doxygen openmpi-bin libopenmpi-dev gcc-aarch64-linux-gnu
               libc6-dev-arm64-cross qemu-user)
fi
# The viewer: Chromium for its browser test (never a browser of npm's), and
# Node.js with npm where the machine has none (the viewer's build needs 20.19+).
if $viewer; then
    packages+=(chromium)
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        packages+=(nodejs npm)
    fi
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    if [[ $(id -u) -eq 0 ]]; then
        apt_get=(apt-get)
    elif command -v sudo >/dev/null 2>&1; then
        apt_get=(sudo apt-get)
    else
        echo "setup: these Debian packages are missing: ${missing[*]}" >&2
        echo "setup: run as root (or install sudo), or install them yourself:" >&2
        echo "  apt-get install ${missing[*]}" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${apt_get[@]}" update -qq
    "${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}"
else
    echo "setup: every package is installed"
fi

if $library; then
    cmake -S . -B "$BUILD_DIR" $(scripts/generator.sh "$BUILD_DIR") -DCMAKE_BUILD_TYPE=Release
    cmake --build "$BUILD_DIR" -j "$(nproc)"
    echo "setup: built in $BUILD_DIR (bench: $BUILD_DIR/bench/tessera-bench)"
fi

if $viewer; then
    if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
        echo "setup: the viewer's build (vite 7) needs Node.js 20.19 or newer; this is $(node --version)" >&2
        exit 1
    fi
    # npm ci only when node_modules is missing or older than the lockfile.
    if [[ ! -f viewer/node_modules/.package-lock.json || viewer/package-lock.json -nt viewer/node_modules/.package-lock.json ]]; then
        (cd viewer && npm ci --no-audit --no-fund)
    fi
    (cd viewer && npm run --silent build)
    echo "setup: viewer built: viewer/dist/index.html"
fi

#!/usr/bin/env bash
# The viewer's tests (viewer/test): its reader on hand-written recordings,
# and the built page in Debian's headless Chromium driven by playwright-core,
# on recordings tessera-bench makes. Installs and builds what they need first
# (scripts/setup.sh --viewer-only: chromium, npm ci, vite build; --viewer
# when the library is not built yet).
#
#   scripts/test_viewer.sh                 run them
#   scripts/test_viewer.sh --screenshots   also copy the README's screenshots
#                                          (large_pyramid.png, pile.png) to docs/img
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"

screenshots=""
if [[ "${1:-}" == "--screenshots" ]]; then
    screenshots="$PWD/docs/img"
    mkdir -p "$screenshots"
fi

# The library's part only when the bench that makes the recordings is missing.
setup=--viewer-only
[[ -x "$BUILD_DIR/bench/tessera-bench" ]] || setup=--viewer
log="$(mktemp)"
if ! scripts/setup.sh "$setup" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    exit 1
fi
rm -f "$log"

cd viewer
TESSERA_BENCH="../$BUILD_DIR/bench/tessera-bench" CHROMIUM=/usr/bin/chromium \
    TESSERA_VIEWER_SCREENSHOTS="$screenshots" npm test

#!/bin/sh
# CI check of bench/plot.py: draws the charts of the fixture
# (bench/fixtures/sample.jsonl) into DIR and checks that each chart exists and
# starts with the PNG signature.
#
#   sh bench/check_plots.sh [DIR]
#
# Needs a python3 with matplotlib (Debian: python3-matplotlib). Without one it
# exits 77 (ctest: skipped), except under CI=true, where it fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${TMPDIR:-/tmp}/tessera-plots.$$}

python=""
for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import matplotlib" 2>/dev/null; then
        python=$candidate
        break
    fi
done
if [ -z "$python" ]; then
    echo "check_plots: no python3 with matplotlib here (Debian: apt-get install python3-matplotlib)"
    [ "${CI:-}" = "true" ] && exit 1
    exit 77
fi

rm -rf "$out" && mkdir -p "$out" || exit 1
"$python" "$here/plot.py" "$here/fixtures/sample.jsonl" -o "$out" 2>&1 || exit 1

passed=0
failed=0
for chart in ms_per_step thread_scaling width_scaling stages; do
    file="$out/$chart.png"
    signature=$(od -An -tx1 -N8 "$file" 2>/dev/null | tr -d ' \n')
    if [ "$signature" = "89504e470d0a1a0a" ]; then
        passed=$((passed + 1))
    else
        echo "check_plots: $file is missing or not a PNG (starts with '$signature')"
        failed=$((failed + 1))
    fi
done
echo "check_plots: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

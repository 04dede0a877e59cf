#!/bin/sh
# Check of tessera-bench --compare bullet.
#
#   sh bench/check_compare.sh PATH/TO/tessera-bench ON|OFF
#
# ON (the Bullet peer was built): --compare bullet on a small free_fall runs
# both engines and prints a ratio. Either way, a copy of tessera-bench alone
# in a directory without the peer must say clearly that Bullet is missing and
# exit with status 3.
set -u
bench=$1
peer_built=$2
failed=0

if [ "$peer_built" = "ON" ]; then
    output=$("$bench" --compare bullet --scene free_fall --small --steps 3 2>&1)
    status=$?
    if [ $status -ne 0 ] || ! printf '%s\n' "$output" | grep -q "tessera vs Bullet" ||
        ! printf '%s\n' "$output" | grep -Eq "^free_fall .*[0-9]x "; then
        echo "check_compare: --compare bullet failed (status $status):"
        printf '%s\n' "$output"
        failed=1
    fi
fi

alone=${TMPDIR:-/tmp}/tessera-bench-alone.$$
mkdir -p "$alone" && cp "$bench" "$alone/tessera-bench"
output=$("$alone/tessera-bench" --compare bullet --scene free_fall --small --steps 3 2>&1)
status=$?
rm -rf "$alone"
if [ $status -ne 3 ] || ! printf '%s\n' "$output" | grep -q "Bullet is missing"; then
    echo "check_compare: without the peer, expected status 3 and 'Bullet is missing', got status $status:"
    printf '%s\n' "$output"
    failed=1
fi

[ $failed -eq 0 ] && echo "check_compare: passed" || echo "check_compare: failed"
exit $failed

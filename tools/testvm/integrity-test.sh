#!/usr/bin/env bash
# Data integrity through the real wire: tools/integrity/sroce_integrity,
# server on sroce (VM B), client on stock rxe (VM A).  Every byte of
# SEND/SEND_IMM, WRITE/WRITE_IMM, READ and the ATOMIC results is checked.
#   tools/testvm/integrity-test.sh [normal|debug] [responder]
# Prints "integrity: P passed, F failed" (sub-tests of both sides).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
flavour=${1:-debug}
resp=${2:-sroce}
out=$top/build/integrity-$flavour-$resp
rm -rf "$out"
mkdir -p "$out"
"$top/tools/deps.sh" libibverbs-dev build-essential
make -s -C "$top/tools/integrity" >&2 || { echo "integrity: 0 passed, 1 failed"; exit 1; }
echo "$resp" >"$out/responder"
rc=0
"$here/run-pair.sh" -A "$here/integrity-guest.sh" -B "$here/integrity-guest.sh" -o "$out" \
	-k "$flavour" -s -t 900 -f "$top/tools/integrity/sroce_integrity" -f "$out/responder" || rc=1
pass=$(cat "$out/a.log" "$out/b.log" | grep -a '^INTEGRITY ' | grep -av RESULT | grep -ac ' PASS' || true)
fail=$(cat "$out/a.log" "$out/b.log" | grep -a '^INTEGRITY ' | grep -ac ' FAIL' || true)
grep -a '^INTEGRITY .*FAIL' "$out/a.log" "$out/b.log" >&2 || true
[ $rc -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
[ "$pass" -gt 0 ] || fail=$((fail + 1))
echo "integrity: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

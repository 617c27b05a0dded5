#!/usr/bin/env bash
# Error paths through the real wire: tools/integrity/sroce_integrity -m MODE
# (rnr, bad_rkey, oob_write, oob_read, destroy_qp), server on sroce (VM B),
# client on stock rxe (VM A); VM B checks sroce's counters around each
# scenario, then deletes the device with a client connected and unloads
# sroce (tools/testvm/errors-guest.sh).
#   tools/testvm/errors-test.sh [normal|debug]
# Prints "errors: P passed, F failed" (the tool's INTEGRITY lines of both
# sides plus the guest checks); exit 0 only if all passed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
flavour=${1:-debug}
out=$top/build/errors-$flavour
rm -rf "$out"
mkdir -p "$out"
"$top/tools/deps.sh" libibverbs-dev build-essential
make -s -C "$top/tools/integrity" >&2 || { echo "errors: 0 passed, 1 failed"; exit 1; }
rc=0
"$here/run-pair.sh" -A "$here/errors-guest.sh" -B "$here/errors-guest.sh" -o "$out" \
	-k "$flavour" -s -t 900 -f "$top/tools/integrity/sroce_integrity" || rc=1
logs=("$out/a.log" "$out/b.log")
pass=$(cat "${logs[@]}" | grep -a '^INTEGRITY ' | grep -av RESULT | grep -ac ' PASS' || true)
fail=$(cat "${logs[@]}" | grep -a '^INTEGRITY ' | grep -ac ' FAIL' || true)
okc=$(cat "${logs[@]}" | grep -ac '^errors-test: ok: ' || true)
badc=$(cat "${logs[@]}" | grep -ac '^errors-test: FAIL: ' || true)
grep -a '^INTEGRITY .*FAIL\|^errors-test: FAIL: ' "${logs[@]}" >&2 || true
pass=$((pass + okc))
fail=$((fail + badc))
[ $rc -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
[ "$okc" -gt 0 ] || fail=$((fail + 1))
echo "errors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

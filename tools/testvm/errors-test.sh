#!/usr/bin/env bash
# Error paths through the real wire: tools/integrity/sroce_integrity -m MODE
# (rnr, bad_rkey, oob_write, oob_read, destroy_qp, misaligned_atomic,
# malformed), server on sroce (VM B),
# client on stock rxe (VM A); VM B checks sroce's counters around each
# scenario, then deletes the device with a client connected and unloads
# sroce (tools/testvm/errors-guest.sh).
#   tools/testvm/errors-test.sh [normal|debug]
# Prints "errors: P passed, F failed" (the tool's INTEGRITY lines of both
# sides plus the guest checks); exit 0 only if all passed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
pair_setup errors "${1:-debug}"
"$top/tools/deps.sh" libibverbs-dev build-essential
make -s -C "$top/tools/integrity" >&2 || { echo "errors: 0 passed, 1 failed"; exit 1; }
rc=0
"$here/run-pair.sh" -A "$here/errors-guest.sh" -B "$here/errors-guest.sh" -o "$out" \
	-k "$flavour" -s -t 900 -f "$top/tools/integrity/sroce_integrity" || rc=1
logs=("$out/a.log" "$out/b.log")
grep -a '^INTEGRITY .*FAIL\|^errors-test: FAIL: ' "${logs[@]}" >&2 || true
okc=$(pair_grep_count '^errors-test: ok: ' "${logs[@]}")
pass=$(($(pair_grep_count '^INTEGRITY [^R].* PASS' "${logs[@]}") + okc))
fail=$(($(pair_grep_count '^INTEGRITY .* FAIL|^errors-test: FAIL: ' "${logs[@]}")))
[ "$okc" -gt 0 ] || fail=$((fail + 1))	# the guest checks must have run
pair_verdict errors $rc "$pass" "$fail"

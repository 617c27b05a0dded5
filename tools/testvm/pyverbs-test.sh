#!/usr/bin/env bash
# Debian's pyverbs, unchanged, on sroce: tools/pyverbs/sroce_pyverbs.py in
# VMs whose initramfs carries Python 3 and python3-pyverbs, one boot for
# all rounds.
#   tools/testvm/pyverbs-test.sh [normal|debug] [ROUNDS]
# ROUNDS: comma-separated CLIENT-SERVER pairings of rxe and sroce (default
# rxe-sroce,sroce-sroce,sroce-rxe): the client (the requester) runs in VM
# A, the server, which makes the checks, in VM B.  So rxe-sroce checks
# sroce as the responder, sroce-rxe sroce as the requester against stock
# rxe, sroce-sroce both.  A round passes when its server printed
# "PYVERBS RESULT PASS".  Prints "pyverbs: P passed, F failed" (the
# servers' PYVERBS checks, all rounds).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
flav=${1:-debug}
rounds=${2:-rxe-sroce,sroce-sroce,sroce-rxe}
pair_setup pyverbs "$flav"
: >"$out/pyverbs-rounds"
n=0
for r in ${rounds//,/ }; do
	case $r in
	rxe-rxe | rxe-sroce | sroce-rxe | sroce-sroce) echo "$r" >>"$out/pyverbs-rounds" ;;
	*) echo "pyverbs-test: unknown round '$r'" >&2; exit 2 ;;
	esac
	n=$((n + 1))
done
rc=0
"$here/run-pair.sh" -A "$here/pyverbs-guest.sh" -B "$here/pyverbs-guest.sh" -o "$out" \
	-k "$flavour" -a sroce -b sroce -t $((300 + 420 * n)) -i pyverbs \
	-f "$top/tools/pyverbs/sroce_pyverbs.py" -f "$out/pyverbs-rounds" || rc=1
grep -a '^PYVERBS .*FAIL' "$out/a.log" "$out/b.log" >&2 || true
fail=$(pair_grep_count '^PYVERBS [a-z_]+ FAIL' "$out/b.log")
results=$(pair_grep_count '^PYVERBS RESULT PASS' "$out/b.log")
# A round whose server never reported counts as a failure of its own.
[ "$results" -eq "$n" ] || [ "$fail" -gt 0 ] || fail=$((n - results))
pair_verdict pyverbs $rc "$(pair_grep_count '^PYVERBS [a-z_]+ PASS' "$out/b.log")" "$fail"

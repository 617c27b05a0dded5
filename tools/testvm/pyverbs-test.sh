#!/usr/bin/env bash
# Debian's pyverbs, unchanged, on sroce: tools/pyverbs/sroce_pyverbs.py in
# VMs whose initramfs carries Python 3 and python3-pyverbs, one boot for
# all rounds.
#   tools/testvm/pyverbs-test.sh [normal|debug] [ROUNDS]
# ROUNDS: comma-separated CLIENT-SERVER pairings of rxe and sroce (default
# rxe-sroce,sroce-sroce,sroce-rxe): the client (the requester) runs in VM
# A, the server, which makes the checks, in VM B.  So rxe-sroce checks
# sroce as the responder, sroce-rxe sroce as the requester against stock
# rxe, sroce-sroce both.  The servers' checks are KTAP, each round a
# subtest of VM B's document.  Prints a KTAP document, VM B's as a
# subtest, and its count, "pyverbs: P passed, F failed".
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
pair_ktap_begin pyverbs
pair_ktap_guest vm-b "$out/b.log"
pair_ktap_end pyverbs $rc

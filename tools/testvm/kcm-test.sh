#!/usr/bin/env bash
# A kernel consumer connecting through rdma_cm across two VMs:
# tools/kverbs/sroce_kcm.ko, client in VM A, server in VM B (RC SEND,
# WRITE, READ with every byte checked, then UD datagrams over a SIDR
# exchange), in one boot, each round on the providers its pairing names:
#   tools/testvm/kcm-test.sh [normal|debug] [ROUNDS]
# ROUNDS: comma-separated CLIENT-SERVER[:FAMILY] (FAMILY 4 or 6, default
# 4), default sroce-sroce,sroce-sroce:6,rxe-sroce,rxe-sroce:6,sroce-rxe,
# sroce-rxe:6,rxe-rxe: sroce at both ends and against stock rxe in both
# directions, each over IPv4 and IPv6, and stock rxe at both ends, the
# control that checks the test itself.  Prints
# "kcm: P passed, F failed" over the checks of the rounds with sroce on
# either end (both sides' KCM lines, and each side's RESULT line); the
# rxe-rxe control must pass in full too, or the run fails.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
pair_setup kcm "${1:-debug}"
case $flavour in
normal | debug) ;;
*) echo "kcm-test: a test kernel (normal or debug), got '$flavour'" >&2; exit 2 ;;
esac
rounds=${2:-sroce-sroce,sroce-sroce:6,rxe-sroce,rxe-sroce:6,sroce-rxe,sroce-rxe:6,rxe-rxe}
: >"$out/kcm-rounds"
n=0
for r in ${rounds//,/ }; do
	fam=4
	case $r in *:6) fam=6 ;; *:4) ;; *:*) echo "kcm-test: bad round '$r'" >&2; exit 2 ;; esac
	p=${r%:*}
	case $p in
	rxe-rxe | rxe-sroce | sroce-rxe | sroce-sroce) echo "$p $fam" >>"$out/kcm-rounds" ;;
	*) echo "kcm-test: unknown round '$r'" >&2; exit 2 ;;
	esac
	n=$((n + 1))
done
"$top/tools/deps.sh" qemu-system-x86 busybox-static kmod
kverbs_modules kcm
rc=0
"$here/run-pair.sh" -A "$here/kcm-guest.sh" -B "$here/kcm-guest.sh" -o "$out" -k "$flavour" -s \
	"${ko_args[@]}" -t $((300 + 400 * n)) -f "$kvdir/sroce_kcm.ko" -f "$out/kcm-rounds" || rc=1
for l in a b; do tr -d '\r' <"$out/$l.log" 2>/dev/null | grep -a '^KCM' >"$out/$l.kcm"; done
# Per round: its name, and whether sroce is on either end.
pass=0 fail=0 ctl_ok=1 i=0
while read -r pairing fam; do
	lines=$(cat "$out/a.kcm" "$out/b.kcm" | awk -v i="$i" '$1 == "KCM" && $2 == i')
	p=$(grep -c ' PASS$' <<<"$lines" || true)
	f=$(grep -c ' FAIL' <<<"$lines" || true)
	res=$(grep -c ' RESULT PASS' <<<"$lines" || true)
	[ "$res" -eq 2 ] || f=$((f + 1))	# both sides must have reported
	echo "kcm-round: $i $pairing IPv$fam: $p passed, $f failed"
	if [ "$pairing" = rxe-rxe ]; then
		[ "$f" -eq 0 ] && [ "$p" -gt 0 ] || ctl_ok=0
	else
		pass=$((pass + p)) fail=$((fail + f))
	fi
	i=$((i + 1))
done <"$out/kcm-rounds"
cat "$out/a.kcm" "$out/b.kcm" | grep -a ' FAIL' >&2 || true
if [ $ctl_ok = 0 ]; then
	echo "kcm-test: the rxe-rxe control did not pass: the test itself is suspect" >&2
	fail=$((fail + 1))
fi
pair_verdict kcm $rc "$pass" "$fail"

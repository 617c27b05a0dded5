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
# control that checks the test itself.  Prints a KTAP document, both
# sides' (each round a subtest, the module's checks; the rxe-rxe control
# one result, which must pass) as subtests, and its count, "kcm: P
# passed, F failed".
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
pair_ktap_begin kcm
pair_ktap_guest vm-a "$out/a.log"
pair_ktap_guest vm-b "$out/b.log"
pair_ktap_end kcm $rc

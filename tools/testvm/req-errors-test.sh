#!/usr/bin/env bash
# Error paths of sroce's requester and completer through the real wire:
# VM A runs the client of tools/integrity/sroce_integrity -m MODE on sroce
# (its requester under test), VM B the server, on stock rxe and then, in a
# second boot, on sroce.  Modes: retry exhaustion against a silent peer
# (and WRs flushed behind it and posted after it), RNR waits (rnr_retry 7
# until the receive comes; the gap NAK -> retry >= the encoded timer, from
# the trace; rnr_retry 1 exhausted), local errors (bad lkey, a READ SGE
# past its MR, a READ into an MR without local write, a 4-byte atomic
# result SGE), remote NAKs (bad rkey, out-of-range WRITE/READ, MR access,
# unaligned atomic, and with a sroce peer the remote operational error of
# `hostile`), hostile rewrites of the mapped send ring (num_sge, opcode,
# length, lkey, inline length, producer index jump) with a witness QP
# pair that must keep working, and teardown with sends in flight and the
# retransmit timer armed (QP destroy; process killed, device deleted,
# module unloaded, kmemleak).  Guest side: tools/testvm/req-errors-guest.sh.
#   tools/testvm/req-errors-test.sh [normal|debug] [--peers rxe,sroce]
# Prints a KTAP document (both sides of both boots as subtests: the guest
# checks, and each run of the tool a subtest of its own) and its count,
# "req-errors-FLAVOUR: P passed, F failed"; exit 0 only if all passed.  Logs: build/req-errors-FLAVOUR/<peer>/{a,b}.log.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
flavour=debug peers=rxe,sroce
while [ $# -gt 0 ]; do
	case $1 in
	normal | debug) flavour=$1 ;;
	--peers) peers=$2; shift ;;
	*) sed -n '2,21p' "$0" >&2; exit 2 ;;
	esac
	shift
done
pair_setup req-errors "$flavour"
"$top/tools/deps.sh" libibverbs-dev librdmacm-dev build-essential
make -s -C "$top/tools/integrity" >&2 || { echo "req-errors-$flavour: 0 passed, 1 failed"; exit 1; }
rc=0
pair_ktap_begin "req-errors-$flavour"
for peer in ${peers//,/ }; do
	o=$out/$peer
	mkdir -p "$o"
	echo "$peer" >"$o/peer"
	t0=$(date +%s)
	r=0
	"$here/run-pair.sh" -a sroce -b "$peer" -A "$here/req-errors-guest.sh" \
		-B "$here/req-errors-guest.sh" -o "$o" -k "$flavour" "${ko_args[@]}" -t 900 \
		-f "$top/tools/integrity/sroce_integrity" -f "$o/peer" || r=1
	echo "req-errors: sroce -> $peer: VM run $(( $(date +%s) - t0 )) s (rc $r)" >&2
	[ $r = 0 ] || rc=1
	python3 "$top/tools/ktap.py" count --name "req-errors: sroce -> $peer" "$o/a.log" "$o/b.log" >&2
	pair_ktap_guest "$peer: vm-a" "$o/a.log"
	pair_ktap_guest "$peer: vm-b" "$o/b.log"
	ktap_check $r "sroce -> $peer: the VM run ended cleanly" >>"$ktap"
done
pair_ktap_end "req-errors-$flavour" $rc

#!/usr/bin/env bash
# Run perftest workloads between two VMs, with the link captured to a pcap:
# VM A (10.0.0.1) runs the perftest client, the requester; VM B (10.0.0.2)
# the server, the responder.  Each VM runs one RDMA provider, stock
# rdma_rxe or sroce (they cannot share a kernel: both bind UDP 4791).
#
#   tools/testvm/perftest-pair.sh -r PAIRING -w WORKLOADS -o OUTDIR
#                                 [-k normal|debug|deb6.1|deb6.12] [-t SECONDS]
#                                 [-S MS]
#
# PAIRING is X-Y[:PARAM=VALUE,...][#LABEL]: X the provider of VM A, Y that
# of VM B (rxe or sroce), e.g. sroce-rxe.  A bare Y (rxe, sroce,
# sroce:PARAM=...) is the old form, an rxe requester: sroce == rxe-sroce.
# PARAM=VALUE,... loads sroce with those module parameters, e.g.
# rxe-sroce:ack_coalesce_max=1 (an ACK per AckReq, like stock rxe); they
# reach VM B only (run-pair.sh -P), so Y must be sroce.  #LABEL only names
# a second run of the same pairing (rxe-rxe#2).
#
# -S MS plants a stall: VM B's QEMU process is stopped for MS ms just
# before the first workload (pair.py, asked by VM A).
#
# OUTDIR gets a.log, b.log (consoles), link.pcap, results.txt (the
# SROCE-WL lines of the client) and stats-a.txt / stats-b.txt (rdma
# counters and /proc/stat after each workload) and stalls.json (how long
# each VM stood still in each workload: tools/ackrate/stalls.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pairing=rxe-rxe wl='' out='' flavour=debug tmo=1200
usage() { sed -n '2,21p' "$0" >&2; exit 2; }
plant=
while getopts "r:w:o:k:t:S:" o; do
	case $o in
	r) pairing=$OPTARG ;; w) wl=$OPTARG ;; o) out=$OPTARG ;; k) flavour=$OPTARG ;; t) tmo=$OPTARG ;;
	S) plant=$OPTARG ;;
	*) usage ;;
	esac
done
if [ -z "$wl" ] || [ -z "$out" ]; then usage; fi
base=${pairing%%#*}
provs=${base%%:*} params=
[ "$provs" = "$base" ] || params=${base#*:}
case $provs in
*-*) prov_a=${provs%%-*} prov_b=${provs#*-} ;;
*) prov_a=rxe prov_b=$provs ;;
esac
for p in "$prov_a" "$prov_b"; do
	case $p in
	rxe | sroce) ;;
	*) echo "perftest-pair: unknown provider '$p' in '$pairing'" >&2; exit 2 ;;
	esac
done
if [ -n "$params" ] && [ "$prov_b" != sroce ]; then
	echo "perftest-pair: module parameters reach VM B only, which runs $prov_b here ('$pairing')" >&2
	exit 2
fi
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$wl" "$work/workloads"
set_p=()
[ -z "$params" ] || set_p=(-P "${params//,/ }")
# Each VM watches its own stalls (tools/testvm/stallmon.c).
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
stallmon_build "$work/stallmon" || exit 1
extra=(-f "$work/stallmon")
# In a shared boot every run carries the same modules: sroce too, where
# neither side runs it.
[ -z "${SROCE_GROUP:-}" ] || extra+=(-s)
if [ -n "$plant" ]; then
	echo "$plant" >"$work/plant-stall"
	extra+=(-f "$work/plant-stall")
fi
rc=0
"$here/run-pair.sh" -A "$here/perftest-guest.sh" -B "$here/perftest-guest.sh" -o "$out" \
	-k "$flavour" -t "$tmo" -f "$work/workloads" -a "$prov_a" -b "$prov_b" "${set_p[@]}" \
	"${extra[@]}" || rc=1
python3 "$top/tools/ackrate/stalls.py" "$out" | sed 's/^/perftest-pair: /' >&2 || true
for side in a b; do
	sed -n '/SROCE-STATS-BEGIN/,/SROCE-STATS-END/p' "$out/$side.log" | tr -d '\r' >"$out/stats-$side.txt"
done
grep -a '^SROCE-WL ' "$out/a.log" | tr -d '\r' >"$out/results.txt" || true
# The parameters asked for must be the ones sroce ran with.
for kv in ${params//,/ }; do
	tr -d '\r' <"$out/b.log" | grep -aqx "SROCE-PARAM $kv" ||
		{ echo "perftest-pair: sroce did not run with $kv" >&2; rc=1; }
done
exit $rc

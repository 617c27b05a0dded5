#!/usr/bin/env bash
# Run perftest workloads between two VMs: VM A (stock rdma_rxe, the
# requester/client) and VM B (the responder/server: stock rdma_rxe or
# sroce), with the link captured to a pcap.
#
#   tools/testvm/perftest-pair.sh -r rxe|sroce[:PARAM=VALUE,...] -w WORKLOADS
#                                 -o OUTDIR [-k normal|debug] [-t SECONDS]
#
# sroce:PARAM=VALUE,... loads sroce with those module parameters, e.g.
# sroce:ack_coalesce_max=1 (an ACK per AckReq, like stock rxe).  A
# trailing #LABEL (rxe#2) only names a second run of the same responder.
#
# OUTDIR gets a.log, b.log (consoles), link.pcap, results.txt (the
# SROCE-WL lines of the client) and stats-a.txt / stats-b.txt (rdma
# counters after each workload).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
resp=rxe wl= out= flavour=normal tmo=1200
while getopts "r:w:o:k:t:" o; do
	case $o in
	r) resp=$OPTARG ;; w) wl=$OPTARG ;; o) out=$OPTARG ;; k) flavour=$OPTARG ;; t) tmo=$OPTARG ;;
	*) sed -n '2,15p' "$0" >&2; exit 2 ;;
	esac
done
[ -n "$wl" ] && [ -n "$out" ] || { sed -n '2,15p' "$0" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$wl" "$work/workloads"
params=()
resp=${resp%%#*}
case $resp in
rxe | sroce) ;;
sroce:*) params=(-P "$(tr , ' ' <<<"${resp#sroce:}")"); resp=sroce ;;
*) echo "perftest-pair: unknown responder '$resp'" >&2; exit 2 ;;
esac
echo "$resp" >"$work/responder"
sroce=()
[ "$resp" = sroce ] && sroce=(-s "${params[@]}")
rc=0
"$here/run-pair.sh" -A "$here/perftest-guest.sh" -B "$here/perftest-guest.sh" -o "$out" \
	-k "$flavour" -t "$tmo" -f "$work/workloads" -f "$work/responder" "${sroce[@]}" || rc=1
for side in a b; do
	sed -n '/SROCE-STATS-BEGIN/,/SROCE-STATS-END/p' "$out/$side.log" | tr -d '\r' >"$out/stats-$side.txt"
done
grep -a '^SROCE-WL ' "$out/a.log" | tr -d '\r' >"$out/results.txt" || true
# The parameters asked for must be the ones sroce ran with.
if [ ${#params[@]} -gt 0 ]; then
	for kv in ${params[1]}; do
		tr -d '\r' <"$out/b.log" | grep -aqx "SROCE-PARAM $kv" ||
			{ echo "perftest-pair: sroce did not run with $kv" >&2; rc=1; }
	done
fi
exit $rc

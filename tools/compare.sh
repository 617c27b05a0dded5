#!/usr/bin/env bash
# make compare: the ACK-rate comparison of responders, side by side.
#
#   tools/compare.sh [-s] [workload-name...]
#
# For each responder, boots a pair of test VMs (A: stock rdma_rxe
# requester, B: the responder), runs the perftest workloads of
# tools/ackrate/workloads.txt (or the named subset; -s: the smoke set),
# captures the link and counts it with tshark (tools/ackrate/analyze.py).
# Writes build/compare/{table.md,results.json,acks.png,bandwidth.png}.
#
# Fails on a broken capture invariant, sroce counters that disagree with
# the capture, any retransmission, or sroce sending more ACKs than rxe.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/deps.sh" tshark python3-matplotlib
set_file=$top/tools/ackrate/workloads.txt
if [ "${1:-}" = -s ]; then set_file=$top/tools/ackrate/smoke.txt; shift; fi
out=$top/build/compare
rm -rf "$out"
mkdir -p "$out"
if [ $# -gt 0 ]; then
	pat=$(printf '%s|' "$@")
	grep -E "^(${pat%|})[[:space:]]" "$set_file" >"$out/workloads.txt"
else
	grep -vE '^(#|$)' "$set_file" >"$out/workloads.txt"
fi
[ -s "$out/workloads.txt" ] || { echo "compare: no such workload" >&2; exit 2; }

responders=(rxe sroce)
rc=0
for r in "${responders[@]}"; do
	echo "compare: responder $r" >&2
	if ! "$top/tools/testvm/perftest-pair.sh" -r "$r" -w "$out/workloads.txt" -o "$out/$r"; then
		echo "run failed" >"$out/$r/failed"
		rc=1
	fi
	python3 "$top/tools/ackrate/analyze.py" "$out/$r/link.pcap" "$out/workloads.txt" \
		--json "$out/$r/counts.json" || rc=1
done
/usr/bin/python3 "$top/tools/ackrate/report.py" "$out" rxe sroce || rc=1
exit $rc

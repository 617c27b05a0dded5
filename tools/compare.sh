#!/usr/bin/env bash
# make compare: the ACK-rate comparison of responders, side by side.
#
#   tools/compare.sh [-s] [-f WORKLOADS] [-k normal|debug] [-r "RESPONDERS"]
#                    [-o OUTDIR] [workload-name...]
#
#   -s  the two-workload smoke set (tools/ackrate/smoke.txt)
#   -f  another workload file; -k the kernel flavour (default normal);
#   -r  the responders to run (default "rxe sroce"); -o the output dir
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
flavour=normal
out=$top/build/compare
responders=(rxe sroce)
while getopts "sf:k:r:o:" o; do
	case $o in
	s) set_file=$top/tools/ackrate/smoke.txt ;;
	f) set_file=$OPTARG ;;
	k) flavour=$OPTARG ;;
	r) read -r -a responders <<<"$OPTARG" ;;
	o) out=$OPTARG ;;
	*) sed -n '2,20p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
rm -rf "$out"
mkdir -p "$out"
if [ $# -gt 0 ]; then
	pat=$(printf '%s|' "$@")
	grep -E "^(${pat%|})[[:space:]]" "$set_file" >"$out/workloads.txt"
else
	grep -vE '^(#|$)' "$set_file" >"$out/workloads.txt"
fi
[ -s "$out/workloads.txt" ] || { echo "compare: no such workload" >&2; exit 2; }

rc=0
for r in "${responders[@]}"; do
	echo "compare: responder $r" >&2
	if ! "$top/tools/testvm/perftest-pair.sh" -r "$r" -w "$out/workloads.txt" -o "$out/$r" \
		-k "$flavour"; then
		echo "run failed" >"$out/$r/failed"
		rc=1
	fi
	python3 "$top/tools/ackrate/analyze.py" "$out/$r/link.pcap" "$out/workloads.txt" \
		--json "$out/$r/counts.json" || rc=1
done
/usr/bin/python3 "$top/tools/ackrate/report.py" "$out" "${responders[@]}" || rc=1
exit $rc

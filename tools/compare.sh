#!/usr/bin/env bash
# make compare: the ACK-rate comparison of responders, side by side.
#
#   tools/compare.sh [-s] [-n ROUNDS] [-f WORKLOADS]
#                    [-k normal|debug|deb6.1|deb6.12] [-M SROCE.ko]
#                    [-r "RESPONDERS"] [-o OUTDIR] [workload-name...]
#
#   -s  the two-workload smoke set (tools/ackrate/smoke.txt), one round
#   -n  rounds (default 3; 1 with -s); -f another workload file;
#   -k  the kernel (default normal): a test kernel or a Debian stock kernel
#       (tools/testvm/run-pair.sh -k; stock: VM A and rxe responders run
#       that kernel's own rdma_rxe); -M a prebuilt sroce.ko for that
#       kernel instead of building one (passed on as $SROCE_KO);
#       -r the responders to run
#       (default "rxe sroce"; sroce:PARAM=VALUE,... is sroce loaded with
#       those module parameters, e.g. -r "rxe sroce sroce:ack_span_max=0";
#       NAME#LABEL is NAME run again under another name: -r "rxe rxe#2
#       sroce" adds an A/A control, stock rxe against itself);
#       -o the output dir (default build/compare)
#
# Each round boots a pair of test VMs per responder (A: stock rdma_rxe
# requester, B: the responder; the order alternates between rounds), runs
# the perftest workloads of tools/ackrate/workloads.txt (or the named
# subset), captures the link and counts it with tshark
# (tools/ackrate/analyze.py).  Writes OUTDIR/{table.md,results.json,
# targets.txt,acks.png,bandwidth.png,cpu.png}: counts pooled over the rounds,
# bandwidth as the median of the rounds.
#
# Fails on a broken capture invariant, sroce counters that disagree with
# the capture, any retransmission, or sroce sending more ACKs than rxe, in
# any round.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/deps.sh" tshark python3-matplotlib
set_file=$top/tools/ackrate/workloads.txt
flavour=normal
out=$top/build/compare
responders=(rxe sroce)
rounds=
while getopts "sn:f:k:M:r:o:" o; do
	case $o in
	M) SROCE_KO=$(realpath "$OPTARG"); export SROCE_KO ;;
	s) set_file=$top/tools/ackrate/smoke.txt; rounds=${rounds:-1} ;;
	n) rounds=$OPTARG ;;
	f) set_file=$OPTARG ;;
	k) flavour=$OPTARG ;;
	r) read -r -a responders <<<"$OPTARG" ;;
	o) out=$OPTARG ;;
	*) sed -n '2,32p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
rounds=${rounds:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "compare: -n wants a positive count" >&2; exit 2; }
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
for k in $(seq 1 "$rounds"); do
	order=("${responders[@]}")
	if [ $((k % 2)) = 0 ]; then	# alternate, so drift hits both alike
		order=()
		for ((i = ${#responders[@]} - 1; i >= 0; i--)); do order+=("${responders[i]}"); done
	fi
	for r in "${order[@]}"; do
		d=$out/round$k/$r
		echo "compare: round $k/$rounds, responder $r" >&2
		if ! "$top/tools/testvm/perftest-pair.sh" -r "$r" -w "$out/workloads.txt" -o "$d" \
			-k "$flavour"; then
			echo "run failed" >"$d/failed"
			rc=1
		fi
		python3 "$top/tools/ackrate/analyze.py" "$d/link.pcap" "$out/workloads.txt" \
			--json "$d/counts.json" || rc=1
	done
done
/usr/bin/python3 "$top/tools/ackrate/report.py" "$out" "$rounds" "${responders[@]}" || rc=1
exit $rc

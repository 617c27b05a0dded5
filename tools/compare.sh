#!/usr/bin/env bash
# make compare: sroce against stock rxe, as requester and as responder.
#
#   tools/compare.sh [-s] [-n ROUNDS] [-f WORKLOADS]
#                    [-k normal|debug|deb6.1|deb6.12] [-M SROCE.ko]
#                    [-r "PAIRINGS"] [-o OUTDIR] [-S MS] [workload-name...]
#
#   -s  the two-workload smoke set (tools/ackrate/smoke.txt), one round,
#       pairings sroce-rxe sroce-sroce unless -r says otherwise (make test
#       runs rxe-sroce on the debug and the stock kernels)
#   -n  rounds (default 3; 1 with -s); -f another workload file;
#   -k  the kernel (default deb6.1, Debian 12's own 6.1 with its own
#       rdma_rxe: what users run): a test kernel or a Debian stock kernel
#       (tools/testvm/run-pair.sh -k; stock: the rxe sides run that
#       kernel's own rdma_rxe); -M a prebuilt sroce.ko for that kernel
#       instead of building one (passed on as $SROCE_KO);
#   -r  the pairings to run, each X-Y[:PARAM=VALUE,...][#LABEL]: VM A
#       (10.0.0.1, the perftest client, the requester) runs provider X,
#       VM B (10.0.0.2, the server, the responder) provider Y, rxe or
#       sroce.  Default "rxe-rxe rxe-rxe#2 rxe-sroce sroce-sroce
#       sroce-rxe": the four pairings and an A/A control (#LABEL runs a
#       pairing again under another name: stock rxe against itself twice
#       shows what the run-to-run noise alone does).  :PARAM=VALUE,...
#       loads sroce with those module parameters, on VM B only (Y must be
#       sroce; the guest checks sroce ran with them), e.g.
#       rxe-sroce:ack_coalesce_max=1.  A bare Y is the old form, an rxe
#       requester: "sroce" == rxe-sroce, "rxe sroce" == rxe-rxe rxe-sroce,
#       rxe#2 == rxe-rxe#2.
#   -o  the output dir (default build/compare)
#   -S  plant a stall: VM B of the first run is stopped for MS ms during
#       its first workload (tools/testvm/pair.py); the run must be found
#       disturbed and run again (or, in a shared boot, reported disturbed)
#
# All runs (round x pairing; the order alternates between rounds) share
# one boot of a VM pair (tools/testvm/group.py), whose VMs switch
# providers between runs; each runs the perftest workloads of
# tools/ackrate/workloads.txt (or the named subset), captures the link and counts it with tshark
# (tools/ackrate/analyze.py: VM A's requests, VM B's responses).  Writes
# OUTDIR/{table.md,results.json,targets.txt,acks.png,bandwidth.png,
# latency.png,cpu.png} (tools/ackrate/report.py): counts pooled over the
# rounds, bandwidth and latency as the median of the rounds.
#
# Fails, in any round, on a broken capture invariant, sroce counters
# (requester or responder) that disagree with the capture, a
# retransmission by an sroce requester that the capture does not justify
# (no NAK, the responder not silent for the QP's timeout), or an sroce
# responder sending more ACKs than stock rxe's to the same requester (per
# AckReq'd request where the two runs' requesters asked for different
# numbers: an sroce requester's AckReqs follow how fast ACKs return).
# Bandwidth, latency, CPU and justified retransmissions are targets,
# reported in targets.txt, never failures.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/deps.sh" tshark python3-matplotlib
set_file=$top/tools/ackrate/workloads.txt
flavour=deb6.1
out=$top/build/compare
pairings=(rxe-rxe rxe-rxe#2 rxe-sroce sroce-sroce sroce-rxe)
smoke=0 given=0
rounds=
plant= reruns=2
while getopts "sn:f:k:M:r:o:S:" o; do
	case $o in
	S) plant=$OPTARG ;;
	M) SROCE_KO=$(realpath "$OPTARG"); export SROCE_KO ;;
	s) set_file=$top/tools/ackrate/smoke.txt; rounds=${rounds:-1}; smoke=1 ;;
	n) rounds=$OPTARG ;;
	f) set_file=$OPTARG ;;
	k) flavour=$OPTARG ;;
	r) read -r -a pairings <<<"$OPTARG"; given=1 ;;
	o) out=$OPTARG ;;
	*) sed -n '2,44p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $smoke = 0 ] || [ $given = 1 ] || pairings=(sroce-rxe sroce-sroce)
rounds=${rounds:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "compare: -n wants a positive count" >&2; exit 2; }
# The canonical name of a pairing: X-Y[:PARAM=VALUE,...][#LABEL].
canon() {
	local name=$1 label='' params='' provs
	case $name in
	*"#"*) label="#${name#*"#"}"; name=${name%%"#"*} ;;
	esac
	case $name in
	*:*) params=":${name#*:}"; name=${name%%:*} ;;
	esac
	provs=$name
	case $provs in
	*-*) ;;
	*) provs=rxe-$provs ;;
	esac
	case $provs in
	rxe-rxe | rxe-sroce | sroce-rxe | sroce-sroce) ;;
	*) echo "compare: a pairing is X-Y with X, Y rxe or sroce, got '$1'" >&2; return 2 ;;
	esac
	if [ -n "$params" ] && [ "${provs#*-}" != sroce ]; then
		echo "compare: module parameters apply to VM B only, which runs rxe in '$1'" >&2
		return 2
	fi
	echo "$provs$params$label"
}
names=()
for p in "${pairings[@]}"; do n=$(canon "$p") || exit 2; names+=("$n"); done
pairings=("${names[@]}")
[ "$(printf '%s\n' "${pairings[@]}" | sort | uniq -d)" = "" ] ||
	{ echo "compare: a pairing is named twice; give the second a #LABEL" >&2; exit 2; }
# A replay (run-pair.sh, shared boots) judges what the boot left here.
[ "${SROCE_GROUP_PHASE:-}" = replay ] || rm -rf "$out"
mkdir -p "$out"
if [ $# -gt 0 ]; then
	pat=$(printf '%s|' "$@")
	grep -E "^(${pat%|})[[:space:]]" "$set_file" >"$out/workloads.txt"
else
	grep -vE '^(#|$)' "$set_file" >"$out/workloads.txt"
fi
[ -s "$out/workloads.txt" ] || { echo "compare: no such workload" >&2; exit 2; }

# The capture as one direction: VM A's requests and VM B's responses (and
# the perftest TCP exchange, which splits it into workloads).  The same
# capture for the bandwidth tools; for ib_send_lat and ib_write_lat it
# leaves out B's requests and A's responses, which analyze.py would take
# for responses to A.
fwd='tcp || ((ip.src==10.0.0.1 || ipv6.src==fd00::1) && (infiniband.bth.opcode <= 12 ||'
fwd+=' infiniband.bth.opcode == 19 || infiniband.bth.opcode == 20 || infiniband.bth.opcode == 22 ||'
fwd+=' infiniband.bth.opcode == 23)) || ((ip.src==10.0.0.2 || ipv6.src==fd00::2) &&'
fwd+=' infiniband.bth.opcode >= 13 && infiniband.bth.opcode <= 18)'

# The runs, in order: "ROUND PAIRING" (the order alternates between
# rounds, so drift hits every pairing alike).
runs=()
for k in $(seq 1 "$rounds"); do
	if [ $((k % 2)) = 0 ]; then
		for ((i = ${#pairings[@]} - 1; i >= 0; i--)); do runs+=("$k ${pairings[i]}"); done
	else
		for r in "${pairings[@]}"; do runs+=("$k $r"); done
	fi
done

# run_one ROUND PAIRING TRY: the perftest pair of one run into its
# directory (booked, judged or booted on its own, as $SROCE_GROUP_PHASE
# says); the planted stall (-S) goes to the first run's first try.
run_one() {
	local k=$1 r=$2 try=$3 d=$out/round$1/$2 pl=()
	[ -z "$plant" ] || [ "$k $r $try" != "${runs[0]} 0" ] || pl=(-S "$plant")
	[ "${SROCE_GROUP_PHASE:-}" = book ] || rm -f "$d/failed"
	if ! "$top/tools/testvm/perftest-pair.sh" -r "$r" -w "$out/workloads.txt" -o "$d" \
		-k "$flavour" "${pl[@]}" && [ "${SROCE_GROUP_PHASE:-}" != book ]; then
		echo "run failed" >"$d/failed"
	fi
}

# disturbed ROUND PAIRING: the run's VMs stood still for the QP's timeout
# (tools/ackrate/stalls.py): it says nothing of either provider.
disturbed() {
	local st
	st=$(python3 "$top/tools/ackrate/stalls.py" "$out/round$1/$2" 2>/dev/null || true)
	case $st in disturbed*) echo "compare: round $1, $2: $st" >&2; return 0 ;; esac
	return 1
}

# analyse ROUND PAIRING: the run's capture counted (counts.json).
analyse() {
	local k=$1 r=$2 d=$out/round$1/$2
	if [ -f "$d/link.pcap" ] && tshark -r "$d/link.pcap" -Y "$fwd" -w "$d/fwd.pcap" 2>/dev/null; then
		# analyze.py exits 1 on any invariant violation, stock rxe's
		# own included; report.py decides which fail the run (those
		# where sroce is the responder).  Here only a missing count is.
		rm -f "$d/counts.json"
		python3 "$top/tools/ackrate/analyze.py" "$d/fwd.pcap" "$out/workloads.txt" \
			--json "$d/counts.json" || true
		[ -s "$d/counts.json" ] || { echo "compare: analyze.py wrote no counts for $r in round $k" >&2; rc=1; }
		rm -f "$d/fwd.pcap"
	else
		echo "compare: no capture for $r in round $k" >&2
		rc=1
	fi
}

# sroce.ko, built once for every run (unless -M named one).
if [ -z "${SROCE_KO:-}" ]; then
	case $flavour in
	normal | debug) kd=$("$top/tools/testvm/build-kernel.sh" "$flavour" | tail -n1) ;;
	*) kd=$("$top/tools/stock-kernels.sh" --headers "$flavour") ;;
	esac
	make -s -C "$top" module-for KDIR="$kd" BUILD="$top/build/$flavour" >&2
	SROCE_KO=$top/build/$flavour/sroce.ko
	export SROCE_KO
fi

rc=0
start=$SECONDS
if [ -n "${SROCE_GROUP:-}" ]; then
	# Inside someone else's shared boot (make test): book, or judge what
	# it left.  No rerun is possible: report.py does not count what a
	# stall explains.
	for run in "${runs[@]}"; do
		# shellcheck disable=SC2086
		run_one $run 0
		# shellcheck disable=SC2086
		[ "$SROCE_GROUP_PHASE" = book ] || { disturbed $run || true; analyse $run; }
	done
else
	# One shared boot for every run (tools/testvm/group.py: the VMs switch
	# providers between runs); the disturbed runs again, in a boot of
	# their own, at most $reruns times.
	todo=("${runs[@]}")
	try=0
	while [ ${#todo[@]} -gt 0 ]; do
		g=$out/group-$try
		rm -rf "$g"
		mkdir -p "$g"
		echo "compare: ${#todo[@]} run(s) in one boot, $((SECONDS - start)) s" >&2
		for run in "${todo[@]}"; do
			# shellcheck disable=SC2086
			SROCE_GROUP=$g SROCE_GROUP_PHASE=book run_one $run $try >/dev/null 2>&1
		done
		python3 "$top/tools/testvm/group.py" "$g" || echo "compare: the shared boot did not finish" >&2
		again=()
		declare -A stood=()
		for run in "${todo[@]}"; do
			# shellcheck disable=SC2086
			SROCE_GROUP=$g SROCE_GROUP_PHASE=replay run_one $run $try
			# shellcheck disable=SC2086
			if disturbed $run; then stood[$run]=1; fi
		done
		# A rerun boot in which every run stood still again: the host is
		# saturated (a second make compare beside this one did that to
		# every run of two boots), and another boot would fare no
		# better.  Its runs are reported as disturbed, not run again.
		last=$reruns
		if [ $try -ge 1 ] && [ ${#stood[@]} -eq ${#todo[@]} ]; then
			echo "compare: every run of rerun boot $try stood still again: the host is saturated; no more reruns, its runs are reported disturbed" >&2
			last=$try
		fi
		for run in "${todo[@]}"; do
			if [ -n "${stood[$run]:-}" ] && [ $try -lt $last ]; then
				read -r k r <<<"$run"
				rm -rf "$out/round$k/$r.disturbed-$((try + 1))"
				mv "$out/round$k/$r" "$out/round$k/$r.disturbed-$((try + 1))"
				echo "compare: round $k, $r: run again ($((try + 1)) of at most $reruns)" >&2
				again+=("$run")
			else
				# shellcheck disable=SC2086
				analyse $run
			fi
		done
		todo=("${again[@]}")
		try=$((try + 1))
	done
fi
echo "compare: $rounds round(s) of ${#pairings[@]} pairing(s) in $((SECONDS - start)) s" >&2
/usr/bin/python3 "$top/tools/ackrate/report.py" "$out" "$rounds" "${pairings[@]}" || rc=1
exit $rc

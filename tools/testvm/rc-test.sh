#!/usr/bin/env bash
# RC and UD traffic in every pairing of providers, with unmodified Debian
# userspace: ibv_rc_pingpong, the perftest RC tools and the integrity tool
# (tools/integrity), on a clean link and, with --lossy, on a lossy one;
# ibv_ud_pingpong and perftest's UD mode on the clean link.
#
#   tools/testvm/rc-test.sh [KERNEL] [--pairs LIST] [--lossy]
#                           [--lossy-pairs LIST] [--quick] [--only REGEX]
#                           [--dry-run] [--retransmits=report] [--reanalyze]
#   SROCE_KO=path/sroce.ko tools/testvm/rc-test.sh ...
#
# KERNEL: a test kernel (debug, the default, or normal) or a Debian stock
# one (deb6.1, deb6.12; give its DKMS-built sroce.ko in SROCE_KO).
# LIST: comma-separated pairings (default rxe-rxe, the control):
#   X-Y      (rxe-rxe, rxe-sroce, sroce-rxe, sroce-sroce) VM A runs provider
#            X and the client (the requester), VM B provider Y and the server
#   loop-X   (loop-rxe, loop-sroce) both ends on one device of provider X,
#            in one VM
# All pairings run in one boot: one VM pair (the VMs switch providers
# between pairings, loopback pairings last, in VM A), or a single VM when
# only loopback pairings are asked for.  Per pairing, on a clean link (50
# checks; the table of them all is tools/testvm/rc_plan.py):
#   ibv_rc_pingpong -c: 16 B (inline), 4 KiB, 64 KiB, 4 KiB over IPv6;
#   ib_{send,write,read}_bw at 64 B, 4 KiB, 64 KiB, 256 KiB; ib_atomic_bw;
#   ib_{send,write,read}_lat at 64 B and 4 KiB; ib_atomic_lat;
#   ib_write_bw -q 4, ib_send_bw over IPv6 GIDs, ib_send_bw --use-srq;
#   sroce_integrity (every byte verified), and again with a PSN wrap;
#   UD: ibv_ud_pingpong -c at 1024 B (the port MTU) over IPv4 and 512 B
#   over IPv6, ib_send_bw -c UD at 1024 B, ib_send_lat -c UD at 64 B;
#   UC: ibv_uc_pingpong -c at 4 KiB (and 1 KiB over IPv6), ib_write_bw
#   and ib_send_bw -c UC;
#   the connection manager: rping -V, ucmatose, udaddy, rdma_server/
#   rdma_client and sroce_integrity -R (each over IPv4 and IPv6), mckey
#   (UD multicast), ib_send_bw -R and ib_write_bw -R.
# --lossy adds two rounds on the two-VM pairings (--lossy-pairs LIST: on
# those two-VM pairings instead, listed in --pairs or not: a pairing only
# there gets the lossy rounds and no clean one; implies --lossy), netem in both guests
# (so in each direction): "loss1" (loss 1%) and "mix" (loss 5%, duplicate
# 1%, reordering), each running sroce_integrity (RC, and where sroce
# receives UC with -m uc: lost messages are allowed, damaged or
# misplaced ones are not), and loss1 ib_write_bw 64 KiB too.  Loopback traffic never reaches the NIC: loopback
# pairings run on the clean link only.  --quick, for the debug kernel (a
# check costs ~4x there): 39 checks a pairing, 2 or 3 and 1 or 2 in the lossy rounds; no 4 KiB
# (but over IPv6 and -q 4), no _lat at 4 KiB, no PSN wrap, fewer
# iterations.  --only REGEX (Python's) keeps the checks whose label (e.g.
# ibv_ud_pingpong/512/ipv6) matches, for a developer's quick run.
# --dry-run prints the plan (one check a line,
# as tools/testvm/rc-guest.sh reads it) and stops; --reanalyze gives the
# verdicts of the last run in build/rc-FLAVOUR again, from its own plan
# (give the same pairings and --retransmits), with no VM.
#
# The verdicts are tools/ackrate/rc_verdict.py's.  A check passes when both
# its client and its server exit 0 within their timeouts (and
# ibv_rc_pingpong's server reported no invalid data): one result
# "ROUND PAIRING TOOL SIZE[ VARIANT] (...)" each.  The link capture
# (link.pcap, tools/ackrate/analyze.py) adds checks per two-VM pairing
# and round:
#   - the go-back-N invariants hold, on clean and loss-only rounds and on
#     the one-way workloads (analyze.py follows VM A as the only
#     requester: ibv_rc_pingpong, ib_send_lat and ib_write_lat, where VM B
#     sends too, are counted but not checked);
#   - clean: ib_atomic_bw and ib_atomic_lat got one ATOMIC ACK per ATOMIC;
#   - clean, with sroce as the requester: VM A retransmitted no PSN at
#     all; analyze.py's retransmission bursts (after a NAK, after 0.9 of
#     the 67 ms ACK timeout with nothing newly acknowledged, or with
#     progress just before) are printed to say what let any go; a check
#     whose only bursts came after a timeout while a VM stood still at
#     least 0.9 of it (each VM runs tools/testvm/stallmon.c) has them
#     counted and named, not failed;
#   - loss1, with sroce as the requester: on the one-way workloads
#     (sroce_integrity, ib_write_bw), every loss episode that a sequence
#     NAK announced drew exactly that one NAK (analyze.py's loss
#     episodes), and, by VM A's own trace (RC-TRACE lines of rc-guest.sh,
#     matched by tools/ackrate/trace_episodes.py, in the order its QP task
#     decided), every sequence NAK on the wire reached the completer, each
#     was followed by the retransmission from its PSN, and none was left
#     to the retransmit timer (dropped as stale because the timer had gone
#     back first).  How soon after the NAK the go-back reached the wire
#     depends on how the host schedules the VMs and is printed only.  With
#     stock rxe as the requester, and on the reordering "mix" round, the
#     same counts are reported only.  The matcher's self-test is a check.
# --retransmits=report turns that check into a report.
# Each check's request packets, retransmitted PSNs and NAKs are printed as
# "# rc-capture:" lines.  Output: build/rc-FLAVOUR/ (a.log, b.log,
# link.pcap, plan.txt, capture.json, capture.txt).  Stdout is one KTAP
# version 1 document, a result per check ("ok N ..." or "not ok N ...";
# a VM run that failed with no failed check, or a run with no passed
# check, is one more failed result), and then the line
# "rc-FLAVOUR: P passed, F failed"; the VM run's own messages go to
# stderr.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"

usage() { sed -n '2,/^set -uo/{/^set -uo/!p}' "$0" >&2; exit 2; }
flavour=debug pairs=rxe-rxe lossy=0 lossy_pairs= quick=0 dry=0 rexmit_report=0 reanalyze=0 only=
while [ $# -gt 0 ]; do
	case $1 in
	normal | debug | deb[0-9]*) flavour=$1 ;;
	--pairs) [ $# -ge 2 ] || usage; pairs=$2; shift ;;
	--pairs=*) pairs=${1#--pairs=} ;;
	--lossy) lossy=1 ;;
	--lossy-pairs) [ $# -ge 2 ] || usage; lossy=1 lossy_pairs=$2; shift ;;
	--quick) quick=1 ;;
	--only) [ $# -ge 2 ] || usage; only=$2; shift ;;
	--dry-run) dry=1 ;;
	--retransmits=report) rexmit_report=1 ;;
	--reanalyze) reanalyze=1 ;;
	*) usage ;;
	esac
	shift
done

# The plan (tools/testvm/rc_plan.py, a table of the checks): rc-plan and
# rc-rounds, as rc-guest.sh reads them, and the shell variables two (the
# two-VM pairings of any round), loops, rounds, need_sroce and n.
plan_args=(--flavour "$flavour" --pairs "$pairs")
[ $lossy = 0 ] || plan_args+=(--lossy)
[ -z "$lossy_pairs" ] || plan_args+=(--lossy-pairs "$lossy_pairs")
[ $quick = 0 ] || plan_args+=(--quick)
[ -z "$only" ] || plan_args+=(--only "$only")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
setup=$(python3 "$here/rc_plan.py" "${plan_args[@]}" --write "$tmp") || usage
two=() loops=() rounds=() need_sroce=0 n=0
eval "$setup"
# --dry-run: the plan only; leave build/rc-FLAVOUR (maybe in use) alone.
[ $dry = 0 ] || { cat "$tmp/rc-plan"; exit 0; }

rc=0
if [ $reanalyze = 1 ]; then	# the verdicts of the last run, from its own plan.txt
	out=$top/build/rc-$flavour
	[ -s "$out/a.log" ] || { echo "rc-test: no run in $out to analyze" >&2; exit 2; }
else
	pair_setup rc "$flavour"
	cp "$tmp/rc-plan" "$tmp/rc-rounds" "$out/"
	cp "$out/rc-plan" "$out/plan.txt"
	"$top/tools/deps.sh" libibverbs-dev librdmacm-dev build-essential tshark >&2
	if ! make -s -C "$top/tools/integrity" >&2 ||
		! stallmon_build "$out/stallmon" >&2; then
		printf 'KTAP version 1\n1..1\nnot ok 1 build tools/integrity and stallmon\nrc-%s: 0 passed, 1 failed\n' "$flavour"
		exit 1
	fi
	# The VM budget: generous per check (a check is bounded by its own
	# timeouts), plus boot.
	budget=$((300 + n * 25))
	[ "$flavour" = normal ] || budget=$((300 + n * 60))
	args=(-A "$here/rc-guest.sh" -o "$out" -k "$flavour" -t "$budget"
		-f "$out/rc-plan" -f "$out/rc-rounds" -f "$top/tools/integrity/sroce_integrity"
		-f "$out/stallmon")
	if [ ${#two[@]} -gt 0 ]; then args+=(-B "$here/rc-guest.sh"); else args+=(-1); fi
	[ $need_sroce = 0 ] || args+=(-s "${ko_args[@]}")
	all=("${two[@]}" "${loops[@]}")
	echo "rc-test: $n checks, pairings ${all[*]}, rounds ${rounds[*]}, one ${two:+pair }boot" >&2
	t0=$SECONDS
	"$here/run-pair.sh" "${args[@]}" >&2 || rc=1
	echo "rc-test: VM run took $((SECONDS - t0)) s" >&2
	echo "$rc" >"$out/vm-rc"
fi
rc=$(cat "$out/vm-rc" 2>/dev/null || echo 1)

# The verdicts (tools/ackrate/rc_verdict.py), a KTAP document on stdout.
verdict=(--name "rc-$flavour" --vm-rc "$rc")
[ ${#two[@]} -eq 0 ] || verdict+=(--two-vm)
[ $rexmit_report = 0 ] || verdict+=(--retransmits-report)
python3 "$top/tools/ackrate/rc_verdict.py" "$out" "${verdict[@]}"

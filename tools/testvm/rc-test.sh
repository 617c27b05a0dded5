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
# only loopback pairings are asked for.  Per pairing, on a clean link (46
# checks):
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
# check costs ~4x there): 34 checks a pairing, 2 or 3 and 1 or 2 in the lossy rounds; no 4 KiB
# (but over IPv6 and -q 4), no _lat at 4 KiB, no PSN wrap, fewer
# iterations.  --only REGEX keeps the checks whose label (e.g.
# ibv_ud_pingpong/512/ipv6) matches, for a developer's quick run.
# --dry-run prints the plan (one check a line,
# as tools/testvm/rc-guest.sh reads it) and stops; --reanalyze gives the
# verdicts of the last run in build/rc-FLAVOUR again, from its own plan
# (give the same pairings and --retransmits), with no VM.
#
# A check passes when both its client and its server exit 0 within their
# timeouts (and ibv_rc_pingpong's server reported no invalid data): one
# "rc-check: PASS|FAIL ROUND PAIRING TOOL SIZE[ VARIANT]" line each.  The
# link capture (link.pcap, tools/ackrate/analyze.py) adds checks per
# two-VM pairing and round:
#   - the go-back-N invariants hold, on clean and loss-only rounds and on
#     the one-way workloads (analyze.py follows VM A as the only
#     requester: ibv_rc_pingpong, ib_send_lat and ib_write_lat, where VM B
#     sends too, are counted but not checked);
#   - clean: ib_atomic_bw and ib_atomic_lat got one ATOMIC ACK per ATOMIC;
#   - clean, with sroce as the requester: VM A retransmitted no PSN at
#     all; analyze.py's retransmission bursts (after a NAK, after 0.9 of
#     the 67 ms ACK timeout with nothing newly acknowledged, or with
#     progress just before) are printed to say what let any go;
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
# "rc-capture:" lines.  Output: build/rc-FLAVOUR/ (a.log, b.log,
# link.pcap, plan.txt, capture.json).  The last line is
# "rc-FLAVOUR: P passed, F failed".
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

two=() loops=() two_lossy_only=() need_sroce=0
for p in ${pairs//,/ }; do
	case $p in
	rxe-rxe | rxe-sroce | sroce-rxe | sroce-sroce) two+=("$p") ;;
	loop-rxe | loop-sroce) loops+=("$p") ;;
	*) echo "rc-test: unknown pairing '$p'" >&2; usage ;;
	esac
	case $p in *sroce*) need_sroce=1 ;; esac
done
# The pairings of the lossy rounds: --lossy-pairs, or every two-VM one.
lossy_two=("${two[@]}")
if [ -n "$lossy_pairs" ]; then
	lossy_two=()
	for p in ${lossy_pairs//,/ }; do
		case $p in
		rxe-rxe | rxe-sroce | sroce-rxe | sroce-sroce) lossy_two+=("$p") ;;
		*) echo "rc-test: '$p' cannot be a lossy pairing" >&2; usage ;;
		esac
		case $p in *sroce*) need_sroce=1 ;; esac
		[[ " ${two[*]} " == *" $p "* ]] || two_lossy_only+=("$p")
	done
fi
[ $((${#two[@]} + ${#loops[@]})) -gt 0 ] || usage

if [ $dry = 1 ]; then	# the plan only: leave build/rc-FLAVOUR (maybe in use) alone
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
elif [ $reanalyze = 1 ]; then	# the verdicts of the last run, with the same options
	out=$top/build/rc-$flavour
	[ -s "$out/a.log" ] || { echo "rc-test: no run in $out to analyze" >&2; exit 2; }
else
	pair_setup rc "$flavour"
fi

# The rounds: name and netem options ("-": none).
cat >"$out/rc-rounds" <<'EOF'
clean -
loss1 loss 1%
mix loss 5% duplicate 1% delay 2ms reorder 10%
EOF
rounds=(clean)
[ $lossy = 0 ] || rounds+=(loss1 mix)

# Timeouts per check (s): TCG, and the debug kernel is slower again.
if [ "$flavour" = debug ]; then tp=240 ti=600; else tp=120 ti=300; fi
plan=$out/rc-plan
[ $reanalyze = 0 ] || plan=$(mktemp)	# the run's own plan.txt is used below
: >"$plan"
id=0
add() {	# ROUND PAIRING KIND TOOL SIZE ITERS LABEL [OPTIONS...]
	local t=$tp
	[ -z "$only" ] || [[ $7 =~ $only ]] || return 0
	[ "$3" != it ] || t=$ti
	echo "$id $1 $2 $3 $4 $5 $6 $t ${*:7}" >>"$plan"
	id=$((id + 1))
}
# nit FULL QUICK: the iteration count of the set asked for.
nit() { if [ $quick = 1 ]; then echo "$2"; else echo "$1"; fi; }
# full ...: a check of the full set only.
full() { [ $quick = 1 ] || "$@"; }
# Verified data: ibv_rc_pingpong (16 B goes inline), the integrity tool.
verified_checks() {	# ROUND PAIRING
	add "$1" "$2" pp ibv_rc_pingpong 16 "$(nit 200 100)" ibv_rc_pingpong/16/inline
	full add "$1" "$2" pp ibv_rc_pingpong 4096 100 ibv_rc_pingpong/4096
	add "$1" "$2" pp ibv_rc_pingpong 65536 "$(nit 20 5)" ibv_rc_pingpong/65536
	add "$1" "$2" it sroce_integrity - - sroce_integrity/all
}
clean_checks() {	# ROUND PAIRING
	local r=$1 p=$2 t
	verified_checks "$r" "$p"
	add "$r" "$p" pp ibv_rc_pingpong 4096 "$(nit 50 20)" ibv_rc_pingpong/4096/ipv6 @ipv6
	for t in ib_send_bw ib_write_bw ib_read_bw; do
		add "$r" "$p" pt $t 64 "$(nit 200 100)" $t/64
		full add "$r" "$p" pt $t 4096 100 $t/4096
		add "$r" "$p" pt $t 65536 "$(nit 20 5)" $t/65536
		add "$r" "$p" pt $t 262144 5 $t/262144
	done
	add "$r" "$p" pt ib_atomic_bw - "$(nit 200 100)" ib_atomic_bw/8
	for t in ib_send_lat ib_write_lat ib_read_lat; do
		add "$r" "$p" pt $t 64 "$(nit 100 50)" $t/64
		full add "$r" "$p" pt $t 4096 100 $t/4096
	done
	add "$r" "$p" pt ib_atomic_lat - "$(nit 100 50)" ib_atomic_lat/8
	add "$r" "$p" pt ib_write_bw 4096 "$(nit 50 20)" ib_write_bw/4096/q4 -q 4
	add "$r" "$p" pt ib_send_bw 4096 "$(nit 50 20)" ib_send_bw/4096/ipv6 @ipv6
	add "$r" "$p" pt ib_send_bw 64 "$(nit 200 100)" ib_send_bw/64/srq --use-srq
	full add "$r" "$p" it sroce_integrity - - sroce_integrity/all/psn-wrap -P 0xffff00
	ud_checks "$r" "$p"
	uc_checks "$r" "$p"
	cm_checks "$r" "$p"
}
# UD: datagrams of the port's MTU (1024 at the link's 1500), each way;
# ibv_ud_pingpong -c checks every byte after the GRH.
ud_checks() {	# ROUND PAIRING
	add "$1" "$2" pp ibv_ud_pingpong 1024 "$(nit 200 100)" ibv_ud_pingpong/1024
	add "$1" "$2" pp ibv_ud_pingpong 512 "$(nit 100 50)" ibv_ud_pingpong/512/ipv6 @ipv6
	add "$1" "$2" pt ib_send_bw 1024 "$(nit 200 100)" ib_send_bw/1024/ud -c UD
	full add "$1" "$2" pt ib_send_lat 64 100 ib_send_lat/64/ud -c UD
}
# UC: RC's packets with no ACK: ibv_uc_pingpong -c at 4 KiB (four
# packets a message at its 1024 path MTU), and over IPv6; perftest's UC
# WRITE and SEND bandwidth.
uc_checks() {	# ROUND PAIRING
	add "$1" "$2" pp ibv_uc_pingpong 4096 "$(nit 100 50)" ibv_uc_pingpong/4096
	full add "$1" "$2" pp ibv_uc_pingpong 1024 50 ibv_uc_pingpong/1024/ipv6 @ipv6
	add "$1" "$2" pt ib_write_bw 65536 "$(nit 20 10)" ib_write_bw/65536/uc -c UC
	add "$1" "$2" pt ib_send_bw 4096 "$(nit 50 20)" ib_send_bw/4096/uc -c UC
}
# The connection manager (rdma_cm over ib_cm over ib_mad on QP1): rping
# with its data verified, ucmatose (two RC connections), udaddy (UD,
# SIDR) and rdma_server/rdma_client, each over IPv4 and IPv6; mckey (UD
# multicast; rdma_cm refuses IPv6 multicast on RoCEv2); the integrity
# tool connecting through rdma_cm (-R) over IPv4 and IPv6, and perftest
# (-R) over IPv4: perftest 4.5-0.17 resolves its server's name as IPv4
# only ("Address family for hostname not supported", stock rxe too).
cm_checks() {	# ROUND PAIRING
	add "$1" "$2" cm rping - "$(nit 50 20)" cm/rping
	add "$1" "$2" cm rping - 20 cm/rping/ipv6 @ipv6
	add "$1" "$2" cm ucmatose - 10 cm/ucmatose
	add "$1" "$2" cm ucmatose - 4 cm/ucmatose/ipv6 @ipv6
	add "$1" "$2" cm udaddy - 10 cm/udaddy
	add "$1" "$2" cm udaddy - 4 cm/udaddy/ipv6 @ipv6
	add "$1" "$2" cm mckey - 10 cm/mckey
	add "$1" "$2" cm rdma_server - - cm/rdma_server
	add "$1" "$2" cm rdma_server - - cm/rdma_server/ipv6 @ipv6
	add "$1" "$2" it sroce_integrity - - cm/sroce_integrity -R
	add "$1" "$2" it sroce_integrity - - cm/sroce_integrity/ipv6 -R @ipv6
	add "$1" "$2" pt ib_send_bw 4096 "$(nit 50 20)" cm/ib_send_bw/4096 -R
	full add "$1" "$2" pt ib_write_bw 4096 50 cm/ib_write_bw/4096 -R
}
for r in "${rounds[@]}"; do
	rp=("${two[@]}")
	[ "$r" = clean ] || rp=("${lossy_two[@]}")
	for p in "${rp[@]}"; do
		if [ "$r" = clean ]; then
			clean_checks "$r" "$p"
		else
			# Not ibv_rc_pingpong: its client exits once it has the
			# last pong, and if the ACK of that pong is lost its server
			# retransmits to a QP that is gone (RETRY_EXC_ERR, or a
			# hang with stock rxe as the server): a race of the tool's
			# teardown, not of the link.  The integrity tool verifies
			# every byte and every completion and ends over TCP.
			add "$r" "$p" it sroce_integrity - - sroce_integrity/all
			# UC through the loss: messages are lost, never
			# delivered damaged, spliced or out of order (-m uc);
			# with sroce receiving.  Stock rxe as the UC receiver
			# drops every RDMA WRITE after one that lost a packet
			# (1% loss: 7 of 300 arrived, SENDs 284): its class D1
			# path (do_class_d1e_error) forgets the aborted
			# message's opcode only when a receive WQE is in hand,
			# so each later WRITE First is out of sequence.
			case $p in *-sroce) add "$r" "$p" it sroce_integrity - - sroce_integrity/uc -m uc ;; esac
			# One-way bulk traffic for the loss-episode counts (not
			# where netem reorders: every reordered frame is a NAK and a
			# go-back-N of the window, ~20 copies of each packet).
			[ "$r" = mix ] || add "$r" "$p" pt ib_write_bw 65536 "$(nit 20 10)" ib_write_bw/65536
		fi
	done
done
for p in "${loops[@]}"; do clean_checks clean "$p"; done
# From here on a two-VM pairing is one with any round.
two+=("${two_lossy_only[@]}")
if [ $reanalyze = 1 ]; then
	rm -f "$plan"
	plan=$out/plan.txt
	id=$(wc -l <"$plan")
else
	cp "$plan" "$out/plan.txt"
fi
n=$id
[ $dry = 0 ] || { cat "$plan"; exit 0; }

rc=0
if [ $reanalyze = 0 ]; then
"$top/tools/deps.sh" libibverbs-dev librdmacm-dev build-essential tshark
make -s -C "$top/tools/integrity" >&2 || { echo "rc-$flavour: 0 passed, 1 failed"; exit 1; }

# The VM budget: generous per check (a check is bounded by its own
# timeouts), plus boot.
budget=$((300 + n * 25))
[ "$flavour" = normal ] || budget=$((300 + n * 60))
args=(-A "$here/rc-guest.sh" -o "$out" -k "$flavour" -t "$budget"
	-f "$plan" -f "$out/rc-rounds" -f "$top/tools/integrity/sroce_integrity")
if [ ${#two[@]} -gt 0 ]; then args+=(-B "$here/rc-guest.sh"); else args+=(-1); fi
[ $need_sroce = 0 ] || args+=(-s "${ko_args[@]}")
all=("${two[@]}" "${loops[@]}")
echo "rc-test: $n checks, pairings ${all[*]}, rounds ${rounds[*]}, one ${two:+pair }boot" >&2
t0=$SECONDS
"$here/run-pair.sh" "${args[@]}" || rc=1
echo "rc-test: VM run took $((SECONDS - t0)) s" >&2
echo "$rc" >"$out/vm-rc"
fi
rc=$(cat "$out/vm-rc" 2>/dev/null || echo 1)

logs=("$out/a.log")
[ ${#two[@]} -eq 0 ] || logs+=("$out/b.log")
for l in "${logs[@]}"; do tr -d '\r' <"$l" >"$l.txt"; done
pass=0 fail=0
# One verdict per check: the client's line in a.log, the server's in
# b.log (loopback: both in a.log).
while read -r cid round pair kind tool size iters tmo label opts; do
	srvlog=$out/b.log.txt
	case $pair in loop-*) srvlog=$out/a.log.txt ;; esac
	c=$(awk -v i="$cid" '$1 == "RC-RESULT" && $2 == i && $3 == "client" { print $4 " " $5 }' "$out/a.log.txt")
	s=$(awk -v i="$cid" '$1 == "RC-RESULT" && $2 == i && $3 == "server" { print $4 " " $5 }' "$srvlog" 2>/dev/null)
	name="$round $pair ${label//\// }"
	if [ "${c%% *}" = 0 ] && [ "${s%% *}" = 0 ]; then
		echo "rc-check: PASS $name (${c#* } s)"
		pass=$((pass + 1))
	else
		echo "rc-check: FAIL $name (client ${c%% *}, server ${s%% *})" | sed 's/(client ,/(client no result,/; s/server )/server no result)/'
		fail=$((fail + 1))
	fi
done <"$plan"

# The capture: per two-VM check, the frames between its client's "start"
# and "done" control messages (TCP 21000+ID), counted by analyze.py.
if [ ${#two[@]} -gt 0 ] && [ -s "$out/link.pcap" ]; then
	# Not the UD, UC and CM checks: the capture checks are about the RC
	# requests and responses of one connection per check.
	awk '$3 !~ /^loop-/ && $9 !~ /(^|\/)(ibv_ud_pingpong|ibv_uc_pingpong|ud|uc|cm)(\/|$)/ {
		print $1 "/" $2 "/" $3 "/" $9, $5, $6, ($7 == "-" ? 0 : $7), 21000 + $1 }' "$plan" \
		>"$out/capture-workloads.txt"
	python3 "$top/tools/ackrate/analyze.py" "$out/link.pcap" "$out/capture-workloads.txt" \
		--json "$out/capture.json" >/dev/null 2>"$out/capture.err"
	if [ -s "$out/capture.json" ]; then
		# The invariants are read off the order of frames on the wire: a
		# round whose netem delays, reorders or duplicates frames moves
		# them (e.g. a NAK that VM B sent in time appears after the
		# missing packet's late copy), so only clean and loss-only
		# rounds are checked.
		checked=$(awk '$2 == "-" || ($2 == "loss" && NF == 3) { printf "%s ", $1 }' "$out/rc-rounds")
		python3 - "$out/capture.json" "$checked" "$rexmit_report" "$out/a.log.txt" "$top/tools/ackrate" \
			<<'PY' >"$out/capture.txt"
import json, sys
sys.path.insert(0, sys.argv[5])
import trace_episodes as TE
# Workloads where VM B sends requests too: analyze.py takes them for
# responses, so its invariants do not apply there.
TWO_WAY = ("ibv_rc_pingpong", "ib_send_lat", "ib_write_lat")
res = json.load(open(sys.argv[1]))
checked_rounds = sys.argv[2].split()
# VM A's own NAK, timer and go-back decisions on the lossy rounds (RC-TRACE).
with open(sys.argv[4], errors="replace") as f:
    traces = TE.parse(f)
TR_KEYS = ("naks", "unseen", "by_nak", "left_to_timer", "not_acted", "duplicate", "dropped")
groups = {}
for r in res:
    cid, rnd, pair, label = r["workload"].split("/", 3)
    naks = sum(r["naks_by_code"].values())
    v = r["violations"]
    two_way = label.split("/")[0] in TWO_WAY
    note = ""
    if v:
        why = ("not checked (B sends too), " if two_way else
               "not checked (netem reorders), " if rnd not in checked_rounds else "")
        note = f"; {why}violations: {'; '.join(v[:3])}"
    print(f"rc-capture: {rnd} {pair} {label.replace('/', ' ')}: {r['request_packets']} request packets, "
          f"{r['duplicate_requests']} retransmitted PSNs, {naks} NAKs, {r['rnr_naks']} RNR NAKs, "
          f"{r['acks']} ACKs, {r['atomic_acks']} ATOMIC ACKs{note}")
    g = groups.setdefault((rnd, pair), {"req": 0, "dup": 0, "viol": 0, "first": None,
                                        "atomics": 0, "atomic_acks": 0, "ep": 0, "announced": 0,
                                        "by_nak": 0, "by_timer": 0, "announced_by_timer": 0,
                                        "resend_lost": 0, "ignored": 0, "nak_counts": {},
                                        "tr_missing": 0, **{"tr_" + k: 0 for k in TR_KEYS}})
    g["req"] += r["request_packets"]
    g["dup"] += r["duplicate_requests"]
    for k in ("timer", "nak", "early"):
        g["b_" + k] = g.get("b_" + k, 0) + r["rexmit_bursts_" + k]
    if r["rexmit_early"] and not g.get("early_first"):
        g["early_first"] = f"{label}: {r['rexmit_early'][0]}"
    if label.split("/")[0] in ("ib_atomic_bw", "ib_atomic_lat"):
        g["atomics"] += r["request_packets"]
        g["atomic_acks"] += r["atomic_acks"]
    if two_way:
        continue
    g["ep"] += r["loss_episodes"]
    g["announced"] += r["episodes_announced"]
    g["by_nak"] += r["episodes_by_nak"]
    g["by_timer"] += r["episodes_by_timer"]
    g["announced_by_timer"] += r["announced_by_timer"]
    g["resend_lost"] += r["resend_lost"]
    g["ignored"] += r["nak_ignored"]
    for k, n in r["naks_per_episode"].items():
        g["nak_counts"][k] = g["nak_counts"].get(k, 0) + n
    if rnd != "clean" and pair.startswith("sroce-"):
        tr = traces.get(cid)
        if tr is None or not tr["total"] or tr["overrun"] or tr["unavailable"]:
            g["tr_missing"] += 1
        else:
            m = TE.match(tr["events"], r.get("seq_naks", []))
            for k in TR_KEYS:
                g["tr_" + k] += m[k]
    g["viol"] += len(v)
    if v and not g["first"]:
        g["first"] = f"{label}: {v[0]}"
for (rnd, pair), g in groups.items():
    if rnd in checked_rounds:
        ok = g["viol"] == 0 and g["req"] > 0
        why = g["first"] or ("no request packets captured" if not g["req"] else "")
        print(f"RC-CAPTURE-CHECK {'PASS' if ok else 'FAIL'} {rnd} {pair} capture go-back-N invariants "
              f"({g['req']} request packets{'; ' + why if why else ''})")
    else:
        print(f"rc-capture: {rnd} {pair}: {g['viol']} go-back-N invariant violations on the one-way "
              f"workloads (information only: this round's netem delays, reorders or duplicates "
              f"frames before the capture)")
    if rnd != "clean":
        # Loss episodes of the one-way workloads (analyze.py): how many a
        # sequence NAK announced, NAKs per announced episode, and whether
        # the NAK or only the retransmit timer recovered each.
        naks = ", ".join(f"{n} with {k} NAK{'s' if k != '1' else ''}"
                         for k, n in sorted(g["nak_counts"].items()))
        desc = (f"{g['ep']} loss episodes, {g['announced']} announced by a NAK ({naks or 'none'}); "
                f"by the wire's clock: recovered within half the timeout of the NAK {g['by_nak']}, "
                f"later {g['by_timer']} ({g['announced_by_timer']} of them announced, "
                f"{g['resend_lost']} whose retransmission was lost again), new data sent more "
                f"than 25 ms after the NAK {g['ignored']}")
        trd = (f"by the requester's trace: {g['tr_naks']} sequence NAKs to it, {g['tr_by_nak']} gone "
               f"back on, {g['tr_left_to_timer']} left to the timer, {g['tr_unseen']} never "
               f"reaching the completer, {g['tr_not_acted']} not followed by the go-back, "
               f"{g['tr_duplicate']} duplicates, {g['tr_dropped']} dropped; "
               f"{g['tr_missing']} checks without a whole trace")
        if rnd in checked_rounds and pair.startswith("sroce-"):
            # The NAK count per episode, from the wire; from the
            # requester's own trace, in the order its QP task decided:
            # every sequence NAK reached the completer, each was followed
            # by the go-back from its PSN, and none found the retransmit
            # timer gone back already.  The wire's clock (how soon after
            # the NAK) depends on how the host schedules the VMs: reported.
            ok = (g["ep"] > 0 and set(g["nak_counts"]) <= {"1"} and g["tr_missing"] == 0 and
                  g["tr_naks"] > 0 and g["tr_unseen"] == 0 and g["tr_not_acted"] == 0 and
                  g["tr_left_to_timer"] == 0)
            print(f"RC-CAPTURE-CHECK {'PASS' if ok else 'FAIL'} {rnd} {pair} capture one NAK per "
                  f"loss episode, every NAK acted on, none left to the timer ({trd}; {desc})")
        else:
            why = "the requester is stock rxe" if not pair.startswith("sroce-") else \
                "this round's netem reorders"
            extra = f"{trd}; " if pair.startswith("sroce-") else ""
            print(f"rc-capture: {rnd} {pair}: {extra}{desc} (information only: {why})")
    if rnd == "clean" and g["atomics"]:
        ok = g["atomics"] == g["atomic_acks"]
        print(f"RC-CAPTURE-CHECK {'PASS' if ok else 'FAIL'} {rnd} {pair} capture one ATOMIC ACK per ATOMIC "
              f"({g['atomic_acks']} ATOMIC ACKs for {g['atomics']} ATOMIC requests of ib_atomic_bw/_lat)")
    bursts = (f"{g['dup']} retransmitted PSNs of {g['req']} request packets, in "
              f"{g['b_timer']} bursts after a timeout, {g['b_nak']} after a NAK, "
              f"{g['b_early']} with neither")
    if rnd == "clean" and pair.startswith("sroce-") and sys.argv[3] == "1":
        print(f"rc-capture: {rnd} {pair}: {bursts} (reported, not checked: --retransmits=report)")
    elif rnd == "clean" and pair.startswith("sroce-"):
        # On a clean link nothing is lost, so nothing may be resent: not
        # after a NAK, not after progress (a stale expiry, an ignored ACK),
        # and not after a timeout either, which on a clean link means the
        # requester let packets wait unrequested (before the AckReq on a
        # pass's last packet, 16 packets of ib_write_bw -q 4 waited out the
        # 67 ms timer behind the other QPs' passes on the debug kernel).
        ok = g["dup"] == 0 and g["req"] > 0
        why = f"; first early: {g['early_first']}" if g.get("early_first") else ""
        print(f"RC-CAPTURE-CHECK {'PASS' if ok else 'FAIL'} {rnd} {pair} capture no retransmitted "
              f"PSN ({bursts}{why})")
    else:
        why = "the requester is stock rxe" if rnd == "clean" else "a lossy link"
        print(f"rc-capture: {rnd} {pair}: {g['dup']} retransmitted PSNs in all (information only: {why})")
PY
		grep -v '^RC-CAPTURE-CHECK' "$out/capture.txt"
		while read -r _ v rest; do
			echo "rc-check: $v $rest"
			if [ "$v" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
		done < <(grep '^RC-CAPTURE-CHECK' "$out/capture.txt")
	else
		echo "rc-check: FAIL capture analysis ($(tail -n1 "$out/capture.err"))"
		fail=$((fail + 1))
	fi
fi
# The checkers on made-up input: analyze.py's sequence NAK rule on frames,
# the trace matcher behind the loss-episode check on traces.
for sc in "analyze capture checker" "trace_episodes trace matcher"; do
	py=${sc%% *} what=${sc#* }
	if python3 "$top/tools/ackrate/$py.py" --self-test >"$out/$py-selftest.txt" 2>&1; then
		echo "rc-check: PASS $what self-test"
		pass=$((pass + 1))
	else
		echo "rc-check: FAIL $what self-test: $(grep FAIL "$out/$py-selftest.txt" | head -n 3 | tr '\n' ' ')"
		fail=$((fail + 1))
	fi
done
grep -ah '^RC-NETEM .*FAIL\|^# ' "${logs[@]/%/.txt}" | head -n 60 >&2 || true
pair_verdict "rc-$flavour" $rc $pass $fail

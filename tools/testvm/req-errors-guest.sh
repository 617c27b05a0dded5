#!/bin/sh
# Guest side of the requester error-path test (tools/testvm/req-errors-test.sh).
# VM A runs the client of every sroce_integrity -m MODE below on sroce0:
# its requester and completer are the ones under test; VM B serves each
# mode on its provider (stock rxe or sroce, /sroce/peer names it for A).
# VM A checks its own counters (rdma statistic) around each mode and the
# RNR waits in the sroce:sroce_comp_decision / sroce:sroce_req_packet
# trace, then tears down a QP with sends in flight and timers armed by
# killing its process, deletes the device, unloads sroce and scans
# kmemleak.  Prints KTAP (guest-lib.sh): its checks, and each run of the
# tool, whose own KTAP document is a subtest.
. /sroce/guest-lib.sh
T=/sroce/sroce_integrity
read -r PEER_PROV </sroce/peer
MODES="retry_exc rnr_timer rnr_exc bad_lkey read_mr_range read_no_lwrite
	atomic_short atomic_unaligned bad_rkey oob_write oob_read mr_access
	destroy_qp sq_num_sge sq_opcode sq_length sq_lkey sq_inline sq_prod
	destroy_armed"
# hostile rewrites the server's receive ring: only where the server is
# sroce (stock rxe reads its receive WQEs in place).
# rnr (a 3-packet SEND into RNR NAKs) likewise: a stock rxe responder
# answers the trailing packets with a PSN-sequence NAK every round, and
# sroce's completer counts those against retry_cnt (RETRY_EXC_ERR after
# 8 rounds); see tools/integrity/README.md.
[ "$PEER_PROV" = sroce ] && MODES="$MODES hostile rnr"
# wedged and armed run after the loop below, in this order (B serves in
# list order).
MODES="$MODES wedged armed"
fail=0
ok() { ktap_ok "$*"; }
bad() { ktap_fail "$*"; fail=1; }

# One TCP port per mode, in list order, keeps the two VMs in step.
port_of() {
	i=0
	for m in $MODES; do
		[ "$m" = "$1" ] && { echo $((18900 + i)); return; }
		i=$((i + 1))
	done
}

net_up || exit 10
ktap_begin	# the plan at the end; an early exit leaves it truncated
load_provider "$PROVIDER" || exit 11
echo "req-errors: VM $ROLE on $PROVIDER ($DEV), peer on $PEER_PROV"

if [ "$ROLE" = B ]; then
	for m in $MODES; do
		echo "req-errors: server $m"
		ktap_run "server $m" $T -m "$m" -d "$DEV" -g "$GIDX" -p "$(port_of "$m")" || fail=1
	done
	dump_stats end
	ktap_end
	exit $fail
fi

snap() { rdma statistic show link "$DEV/1" >"/tmp/stats.$1" 2>&1; }
deltas() {
	awk 'NR == FNR { for (i = 3; i < NF; i += 2) b[$i] = $(i + 1); next }
	     { for (i = 3; i < NF; i += 2) print $i, $(i + 1) - b[$i] }' \
		"/tmp/stats.before.$1" "/tmp/stats.after.$1" >"/tmp/delta.$1"
}
expect() {
	d=$(awk -v n="$2" '$1 == n { v = $2; f = 1 } END { print f ? v + 0 : "none" }' "/tmp/delta.$1")
	if [ "$d" != none ] && test "$d" "$3" "$4"; then ok "$1: $2 delta $d ($3 $4)"
	else bad "$1: $2 delta $d, expected $3 $4"; fi
}

TR=/sys/kernel/tracing
mount -t tracefs nodev $TR 2>/dev/null
EVS="sroce_comp_decision sroce_req_packet"
trace_on() {
	echo 8192 >$TR/buffer_size_kb
	echo >$TR/trace
	for e in $EVS; do echo 1 >$TR/events/sroce/$e/enable || return 1; done
}
trace_off() { for e in $EVS; do echo 0 >$TR/events/sroce/$e/enable; done; }

# rnr_check: every RNR NAK (syndrome 001xxxxx) of the trace is followed
# by a retransmission (retry=1) of the same QP no sooner than the NAK's
# timer (26: 81.92 ms, IBA 9.7.5.2.8: the requester waits at least that
# long).  The trace event of the NAK comes before the timer is armed and
# that of the retry after it fires, so the gap can only overstate the
# wait: no slack but 50 us.
rnr_check() {
	awk '
	function ts(   f) { for (f = 1; f <= NF; f++) if ($f ~ /^[0-9]+\.[0-9]+:$/) return substr($f, 1, length($f) - 1) + 0; return -1 }
	function hex(x,   i, v, c) { v = 0; x = tolower(x); sub(/^0x/, "", x)
		for (i = 1; i <= length(x); i++) { c = index("0123456789abcdef", substr(x, i, 1)); if (!c) break; v = v * 16 + c - 1 }
		return v }
	function field(k,   f) { for (f = 1; f <= NF; f++) if (index($f, k "=") == 1) return substr($f, length(k) + 2); return "" }
	/sroce_comp_decision:/ {
		syn = hex(field("syndrome"))
		if (syn >= 32 && syn < 64) { nak[field("qpn")] = ts(); naks++ }
	}
	/sroce_req_packet:/ && field("retry") == "1" {
		q = field("qpn")
		if (q in nak) {
			gap = ts() - nak[q]; delete nak[q]; n++
			if (min == "" || gap < min) min = gap
		}
	}
	END { printf "%d %d %.6f\n", naks, n, min == "" ? -1 : min }' "$1"
}

for m in $MODES; do
	case $m in armed | wedged) continue ;; esac
	echo "req-errors: client $m"
	if [ "$m" = rnr_timer ]; then
		trace_on && ok "rnr_timer: tracepoints enabled" || bad "rnr_timer: cannot enable the sroce tracepoints"
	fi
	snap "before.$m"
	t0=$(date +%s)
	if ktap_run "client $m" $T -m "$m" -d "$DEV" -g "$GIDX" -p "$(port_of "$m")" "$PEER_IP"; then
		ok "$m: client side completed ($(( $(date +%s) - t0 )) s)"
	else
		bad "$m: client side failed"
	fi
	snap "after.$m"
	deltas "$m"
	echo "req-errors: $m counter deltas:$(awk '$2 != 0 { printf " %s=+%d", $1, $2 }' "/tmp/delta.$m")"
	case $m in
	retry_exc)	# retry_cnt 3: four expiries, the last one fails the WQE
		expect $m comp_timeouts -eq 4
		expect $m req_timeouts -eq 4
		expect $m wc_retry_exc_err -eq 1
		expect $m wc_wr_flush_err -eq 3	# two behind it, one posted in Error
		expect $m req_retransmits -ge 3 ;;
	rnr)
		expect $m comp_rnr_nak -ge 1
		expect $m req_rnr_waits -ge 1 ;;
	rnr_timer)	# ~1000 ms without a receive, 81.92 ms per wait: <= 14 NAKs
		trace_off
		cp $TR/trace /tmp/trace.rnr
		expect $m comp_rnr_nak -ge 2
		expect $m comp_rnr_nak -le 14
		expect $m req_rnr_waits -ge 2
		set -- $(rnr_check /tmp/trace.rnr)
		echo "req-errors: rnr_timer trace: $1 RNR NAKs, $2 retries after one, shortest gap $3 s"
		if [ "$2" -ge 2 ] && awk -v g="$3" 'BEGIN { exit !(g >= 0.08192 - 0.00005) }'; then
			ok "rnr_timer: every retry after an RNR NAK waited >= 81.92 ms (shortest $3 s, $2 retries)"
		else
			bad "rnr_timer: retries after an RNR NAK: $2, shortest gap $3 s (want >= 2 and >= 0.08192 s)"
			grep -E 'sroce_(comp_decision|req_packet)' /tmp/trace.rnr | head -n 40
		fi
		echo >$TR/trace ;;
	rnr_exc)	# rnr_retry 1: two RNR NAKs, one wait
		expect $m comp_rnr_nak -eq 2
		expect $m req_rnr_waits -eq 1
		expect $m wc_rnr_retry_exc_err -eq 1
		expect $m wc_wr_flush_err -eq 1 ;;
	bad_lkey | read_mr_range | read_no_lwrite)	# refused before the wire
		expect $m req_packets -eq 0
		expect $m wc_loc_prot_err -eq 1
		expect $m wc_wr_flush_err -eq 1 ;;
	atomic_short)	# only the marker READ goes out
		expect $m req_packets -eq 1
		expect $m wc_loc_len_err -eq 1
		expect $m wc_wr_flush_err -eq 1 ;;
	atomic_unaligned)
		expect $m comp_nak_invalid_req -eq 1
		expect $m wc_rem_inv_req_err -eq 1
		expect $m wc_wr_flush_err -eq 1 ;;
	bad_rkey | oob_write | oob_read | mr_access)
		expect $m comp_nak_rem_access_err -eq 1 ;;
	hostile)
		expect $m comp_nak_rem_op_err -eq 1 ;;
	destroy_qp)
		expect $m comp_timeouts -eq 3 ;;
	sq_*)
		expect $m comp_drop_ghost -eq 0
		expect $m comp_drop_duplicate -eq 0 ;;
	esac
done

# A link that stops sending under a stream of WRITEs.  The stream runs
# over a slow link (netem slots of 8 packets every 10 ms), where the IP
# stack keeps 64 of the requester's packets and it holds back; then the
# link stops (one packet per 1000 s: the qdisc holds every packet, as a
# wedged NIC queue would).  netem's slots keep each packet charged to its
# sender until it leaves (a delay or a rate would orphan it at once).
# The requester's retransmit timer must still
# run out the retries (RETRY_EXC_ERR), and ibv_destroy_qp must not wait
# for the packets in the qdisc (they once held the QP: the client hung in
# D state); while the stack keeps them they hold a reference to sroce (its
# module's destructor is theirs).  Deleting the qdisc frees them, the QP
# long gone, and the reference with them.
refcnt() { cat /sys/module/sroce/refcnt; }
TC=/usr/sbin/tc
# wait_out FILE PATTERN TENTHS: until the client $cpid printed PATTERN
# (at most TENTHS tenths of a second, or until it ended); its status.
wait_out() {
	i=0
	until grep -q "$2" "$1"; do
		i=$((i + 1))
		[ $i -lt "$3" ] && kill -0 "$cpid" 2>/dev/null || { grep -q "$2" "$1"; return; }
		sleep 0.1
	done
}
echo "req-errors: client wedged"
snap before.wedged
ref_base=$(refcnt)
$TC qdisc replace dev eth0 root netem slot 10ms 10ms packets 8 limit 10000 ||
	bad "wedged: cannot slow the link down"
$T -m wedged -d "$DEV" -g "$GIDX" -p "$(port_of wedged)" "$PEER_IP" >/tmp/wedged.out 2>&1 &
cpid=$!
if wait_out /tmp/wedged.out '^# wedged: streaming' 1200 &&
	ref_run=$(refcnt) && $TC qdisc change dev eth0 root netem slot 1000s 1000s packets 1 limit 10000; then
	ok "wedged: WRITEs streaming, then the link stopped"
else
	bad "wedged: the client never streamed, or the link could not be stopped"
fi
if wait_out /tmp/wedged.out '^# wedged: QP destroyed' 600; then
	ok "wedged: the QP failed and was destroyed, its packets still in the qdisc"
	ref_held=$(refcnt)
	if [ "$ref_held" -eq $((ref_run + 1)) ]; then
		ok "wedged: the destroyed QP's packets in the qdisc hold sroce (refcnt $ref_run -> $ref_held)"
	else
		bad "wedged: sroce's refcnt $ref_run while streaming, $ref_held with the destroyed QP's packets in the qdisc (want one more)"
	fi
else
	bad "wedged: no QP destroy within 60 s of the stop (client $(awk '$1 == "State:" { print $2 }' "/proc/$cpid/status" 2>/dev/null))"
	sed 's/^/# wedged client stack: /' "/proc/$cpid/stack" 2>/dev/null
fi
echo "# wedged qdisc: $($TC -s qdisc show dev eth0 | tr '\n' ' ' | tr -s ' ')"
$TC qdisc del dev eth0 root 2>/dev/null
wait "$cpid"
crc=$?
ktap_run "client wedged" sh -c 'cat /tmp/wedged.out; exit "$1"' sh "$crc"
i=0
while [ "$(refcnt)" -ne "$ref_base" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$(refcnt)" -eq "$ref_base" ]; then
	ok "wedged: the packets freed with the qdisc, sroce's refcnt back to $ref_base"
else
	bad "wedged: sroce's refcnt $(refcnt) after the qdisc went and the client ended, $ref_base before"
fi
snap after.wedged
deltas wedged
echo "req-errors: wedged counter deltas:$(awk '$2 != 0 { printf " %s=+%d", $1, $2 }' /tmp/delta.wedged)"
expect wedged req_tx_throttled -ge 1	# it held back for the stack
expect wedged req_timeouts -ge 8	# retry_cnt 7: the eighth expiry fails the WRITE
expect wedged wc_retry_exc_err -eq 1
expect wedged wc_wr_flush_err -eq 47

# Teardown with sends in flight and the retransmit timer armed: the
# process dies (uverbs destroys its QP), the device is deleted, sroce
# unloaded.  Nothing may hang or leak.
echo "req-errors: client armed"
$T -m armed -d "$DEV" -g "$GIDX" -p "$(port_of armed)" "$PEER_IP" >/tmp/armed.out 2>&1 &
cpid=$!
if wait_out /tmp/armed.out '^# armed: sends in flight' 1800; then
	ok "armed: WRITEs in flight to a silent peer"
else
	bad "armed: the client never got its WRITEs in flight"
fi
rdma statistic show link "$DEV/1" | tr ' ' '\n' | grep -A1 -x 'req_timeouts\|req_retransmits' | tr '\n' ' '; echo
rm -f /tmp/del.rc
(rdma link delete "$DEV" >/tmp/del.out 2>&1; echo $? >/tmp/del.rc) &
sleep 1
kill -9 $cpid 2>/dev/null
wait $cpid
sed 's/^/# armed-client: /' /tmp/armed.out
i=0
while [ ! -e /tmp/del.rc ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$(cat /tmp/del.rc 2>/dev/null)" = 0 ]; then
	ok "armed: rdma link delete completed after the killed client ($((i / 10)) s)"
else
	bad "armed: rdma link delete did not complete (rc $(cat /tmp/del.rc 2>/dev/null || echo pending))"
	cat /tmp/del.out
fi
[ -e /tmp/del.rc ] && wait
if rmmod sroce; then ok "armed: rmmod sroce"; else bad "armed: rmmod sroce"; fi
leak_check "kmemleak reports nothing after the unload" || fail=1
ktap_end
echo "req-errors: done, fail=$fail"
exit $fail

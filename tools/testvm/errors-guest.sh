#!/bin/sh
# Guest side of the error-path test (tools/testvm/errors-test.sh).
# VM B serves every scenario of sroce_integrity -m MODE in turn on sroce0
# and checks sroce's counters around each; VM A runs the matching clients
# on stock rxe (misaligned_atomic and malformed send hand-built packets
# from a raw socket).  Then VM B tears the device down while an idle client is
# connected.  Prints KTAP (guest-lib.sh): its checks, and each run of the
# tool, whose own KTAP document is a subtest.
. /sroce/guest-lib.sh
T=/sroce/sroce_integrity
MODES="rnr bad_rkey oob_write oob_read destroy_qp misaligned_atomic malformed resize_cq
	hostile mr_access"
fail=0
ok() { ktap_ok "$*"; }
bad() { ktap_fail "$*"; fail=1; }

# One fixed TCP port per mode keeps the two VMs in step: a client never
# reaches the server of another mode; it retries the connect for 60 s.
port_of() {
	case $1 in
	rnr) echo 18801 ;; bad_rkey) echo 18802 ;; oob_write) echo 18803 ;;
	oob_read) echo 18804 ;; destroy_qp) echo 18805 ;; idle) echo 18806 ;;
	misaligned_atomic) echo 18807 ;; malformed) echo 18808 ;;
	resize_cq) echo 18809 ;; hostile) echo 18810 ;; mr_access) echo 18811 ;;
	esac
}

net_up || exit 10
ktap_begin	# the plan at the end; an early exit leaves it truncated

if [ "$ROLE" = A ]; then
	load_provider rxe || exit 11
	for m in $MODES idle; do
		echo "errors-test: client $m"
		ktap_run "client $m" $T -m "$m" -d "$DEV" -g "$GIDX" -p "$(port_of "$m")" "$PEER_IP" ||
			fail=1
	done
	dump_stats end
	ktap_end
	exit $fail
fi

load_provider sroce || exit 11

# Counter snapshots: "link sroce0/1 name value name value ..." on one line.
# Few processes per mode: the next mode's client gives the server a
# bounded time to be listening, and a fork costs a lot on the TCG debug
# kernel.
snap() { rdma statistic show link "$DEV/1" >"/tmp/stats.$1" 2>&1; }
# deltas MODE: "name change" for every counter, into /tmp/delta.MODE
deltas() {
	awk 'NR == FNR { for (i = 3; i < NF; i += 2) b[$i] = $(i + 1); next }
	     { for (i = 3; i < NF; i += 2) print $i, $(i + 1) - b[$i] }' \
		"/tmp/stats.before.$1" "/tmp/stats.after.$1" >"/tmp/delta.$1"
}
# The spec rule a mode's responses answer to, in front of its check names
# (sets lab; no subshell).
label() {
	case $1 in
	rnr) lab="C9-113 $1" ;;
	misaligned_atomic) lab="C9-121 $1" ;;
	bad_rkey | oob_write | oob_read | mr_access) lab="C9-124 $1" ;;
	hostile) lab="C9-125 $1" ;;
	*) lab=$1 ;;
	esac
}
# expect MODE NAME OP VALUE: check the change of one counter
expect() {
	d=$(awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }' "/tmp/delta.$1")
	label "$1"
	if test "$d" "$3" "$4"; then ok "$lab: $2 delta $d ($3 $4)"
	else bad "$lab: $2 delta $d, expected $3 $4"; fi
}
# All counters that changed, for the log.
show_deltas() {
	deltas "$1"
	echo "errors-test: $1 counter deltas:$(awk '$2 != 0 { printf " %s=+%d", $1, $2 }' "/tmp/delta.$1")"
}

# The response tracepoint (sroce:sroce_response) records every decision of
# the misaligned_atomic scenario; its NAK must show up with its rule.
TR=/sys/kernel/tracing
mount -t tracefs nodev $TR 2>/dev/null
trace_on() { echo >$TR/trace && echo 1 >$TR/events/sroce/sroce_response/enable; }
trace_off() { echo 0 >$TR/events/sroce/sroce_response/enable; }

for m in $MODES; do
	echo "errors-test: server $m"
	if [ $m = misaligned_atomic ]; then
		if trace_on; then ok "tracepoint sroce:sroce_response enabled"
		else bad "cannot enable tracepoint sroce:sroce_response"; fi
	fi
	snap "before.$m"
	if ktap_run "server $m" $T -m "$m" -d "$DEV" -g "$GIDX" -p "$(port_of "$m")"; then
		label "$m"; ok "$lab: server side completed"
	else
		label "$m"; bad "$lab: server side failed"
	fi
	snap "after.$m"
	show_deltas "$m"
	case $m in
	rnr)
		expect rnr resp_rnr_nak -ge 1
		expect rnr resp_nak -eq 0	# no sequence NAK after the RNR NAK
		expect rnr nak_psn_seq_err -eq 0
		expect rnr resp_qp_error -eq 0 ;;
	bad_rkey)
		expect bad_rkey nak_rem_access_err -eq 1
		expect bad_rkey resp_qp_error -eq 1 ;;
	oob_write)
		expect oob_write nak_rem_access_err -eq 1 ;;
	oob_read)
		expect oob_read nak_rem_access_err -eq 1 ;;
	destroy_qp)
		expect destroy_qp rx_drop_no_qp -gt 0 ;;
	misaligned_atomic)	# C9-121; then the QP is in Error
		trace_off
		grep sroce_response $TR/trace | sed 's/^/errors-test: trace: /'
		n=$(grep -cE 'sroce_response: qpn=0x[0-9a-f]+ nak psn=0x[0-9a-f]+ msn=0 syndrome=0x61 rule=C9-121$' $TR/trace)
		label "$m"
		if [ "$n" = 1 ]; then ok "$lab: one trace event for the NAK, rule C9-121"
		else bad "$lab: $n trace events 'nak ... syndrome=0x61 rule=C9-121', expected 1"; fi
		expect $m nak_invalid_req -eq 1
		expect $m resp_qp_error -eq 1
		expect $m resp_atomic_ack -eq 0
		expect $m rx_drop_qp_state -eq 1 ;;
	malformed)	# each hand-built packet under its own reason
		for r in too_short bad_tver bad_pkey bad_opcode \
			bad_pad bad_icrc no_qp qp_state bad_addr; do
			expect $m rx_drop_$r -eq 1
		done
		# The Acknowledge answers nothing the QP sent: the completer
		# drops it, a ghost or a duplicate by where its PSN falls.
		awk '$1 == "comp_drop_ghost" || $1 == "comp_drop_duplicate" { s += $2 }
		     END { print "comp_drop_ghost_or_duplicate", s + 0 }' "/tmp/delta.$m" >>"/tmp/delta.$m"
		expect $m comp_drop_ghost_or_duplicate -eq 1
		expect $m rx_drop_sq_state -eq 0
		expect $m rx_drop_core -eq 0
		expect $m resp_nak -eq 0
		expect $m resp_qp_error -eq 0
		expect $m resp_read_only -eq 1 ;;
	resize_cq)
		expect $m resp_nak -eq 0
		expect $m resp_rnr_nak -eq 0 ;;
	hostile)	# the rewritten receive WQE: remote operational error
		expect $m nak_rem_op_err -eq 1
		expect $m resp_qp_error -eq 1 ;;
	mr_access)
		expect $m resp_read_only -eq 1
		expect $m nak_rem_access_err -eq 1
		expect $m resp_qp_error -eq 1 ;;
	esac
done
dump_stats end

# Teardown with a connected client: the device delete must wait for the
# open user context, finish once its process is gone, then rmmod works.
echo "errors-test: teardown with a connected client"
$T -m idle -d "$DEV" -g "$GIDX" -p "$(port_of idle)" >/tmp/idle.out 2>&1 &
spid=$!
i=0
until grep -q '^# idle: connected' /tmp/idle.out; do
	i=$((i + 1))
	if [ $i -ge 1200 ] || ! kill -0 $spid 2>/dev/null; then break; fi
	sleep 0.1
done
if grep -q '^# idle: connected' /tmp/idle.out; then
	ok "idle server connected"
else
	bad "idle server did not connect"
fi
rm -f /tmp/del.rc
(rdma link delete "$DEV" >/tmp/del.out 2>&1; echo $? >/tmp/del.rc) &
sleep 2
if [ -e /tmp/del.rc ]; then
	bad "rdma link delete returned (rc $(cat /tmp/del.rc)) while a user context was open"
else
	ok "rdma link delete waits while a user context is open"
fi
kill $spid 2>/dev/null
wait $spid
echo "errors-test: idle server exited with status $?"
i=0
while [ ! -e /tmp/del.rc ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$(cat /tmp/del.rc 2>/dev/null)" = 0 ]; then
	ok "rdma link delete completed after the server exited"
else
	bad "rdma link delete did not complete (rc $(cat /tmp/del.rc 2>/dev/null || echo pending))"
	cat /tmp/del.out
fi
[ -e /tmp/del.rc ] && wait
if [ -e "/sys/class/infiniband/$DEV" ]; then bad "device $DEV still present"; else ok "device $DEV gone"; fi
if rmmod sroce; then ok "rmmod sroce"; else bad "rmmod sroce"; fi
sed 's/^/# idle-server: /' /tmp/idle.out
ktap_end
echo "errors-test: done, fail=$fail"
exit $fail

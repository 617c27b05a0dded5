#!/bin/sh
# Guest side of the RC pairing test (tools/testvm/rc-test.sh).
#
# /sroce/rc-plan (made by tools/testvm/rc_plan.py from its table) has one
# check per line, in the order both VMs run them:
#	ID ROUND PAIRING KIND TOOL SIZE ITERS TIMEOUT LABEL [OPTIONS...]
# KIND: pp (an ibv_*_pingpong tool, -c: it checks the data), pt (a
# perftest tool), it (sroce_integrity), cm (an rdma_cm tool of
# rdmacm-utils: rping -V, ucmatose, udaddy, rdma_server with rdma_client;
# "@ipv6" there connects to the peer's IPv6 address);
# SIZE "-": the tool's default; "@ipv6" among the OPTIONS: the IPv6
# RoCEv2 GIDs.  The check's tool uses TCP port 19000+ID, its control
# messages 21000+ID.  /sroce/rc-rounds names each ROUND's netem options
# ("-": a clean link).
#
# PAIRING "X-Y": VM A runs provider X and the client (the requester
# side), VM B provider Y and the server.  "loop-X": VM A alone runs both
# ends on one device of provider X (VM B sits it out; with run-pair.sh -1
# there is no VM B).  A run of checks with the same ROUND and PAIRING is a
# phase: each VM sets its netem qdisc and loads its provider (unloading
# the other one, they exclude each other), and on a two-VM phase the VMs
# exchange their status first (TCP 23000+2*phase and the next port), so a
# side that could not set up fails the phase's checks at once instead of
# leaving the peer waiting.
#
# Per check, the client sends "start" and, after its tool exited, "done
# RC" to the server's control port; the server starts its tool after
# "start", answers "listening" once the tool listens (serving(); not for
# mckey), when the client starts its own, and gives it a grace period
# after "done" (30 s if the client passed, 3 s if not), then kills it: a client that fails never leaves
# its server hanging, and every tool runs under a timeout.  "again"
# instead of "done": the check runs again (run_client), the server is
# stopped and starts anew on the next "start".  Each side
# prints
#	RC-RESULT ID client|server RC SECONDS
# (the host passes a check only if both ends exited 0; RC "skip": not
# run, its phase failed to set up) and, on failure, the tool's output as
# "# ID ..." lines; the perftest client's result as RC-BW ID <line>.
# Exits non-zero if any of its own ends failed.
. /sroce/guest-lib.sh

fail=0
phase=-1
cur_round= cur_pair= cur_prov= mode= phase_ok=0
NC=nc.openbsd
# Not busybox's tc applet, which the shell would prefer.
TC=/usr/sbin/tc

now() { read -r up _ </proc/uptime; echo "${up%.*}"; }

# send_ctl HOST PORT MESSAGE: one line to a listening peer; retried every
# 0.1 s while the peer is not listening yet (up to 5 minutes: the peer
# may still be ending its previous check).
send_ctl() {
	t=$(now)
	while ! echo "$3" | $NC -N -w 10 "$1" "$2" 2>/dev/null; do
		[ $(($(now) - t)) -lt 300 ] || { echo "rc-guest: no listener on $1:$2 for '$3'"; return 1; }
		sleep 0.1
	done
}
# recv_ctl PORT SECONDS: print the line a peer sends to PORT.
recv_ctl() {
	timeout "$2" $NC -l "$1" </dev/null 2>/dev/null
}

netem_args() {
	while read -r name args; do
		[ "$name" = "$1" ] && { echo "$args"; return 0; }
	done </sroce/rc-rounds
	echo "?"
}

# netem_set ROUND: the round's qdisc on eth0 (none for a clean round).
netem_set() {
	a=$(netem_args "$1")
	case $a in
	"?") echo "RC-NETEM $1 FAIL unknown round"; return 1 ;;
	- | "") $TC qdisc del dev eth0 root 2>/dev/null
		echo "RC-NETEM $1 none" ;;
	*)	# shellcheck disable=SC2086
		$TC qdisc replace dev eth0 root netem $a ||
			{ echo "RC-NETEM $1 FAIL $TC qdisc replace dev eth0 root netem $a"; return 1; }
		echo "RC-NETEM $1 $($TC qdisc show dev eth0 | head -n1)" ;;
	esac
}

# provider_set rxe|sroce: that provider's device up (DEV, GIDX, GIDX6).
provider_set() {
	[ "$cur_prov" = "$1" ] && return 0
	if [ -n "$cur_prov" ]; then
		unload_provider || { echo "rc-guest: cannot unload $cur_prov"; cur_prov=; return 1; }
	fi
	cur_prov=
	load_provider "$1" || return 1
	cur_prov=$1
}

# VM A's requester decisions on a lossy link, from the sroce tracepoints:
# per check, "RC-TRACE ID" lines, in the order the QP task made them:
#	N QPN PSN SYNDROME ACTION DROP RULE	a NAK or RNR NAK the completer
#						took (or dropped: DROP)
#	T QPN rexmit|rnr ACKED ACTION RULE	a timer expiry it acted on
#	P QPN PSN RETRY				the first request packet after
#						either, and the first of every
#						run of retransmissions
#	overrun N				events the trace buffer lost
#	events N				sroce events in the trace
# rc-test.sh matches them with the NAKs of the capture.
TR=/sys/kernel/tracing
TR_EVS="sroce_comp_decision sroce_comp_timer sroce_req_packet"
tracing=0
trace_want() {
	[ "$ROLE" = A ] && [ "$mode" = pair ] && [ "$prov" = sroce ] &&
		[ "$(netem_args "$cur_round")" != - ]
}
trace_begin() {
	tracing=0
	trace_want || return 0
	[ -d $TR/events ] || mount -t tracefs nodev $TR 2>/dev/null
	echo 8192 >$TR/buffer_size_kb 2>/dev/null
	echo >$TR/trace
	for e in $TR_EVS; do
		echo 1 >$TR/events/sroce/$e/enable || { echo "RC-TRACE $1 unavailable $e"; return 0; }
	done
	tracing=1
}
trace_end() {
	[ $tracing = 1 ] || return 0
	for e in $TR_EVS; do echo 0 >$TR/events/sroce/$e/enable; done
	o=$(awk '/overrun:/ {print $2}' $TR/per_cpu/cpu0/stats 2>/dev/null)
	[ "${o:-0}" = 0 ] || echo "RC-TRACE $1 overrun $o"
	echo "RC-TRACE $1 events $(grep -c ' sroce_' $TR/trace)"
	awk -v id="$1" '
	{
		ev = ""
		if (match($0, /sroce_[a-z_]+:/)) ev = substr($0, RSTART, RLENGTH - 1)
		for (k in f) delete f[k]
		for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) f[kv[1]] = kv[2]
		q = f["qpn"]
		if (ev == "sroce_comp_decision") {
			if (f["syndrome"] ~ /^0x[2367][0-9a-f]$/ || f["drop"] == "stale_nak") {
				print "RC-TRACE", id, "N", q, f["psn"], f["syndrome"], f["action"], f["drop"], f["rule"]
				after[q] = 1
			}
		} else if (ev == "sroce_comp_timer") {
			print "RC-TRACE", id, "T", q, ($0 ~ / rnr /) ? "rnr" : "rexmit", f["acked"], f["action"], f["rule"]
			after[q] = 1
		} else if (ev == "sroce_req_packet") {
			if (after[q] || (f["retry"] == "1" && !inburst[q]))
				print "RC-TRACE", id, "P", q, f["psn"], f["retry"]
			after[q] = 0
			inburst[q] = (f["retry"] == "1")
		}
	}' $TR/trace
	echo >$TR/trace
	tracing=0
}

# The rdma counters of the device and the netem counters of eth0, for
# the log, at the end of each phase.
phase_end() {
	[ "$mode" = pair ] || [ "$mode" = loop ] || return 0
	[ -z "${DEV:-}" ] || echo "RC-STATS $phase $cur_round $cur_pair $(rdma statistic show link "$DEV/1" 2>/dev/null | tr -s ' ')"
	[ "$mode" != pair ] || echo "RC-QDISC $phase $cur_round $cur_pair $($TC -s qdisc show dev eth0 | tr '\n' ' ' | tr -s ' ')"
}

phase_begin() {
	phase_end
	phase=$((phase + 1))
	cur_round=$1 cur_pair=$2
	case $2 in
	loop-*)	if [ "$ROLE" = A ]; then mode=loop prov=${2#loop-}; else mode=idle prov=; fi ;;
	*-*)	mode=pair
		if [ "$ROLE" = A ]; then prov=${2%-*}; else prov=${2#*-}; fi ;;
	esac
	[ "$mode" != idle ] || { echo "RC-PHASE $phase $1 $2 idle"; return 0; }
	st=ok
	# Loopback traffic never reaches eth0: its phases run on a clean link.
	if [ "$mode" = loop ]; then $TC qdisc del dev eth0 root 2>/dev/null
	else netem_set "$1" || st=netem-failed; fi
	provider_set "$prov" || st=provider-failed
	peer=none
	if [ "$mode" = pair ]; then
		b=$((23000 + 2 * phase))
		if [ "$ROLE" = A ]; then
			if send_ctl "$PEER_IP" $b "$st"; then peer=$(recv_ctl $((b + 1)) 600)
			else peer=unreachable; fi
		else
			peer=$(recv_ctl $b 600)
			[ -z "$peer" ] || send_ctl "$PEER_IP" $((b + 1)) "$st" || true
		fi
		[ -n "$peer" ] || peer=silent
	fi
	phase_ok=0
	[ "$st" = ok ] && { [ "$peer" = ok ] || [ "$mode" = loop ]; } && phase_ok=1
	echo "RC-PHASE $phase $1 $2 $mode provider=$prov dev=${DEV:-none} gid=${GIDX:-none} gid6=${GIDX6:-none} self=$st peer=$peer"
}

# mkcmd KIND TOOL SIZE ITERS PORT OPTIONS...: sets CMD (the server's
# command line) and CCMD (the client's; it adds the server's address),
# and v6 (1: the client connects to the IPv6 address; only for rdma_cm).
mkcmd() {
	k=$1 tool=$2 size=$3 iters=$4 port=$5
	shift 5
	gid=$GIDX opts= v6=0
	for o in "$@"; do
		case $o in
		@ipv6) gid=$GIDX6 v6=1 ;;
		*) opts="$opts $o" ;;
		esac
	done
	[ -n "$gid" ] || { CMD=; return 1; }
	# The address family only matters where rdma_cm resolves it: the
	# cm tools, and perftest or the integrity tool with -R.
	case $k:$opts in cm:* | pt:*-R* | it:*-R*) ;; *) v6=0 ;; esac
	CCMD=
	case $k in
	cm) any=0.0.0.0
	    [ $v6 = 0 ] || any=::0
	    case $tool in
	    rping) CMD="rping -s -a $any -p $port -V -C $iters"
		   CCMD="rping -c -p $port -V -C $iters -a" ;;
	    # Over IPv6 the servers bind ::0 (their default is IPv4's any).
	    ucmatose) CMD="ucmatose -p $port -c 2 -C $iters"
		      CCMD="$CMD -s"
		      [ $v6 = 0 ] || CMD="$CMD -b $any" ;;
	    udaddy) CMD="udaddy -c 2 -C $iters"	# its port is fixed
		    CCMD="$CMD -s"
		    [ $v6 = 0 ] || CMD="$CMD -b $any" ;;
	    rdma_server) CMD="rdma_server -p $port"
			 CCMD="rdma_client -p $port -s"
			 [ $v6 = 0 ] || CMD="$CMD -s $any" ;;
	    # UD multicast: the server receives ITERS datagrams sent to
	    # the group, the client joins and sends them (it ignores the
	    # address run_client appends).  Each binds its own address.
	    mckey) CMD="mckey -m 239.1.2.$((id % 250 + 1)) -b $MY_IP -C $iters"
		   CCMD="$CMD -s" ;;
	    esac ;;
	pp) CMD="$tool -d $DEV -g $gid -s $size -n $iters -p $port -c$opts" ;;
	pt) sz=
	    [ "$size" = - ] || sz=" -s $size"
	    CMD="$tool -d $DEV -x $gid -F -n $iters$sz -p $port$opts" ;;
	it) CMD="/sroce/sroce_integrity -d $DEV -g $gid -p $port$opts" ;;
	esac
	[ -n "$CCMD" ] || CCMD=$CMD
}

# The address the client connects to: the peer's (or in loopback our
# own), IPv6 if v6.
client_addr() {
	if [ "$mode" = loop ]; then
		if [ "$v6" = 1 ]; then echo "$MY_IP6"; else echo "$MY_IP"; fi
	elif [ "$v6" = 1 ]; then echo "$PEER_IP6"
	else echo "$PEER_IP"; fi
}

# sent_pkts: the packets this VM's device has put out (stock rxe's
# sent_pkts counter; 0 where there is none).  Not the IP layer's multicast
# count: that one counts the IGMP reports of the client's join and leave
# too, two to four of them, so a sender that dropped a datagram or two
# still looked complete (one of ten missing in a capture, and its
# receiver waited for it until it was killed).
sent_pkts() {
	rdma statistic show link "$DEV/1" 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == "sent_pkts") { print $(i + 1); exit } } END { if (NR == 0) print 0 }'
}
# client_once ID TMO ADDR: one run of the client; sets crc.
client_once() {
	# shellcheck disable=SC2086
	timeout "$2" $CCMD "$3" </dev/null >"/tmp/c.$1" 2>&1
	crc=$?
}

# connect_refused ID: the client's output says its connect was refused or
# rejected (its server was not listening yet).
connect_refused() {
	grep -q "Couldn't connect\|Unable to open file descriptor\|REJECTED\|UNREACHABLE\|Connection refused\|Unexpected CM event" "/tmp/c.$1"
}

# run_client ID KIND TMO ADDR: the client (CMD ADDR), retried while its
# server is not listening yet; sets crc.  perftest over rdma_cm (-R)
# connects twice: first to exchange parameters, then the QPs under test,
# for which its server listens only after the exchange; a client that
# comes first is rejected and exits, leaving its server waiting for that
# second connection, where a new client's first one would land.  So that
# client is not retried here: rejected=1, and the check runs again,
# server and client (again()).
run_client() {
	n=0 rejected=0 short= exitrace=
	# mckey: nothing tells the sender that the receiver has joined.
	[ "$tool" != mckey ] || sleep 3
	[ "$tool" != mckey ] || m0=$(sent_pkts)
	while :; do
		client_once "$1" "$3" "$4"
		[ $crc -ne 0 ] || break
		n=$((n + 1))
		# Not listening yet: a TCP connect refused, or an rdma_cm one.
		[ $n -lt 30 ] && connect_refused "$1" || break
		case $kind:$opts in pt:*-R*) rejected=1; break ;; esac
		sleep 0.5
	done
	# mckey sent by stock rxe: it puts some of its datagrams on the wire
	# and completes them all (rxe's multicast send; the series that made
	# it work was never merged upstream), so its receiver waits for the
	# rest until it is killed.  Fewer packets out of rxe than datagrams
	# asked for (sent_pkts; the client's QP sends nothing else): the check
	# runs again (again()).  An sroce sender that falls short fails.
	if [ "$tool" = mckey ] && [ $crc = 0 ] && [ "$prov" = rxe ] &&
	   [ $(($(sent_pkts) - m0)) -lt "$iters" ]; then
		short="rxe sent $(($(sent_pkts) - m0)) packets for $iters datagrams"
		rejected=1
	fi
	# rping's own exit race (Debian 12's rdma-core 44; fixed upstream by
	# linux-rdma/rdma-core pull request 1622, 2025): after the last CM
	# event the main thread destroys the event channel while the CM
	# thread asks it for the next event, which fails (EBADF), and rping
	# exits 255 although the ping-pong completed.  A client that printed
	# its DISCONNECT EVENT and that failure and nothing else: the check
	# runs again (again()).  Any other rping failure fails.
	if [ "$tool" = rping ] && [ $crc = 255 ] &&
	   grep -q "DISCONNECT EVENT" "/tmp/c.$1" &&
	   grep -q "rdma_get_cm_event: Bad file descriptor" "/tmp/c.$1" &&
	   ! grep -qv "DISCONNECT EVENT\|rdma_get_cm_event: Bad file descriptor" "/tmp/c.$1"; then
		exitrace=1
		rejected=1
	fi
	# The integrity tool over rdma_cm says where it resolved: an IPv6
	# check must have connected over IPv6 (not a v4-mapped fallback).
	if [ "$2" = it ] && [ $crc = 0 ] && [ "$v6" = 1 ] &&
	   ! grep -q "rdma_cm resolved [0-9a-f]*:[0-9a-f:]* port" "/tmp/c.$1"; then
		echo "rc-guest: $1 did not resolve an IPv6 address" >>"/tmp/c.$1"
		crc=97
	fi
	if [ "$2" = pt ]; then
		line=$(awk '/^[ \t]*[0-9]+[ \t]+[0-9]+[ \t]+[0-9.]+[ \t]+[0-9.]+/ {l=$0} END {print l}' "/tmp/c.$1")
		echo "RC-BW $1 $line"
	fi
}

# listens: true when the rdma_cm server just started (TOOL) has a cm_id
# listening, waiting up to 10 s.  Only the tools that connect through
# rdma_cm (uses_cm): an mckey receiver does not listen.  A client
# connecting before then gets a reject and retries, and a request it sent just before giving up could
# reach the server as it starts listening; the server then took a request
# its client had already abandoned (rdma_create_qp() on a cm_id no longer
# in REQ_RCVD: EINVAL).
listens() {
	uses_cm || return 0
	[ "$tool" != mckey ] || return 0
	i=0
	while [ $i -lt 50 ]; do
		rdma res show cm_id 2>/dev/null | grep LISTEN | grep -q "comm $tool" && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# tcp_listens PORT: a socket listens on TCP PORT (IPv4 or IPv6).
tcp_listens() {
	awk -v p="$(printf ':%04X' "$1")" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
		END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# serving: true when the server just started (TOOL, pid spid) is ready for
# its client, waiting up to 10 s: a tool over rdma_cm has its listening
# cm_id (listens()), the others listen on their TCP port, where they
# exchange their parameters.  The client then connects at once, where it
# used to start before its server listened, fail, and try again a second
# later.  mckey's receiver listens to nothing: at once (run_client waits).
serving() {
	[ "$tool" != mckey ] || return 0
	if uses_cm; then listens; return; fi
	i=0
	while [ $i -lt 100 ]; do
		tcp_listens "$port" && return 0
		kill -0 "$spid" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# uses_cm: the check's tools connect through rdma_cm (the cm tools, and
# perftest or the integrity tool with -R).
uses_cm() {
	case $kind:$opts in cm:* | pt:*-R* | it:*-R*) return 0 ;; esac
	return 1
}

# again ID: the client's second connection was rejected (run_client's
# rejected): say so; true if the check is to run again, server and
# client (up to 5 runs).
again() {
	[ "$rejected" = 1 ] && [ "$attempt" -lt 5 ] || return 1
	if [ -n "$short" ]; then
		echo "# $1 mckey: $short (stock rxe's multicast send): the check runs again, server and client"
		echo "RC-RERUN $1 rxe-mcast-short"
	elif [ -n "$exitrace" ]; then
		echo "# $1 rping: its CM thread's rdma_get_cm_event failed after the last event (rping's exit race, rdma-core pull request 1622): the check runs again, server and client"
		echo "RC-RERUN $1 rping-exit-race"
	else
		echo "# $1 perftest over rdma_cm: the connection under test rejected (its server not yet listening for it): the check runs again, server and client"
		echo "RC-RERUN $1 perftest-cm-reject"
	fi
	# This run's own output, before the next run's replaces it.
	sed "s/^/# $1 run $attempt client: /" "/tmp/c.$1" | tail -n 10
	attempt=$((attempt + 1))
}

# wait_server ID GRACE: the server's exit status (srv), killing it if it
# has not exited GRACE seconds from now.
wait_server() {
	t=0
	while kill -0 "$spid" 2>/dev/null && [ $t -lt $(($2 * 5)) ]; do
		sleep 0.2
		t=$((t + 1))
	done
	if kill -0 "$spid" 2>/dev/null; then
		echo "# $1 server still running $2 s after its client ended: killed"
		kill "$spid" 2>/dev/null
		sleep 1
		kill -9 "$spid" 2>/dev/null
	fi
	wait "$spid"
	srv=$?
	# ibv_*_pingpong -c: the server checks what it received, and reports
	# a bad buffer but still exits 0.
	if [ "$kind" = pp ] && grep -q "invalid data" "/tmp/s.$1"; then
		echo "# $1 $tool reported invalid data"
		srv=98
	fi
}

result() {	# ID SIDE RC T0 OUTFILE
	echo "RC-RESULT $1 $2 $3 $(($(now) - $4))"
	if [ "$3" != 0 ]; then
		fail=1
		[ -z "${5:-}" ] || [ ! -f "$5" ] || sed "s/^/# $1 $2: /" "$5" | tail -n 40
	fi
}

net_up || exit 10
# Stalls of this VM (a busy host): SROCE-STALL lines on the console
# (tools/testvm/stallmon.c, at a real-time priority: this VM's own busy
# threads do not count), each in the check it came in, after its
# RC-CHECK line.  A timeout retransmission on the clean link is not the
# requester's fault where a VM stood still for the timeout
# (tools/ackrate/rc_verdict.py).
mon=
if [ -x /sroce/stallmon ]; then
	/sroce/stallmon -r -t 30 &
	mon=$!
fi
# The plan on fd 3: no tool reads it from stdin.
while read -r id round pair kind tool size iters tmo label opts <&3; do
	case $id in '' | '#'*) continue ;; esac
	[ "$round" = "$cur_round" ] && [ "$pair" = "$cur_pair" ] || phase_begin "$round" "$pair"
	[ "$mode" != idle ] || continue
	port=$((19000 + id)) ctl=$((21000 + id))
	t0=$(now)
	# shellcheck disable=SC2086
	if [ $phase_ok = 1 ] && mkcmd "$kind" "$tool" "$size" "$iters" "$port" $opts; then :; else
		[ $phase_ok = 0 ] || echo "# $id no GID for $label"
		if [ "$mode" = loop ] || [ "$ROLE" = A ]; then result "$id" client skip "$t0"; fi
		if [ "$mode" = loop ] || [ "$ROLE" = B ]; then result "$id" server skip "$t0"; fi
		continue
	fi
	echo "RC-CHECK $id $round $pair $label: $CMD"
	attempt=1
	if [ "$mode" = loop ]; then
		while :; do
			# shellcheck disable=SC2086
			timeout "$tmo" $CMD </dev/null >"/tmp/s.$id" 2>&1 &
			spid=$!
			serving || echo "# $id $tool: its server not listening after 10 s"
			run_client "$id" "$kind" "$tmo" "$(client_addr)"
			if again "$id"; then wait_server "$id" 3; continue; fi
			break
		done
		if [ $crc = 0 ]; then wait_server "$id" 30; else wait_server "$id" 3; fi
		result "$id" client "$crc" "$t0" "/tmp/c.$id"
		result "$id" server "$srv" "$t0" "/tmp/s.$id"
	elif [ "$ROLE" = A ]; then
		trace_begin "$id"
		while :; do
			send_ctl "$PEER_IP" $ctl start || true
			# The server says when it listens (B's serving()).
			if [ "$tool" != mckey ]; then
				msg=$(recv_ctl $ctl 60) || true
				[ "$msg" = listening ] || echo "# $id server: '${msg:-nothing}' instead of listening"
			fi
			run_client "$id" "$kind" "$tmo" "$(client_addr)"
			if again "$id"; then
				send_ctl "$PEER_IP" $ctl again && continue
				echo "# $id the server did not take 'again': the check fails"
			fi
			break
		done
		send_ctl "$PEER_IP" $ctl "done $crc" || true
		trace_end "$id"
		result "$id" client "$crc" "$t0" "/tmp/c.$id"
	else
		# The client's "again" (run_client's rejected): a new server.
		msg=$(recv_ctl $ctl 600)
		if [ "$msg" != start ]; then
			echo "# $id no start from the client (got '$msg')"
			result "$id" server nostart "$t0"
			continue
		fi
		while [ "$msg" = start ]; do
			# shellcheck disable=SC2086
			timeout "$tmo" $CMD </dev/null >"/tmp/s.$id" 2>&1 &
			spid=$!
			if [ "$tool" != mckey ]; then
				if serving; then send_ctl "$PEER_IP" $ctl listening || true
				else send_ctl "$PEER_IP" $ctl "not listening after 10 s" || true; fi
			fi
			msg=$(recv_ctl $ctl $((tmo + 60)))
			[ "$msg" = again ] || break
			echo "# $id the client runs the check again: a new server"
			wait_server "$id" 3
			msg=$(recv_ctl $ctl 600)
		done
		case $msg in
		"done 0") wait_server "$id" 30 ;;
		*) echo "# $id client ended with '${msg:-nothing}'"; wait_server "$id" 3 ;;
		esac
		result "$id" server "$srv" "$t0" "/tmp/s.$id"
	fi
done 3</sroce/rc-plan
phase_end
# Leave the link as it came (a shared boot runs more after this).
$TC qdisc del dev eth0 root 2>/dev/null
[ -z "$mon" ] || { kill -TERM "$mon"; wait "$mon"; }
exit $fail

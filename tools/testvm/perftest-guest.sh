#!/bin/sh
# Guest side of a two-VM perftest run.  /sroce/role holds A (the client,
# 10.0.0.1, the requester) or B (the server, 10.0.0.2, the responder);
# each runs the provider guest-lib.sh names (run-pair.sh -a/-b: rxe or
# sroce).  /sroce/workloads has one workload per line:
#	name tool size iterations tcp-port [extra perftest options...]
# A size of "-" means the tool's default (ib_atomic_bw); "@ipv6" among the
# options runs the RDMA traffic over the IPv6 RoCEv2 GIDs.  Each workload's
# client result is printed as
#	SROCE-WL <name> <perftest's result line>
# (bandwidth tools: bytes iterations peak average-MB/s msgrate-Mpps;
# latency tools: bytes iterations t_min t_max t_typical t_avg t_stdev
# 99% 99.9%, in usec) and each side's rdma counters and /proc/stat after
# it between SROCE-STATS markers; sroce's module parameters as
# SROCE-PARAM <name>=<value> lines.
#
# The QP's local ACK timeout: sroce keeps perftest's default (-u 14,
# 67.1 ms; make compare's target is no retransmission without a longer
# one).  Stock rxe gets -u 20 (4.3 s), as before: it never cancels its
# retransmit timer, so at 67 ms under TCG it retransmits spuriously, and
# on the debug kernel could exhaust its retry count.  The option is per
# side, each QP's timeout is its own (both sides send requests in the
# latency tools).
. /sroce/guest-lib.sh
net_up || exit 10
load_provider "$PROVIDER" || exit 11
# Stalls of this VM (a busy host), for the host to judge the run by:
# SROCE-STALL lines (tools/testvm/stallmon.c) on the console, each in the
# workload it came in (before that workload's SROCE-STATS block).
mon=
if [ -x /sroce/stallmon ]; then
	/sroce/stallmon -t 20 &
	mon=$!
fi
# A planted stall (make compare -S): VM A asks the host to stop VM B for
# that long (ms) and waits it out before the first workload, so that B's
# stallmon sees it, in the first workload's part of the console.
if [ "$ROLE" = A ] && [ -f /sroce/plant-stall ]; then
	ms=$(cat /sroce/plant-stall)
	sleep 5	# B's stallmon is running by then
	echo "SROCE-PLANT-STALL B $ms"
	sleep $((ms / 1000 + 3))
fi
for p in /sys/module/sroce/parameters/*; do
	[ -r "$p" ] && echo "SROCE-PARAM ${p##*/}=$(cat "$p")"
done
tmo=
[ "$PROVIDER" = rxe ] && tmo="-u 20"
echo "guest: $PROVIDER, perftest QP timeout ${tmo:-default}"
dump_stats start

rc=0
while read -r name tool size iters port extra; do
	case $name in ''|'#'*) continue ;; esac
	sz=
	[ "$size" = - ] || sz="-s $size"
	gid=$GIDX
	case " $extra " in
	*" @ipv6 "*) gid=$GIDX6; extra=$(echo "$extra" | sed 's/@ipv6//') ;;
	esac
	args="-d $DEV -x $gid $tmo -F -n $iters $sz -p $port $extra"
	if [ "$ROLE" = B ]; then
		timeout 300 $tool $args >/tmp/out.$name 2>&1 || { echo "guest: server $name failed"; cat /tmp/out.$name; rc=1; }
	else
		# Tried every quarter second while the server is not listening
		# yet (20 s in all): a second's wait before every workload was a
		# second of each workload's ~3 s.
		tries=0
		while :; do
			sleep 0.25
			timeout 300 $tool $args "$PEER_IP" >/tmp/out.$name 2>&1 && break
			tries=$((tries + 1))
			if [ $tries -ge 80 ] || ! grep -q "Couldn't connect\|Unable to open file descriptor" /tmp/out.$name; then
				echo "guest: client $name failed"; cat /tmp/out.$name; rc=1; break
			fi
		done
		line=$(awk '/^[ \t]*[0-9]+[ \t]+[0-9]+[ \t]+[0-9.]+[ \t]+[0-9.]+[ \t]+[0-9.]+/ {l=$0} END {print l}' /tmp/out.$name)
		[ -n "$line" ] || cat /tmp/out.$name
		echo "SROCE-WL $name $line"
	fi
	dump_stats "$name"
done < /sroce/workloads
[ -z "$mon" ] || { kill -TERM "$mon"; wait "$mon"; }
exit $rc

#!/bin/sh
# Guest side of a two-VM perftest run.  /sroce/role holds A (the client,
# 10.0.0.1, always stock rdma_rxe) or B (the server, 10.0.0.2, the
# responder named in /sroce/responder); /sroce/workloads has one workload
# per line:
#	name tool size iterations tcp-port [extra perftest options...]
# A size of "-" means the tool's default (ib_atomic_bw); "@ipv6" among the
# options runs the RDMA traffic over the IPv6 RoCEv2 GIDs.  Each workload's
# client result is printed as
#	SROCE-WL <name> <bytes> <iterations> <BW average MB/s> <MsgRate Mpps>
# and each side's rdma counters after it between SROCE-STATS markers;
# sroce's module parameters as SROCE-PARAM <name>=<value> lines.
. /sroce/guest-lib.sh
net_up || exit 10
load_provider "$PROVIDER" || exit 11
for p in /sys/module/sroce/parameters/*; do
	[ -r "$p" ] && echo "SROCE-PARAM ${p##*/}=$(cat "$p")"
done
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
	args="-d $DEV -x $gid -u 20 -F -n $iters $sz -p $port $extra"
	if [ "$ROLE" = B ]; then
		timeout 300 $tool $args >/tmp/out.$name 2>&1 || { echo "guest: server $name failed"; cat /tmp/out.$name; rc=1; }
	else
		tries=0
		while :; do
			sleep 1
			timeout 300 $tool $args "$PEER_IP" >/tmp/out.$name 2>&1 && break
			tries=$((tries + 1))
			if [ $tries -ge 20 ] || ! grep -q "Couldn't connect\|Unable to open file descriptor" /tmp/out.$name; then
				echo "guest: client $name failed"; cat /tmp/out.$name; rc=1; break
			fi
		done
		line=$(awk '/^[ \t]*[0-9]+[ \t]+[0-9]+[ \t]+[0-9.]+[ \t]+[0-9.]+[ \t]+[0-9.]+/ {l=$0} END {print l}' /tmp/out.$name)
		[ -n "$line" ] || cat /tmp/out.$name
		echo "SROCE-WL $name $line"
	fi
	dump_stats "$name"
done < /sroce/workloads
exit $rc

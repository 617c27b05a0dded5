#!/bin/sh
# /sroce/run.sh of a shared boot (tools/testvm/group.py): run each booked
# run of /sroce/suites/NN in order, as its own boot would have run it.
#
# Before each: the VM is put back as a boot leaves it (reset below), the
# two VMs meet at a barrier (VM B listens on TCP 19700 + NN, VM A connects:
# neither starts run NN before the other has finished run NN-1), and the
# run's /sroce files (its role, provider, tools, rounds ...) replace the
# previous run's.  The run's script then runs under its own budget, framed
# on the console by "SROCE-SUITE-BEGIN NN t=S" and "SROCE-SUITE-END NN
# rc=R t=S" (S: the VM's uptime).
# A run booked for VM A alone (run-pair.sh -1) has a "skip" file on VM B:
# B only meets its barriers.
. /sroce/guest-lib.sh

# reset: no process of an earlier run left (they are init's orphans now,
# besides the timeout that runs this script), no RDMA link, no provider or
# test module loaded, no netem qdisc, tracing off, eth0 bound, up, at MTU
# 1500, with its addresses.  A program is started only where something is
# to be undone, or to read what only it can tell (the qdisc, the
# addresses): under TCG a fork and exec of the KASAN kernel costs 0.1-0.2 s
# (ld.so, the binary's pages), and the reset runs before every run.
reset() {
	# The shell's own read, not a sed per process: a VM has a hundred
	# processes (kernel threads included).
	for p in /proc/[0-9]*; do
		pid=${p##*/}
		[ "$pid" = $$ ] && continue
		[ "$pid" = "$PPID" ] && continue
		pp=
		while read -r k v; do
			[ "$k" = PPid: ] && { pp=$v; break; }
		done 2>/dev/null <"$p/status"
		[ "$pp" = 1 ] && kill -9 "$pid" 2>/dev/null
	done
	# Every RDMA device here is a link's (no hardware).  (A function's
	# variables are the script's: not d, the run's directory below.)
	for ibdev in /sys/class/infiniband/*; do
		[ -e "$ibdev" ] || continue
		rdma link delete "${ibdev##*/}" || echo "group-guest: cannot delete RDMA link ${ibdev##*/}"
	done
	loaded=" "
	while read -r m _; do loaded="$loaded$m "; done </proc/modules
	for m in sroce_kunit sroce_kcm sroce_kverbs sroce rdma_rxe; do
		case $loaded in *" $m "*) ;; *) continue ;; esac
		rmmod "$m" || echo "group-guest: cannot unload $m"
	done
	if [ -d /sys/kernel/debug/tracing ]; then
		echo 0 >/sys/kernel/debug/tracing/events/enable 2>/dev/null
		echo >/sys/kernel/debug/tracing/trace 2>/dev/null
	fi
	if ! [ -e /sys/class/net/eth0 ]; then
		for v in /sys/bus/virtio/devices/*; do
			[ -e "$v/driver" ] || echo "${v##*/}" >/sys/bus/virtio/drivers/virtio_net/bind 2>/dev/null
		done
		i=0
		while ! [ -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	fi
	# Not busybox's tc applet (the shell prefers it), which leaves a
	# netem qdisc in place: rc's last lossy round's 5% loss then reached
	# every later run.  netem is the only qdisc a run adds.
	case $(/usr/sbin/tc qdisc show dev eth0) in
	*netem*)
		/usr/sbin/tc qdisc del dev eth0 root 2>/dev/null
		case $(/usr/sbin/tc qdisc show dev eth0) in
		*netem*)
			echo "group-guest: cannot take the netem qdisc off eth0"
			reset_failed=1
			;;
		esac
		;;
	esac
	read -r mtu </sys/class/net/eth0/mtu
	read -r flags </sys/class/net/eth0/flags
	# IFF_UP is bit 0 of the flags (hex).
	if [ "$mtu" != 1500 ] || [ $((flags & 1)) = 0 ]; then
		$IP link set eth0 mtu 1500 up
	fi
	addrs=$($IP addr show dev eth0)
	case $addrs in *" $MY_IP/24 "*) ;; *) $IP addr add "$MY_IP/24" dev eth0 ;; esac
	case $addrs in *" $MY_IP6/64 "*) ;; *) $IP -6 addr add "$MY_IP6/64" dev eth0 nodad ;; esac
}

# barrier N WAIT: both VMs here for run N, each waiting at most WAIT s.
barrier() {
	port=$((19700 + $1))
	if [ "$ROLE" = B ]; then
		timeout "$2" busybox nc -l -p "$port" </dev/null >/dev/null 2>&1
	else
		end=$(($(date +%s) + $2))
		until nc.openbsd -z -w1 "$PEER_IP" "$port" 2>/dev/null; do
			[ "$(date +%s)" -lt "$end" ] || return 1
			sleep 0.2
		done
	fi
}

uptime_s() { read -r up _ </proc/uptime; echo "$up"; }

# kmemleak: no scan behind the runs' backs.  A boot that runs for half an
# hour would scan every ten minutes, each scan a long stall of a KASAN
# kernel under TCG, at a moment no run chose (a timing check's spurious
# retransmission).  Nor does a run scan where it checks for leaks
# (guest-lib.sh's leak_check and leak_scan, under SROCE_GROUP=1): the boot
# scans twice at its end (also after a barrier the peer never reached),
# between "SROCE-LEAKSCAN-BEGIN" and "SROCE-LEAKSCAN-END": "SROCE-LEAKSCAN
# t=S0-S1 n=N" (the uptimes before and after the report was read into a
# file, each object's age is counted back from them; N objects), then the
# report.  tools/testvm/group.py gives each run the objects allocated from
# its begin marker to the next run's.
km=$KMEMLEAK
[ ! -e $km ] || echo scan=off >$km
export SROCE_GROUP=1

net_up || echo "group-guest: the network did not come up"
installed=
wait=600
failed=0
for d in /sroce/suites/*; do
	name=${d##*/}
	n=$(echo "$name" | sed 's/^0*\([0-9]\)/\1/')
	budget=$(cat "$d/budget")
	reset_failed=0
	reset
	if ! barrier "$n" "$wait"; then
		echo "group-guest: VM $ROLE: the peer never reached run $name"
		failed=1
		break
	fi
	wait=$((budget + 300))
	echo "SROCE-SUITE-BEGIN $name t=$(uptime_s)"
	for f in $installed; do rm -rf "/sroce/$f"; done
	installed=
	if [ "$reset_failed" = 1 ]; then
		echo "SROCE-SUITE-END $name rc=97 t=$(uptime_s)"
		continue
	fi
	if [ -f "$d/skip" ]; then
		echo "group-guest: run $name is VM A's alone"
		echo "SROCE-SUITE-END $name rc=0 t=$(uptime_s)"
		continue
	fi
	for f in $(ls -A "$d/tree"); do
		[ "$f" = run.sh ] && continue
		cp -a "$d/tree/$f" /sroce/
		installed="$installed $f"
	done
	timeout "$budget" sh "$d/tree/run.sh"
	rc=$?
	echo "SROCE-SUITE-END $name rc=$rc t=$(uptime_s)"
done
reset
if [ -e $km ]; then
	echo "SROCE-LEAKSCAN-BEGIN"
	scan_twice
	# Into a file first: the kernel counts each age as it prints the
	# record, and the serial console is slow.
	t0=$(uptime_s)
	cat $km >/tmp/kmemleak.txt
	t1=$(uptime_s)
	echo "SROCE-LEAKSCAN t=$t0-$t1 n=$(grep -c '^unreferenced object' /tmp/kmemleak.txt)"
	cat /tmp/kmemleak.txt
	echo "SROCE-LEAKSCAN-END"
fi
exit $failed

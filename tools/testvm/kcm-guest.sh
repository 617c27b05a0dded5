#!/bin/sh
# Guest side of tools/testvm/kcm-test.sh: the kernel rdma_cm consumer
# (/sroce/sroce_kcm.ko) across the two VMs.  /sroce/kcm-rounds has one
# round a line, "CLIENT-SERVER FAMILY": VM A loads provider CLIENT and the
# module as the client (peer=VM B's address of FAMILY, 4 or 6), VM B
# provider SERVER and the module as the server; each round on its own
# ports (18600 + 2 * the round's number, and the next).  The module prints
# a KTAP document at pr_info, below the console's loglevel: each run's is
# copied from dmesg into this script's KTAP (guest-lib.sh), a subtest
# "round N CLIENT-SERVER IPvF" whose result passes if the module's
# document is whole, with a pass and no failure.  The rxe-rxe control's
# goes in as diagnostics under one result of its own, "... (control)".
. /sroce/guest-lib.sh
M=/sroce/sroce_kcm.ko
fail=0
net_up || exit 10
ktap_begin	# the plan at the end; an early exit leaves it truncated
# insmod resolves no dependencies: rdma_cm (and ib_cm, iw_cm under it) first.
modprobe rdma_cm || { echo "kcm-guest: cannot load rdma_cm"; exit 12; }
n=0
while read -r round fam; do
	case $round in '' | '#'*) continue ;; esac
	client=${round%-*} server=${round#*-}
	[ "$ROLE" = B ] && prov=$server || prov=$client
	echo "KCM-ROUND $n $round IPv$fam"
	name="round $n $round IPv$fam"
	[ "$round" != rxe-rxe ] || name="$name (control)"
	cur=${DEV:-}
	case $cur in rxe0) curp=rxe ;; sroce0) curp=sroce ;; *) curp= ;; esac
	if [ "$curp" != "$prov" ]; then
		unload_provider || { ktap_fail "$name: cannot unload $DEV"; exit 11; }
		load_provider "$prov" || { ktap_fail "$name: cannot load $prov"; fail=1; n=$((n + 1)); continue; }
	fi
	port=$((18600 + 2 * n))
	dmesg -c >/dev/null
	if [ "$ROLE" = B ]; then
		v6=0
		[ "$fam" = 6 ] && v6=1
		set -- server=1 "v6=$v6" "port=$port"
	else
		addr=$PEER_IP
		[ "$fam" = 6 ] && addr=$PEER_IP6
		set -- "peer=$addr" "port=$port"
	fi
	st=1
	if insmod "$M" "$@"; then
		dmesg | sed -n 's/.*sroce_kcm: //p' >/tmp/kcm.out
		# Whole (its plan), with a pass and no failure.
		grep -q '^1\.\.' /tmp/kcm.out && grep -q '^ok ' /tmp/kcm.out &&
			! grep -q '^not ok ' /tmp/kcm.out && st=0
		rmmod sroce_kcm || { echo "kcm-guest: rmmod sroce_kcm failed"; fail=1; st=1; }
	else
		echo "kcm-guest: insmod sroce_kcm.ko $* failed"
		dmesg | tail -n 5 >/tmp/kcm.out
		fail=1
	fi
	if [ "$round" = rxe-rxe ]; then
		sed 's/^/# /' /tmp/kcm.out
	else
		sed 's/^/    /' /tmp/kcm.out
	fi
	ktap_check $st "$name"
	n=$((n + 1))
done < /sroce/kcm-rounds
unload_provider || fail=1
leak_check "kmemleak reports nothing after the unload" || fail=1
ktap_end
echo "kcm-guest: done, fail=$fail"
exit $fail

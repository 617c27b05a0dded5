#!/bin/sh
# Guest side of the pyverbs test (tools/testvm/pyverbs-test.sh).
# /sroce/pyverbs-rounds has one round a line, "CLIENT-SERVER": VM A runs
# the client of tools/pyverbs/sroce_pyverbs.py on provider CLIENT (the
# requester), VM B the server, which makes the checks, on provider SERVER.
# Both VMs take the rounds in order, each on its own TCP port (18900 + the
# round's number), loading the round's provider after unloading the last
# one (stock rdma_rxe and sroce exclude each other); the client waits for
# its server's port.  Each round prints "PYVERBS-ROUND N CLIENT-SERVER"
# first; VM B's server checks are KTAP, each round a subtest.
. /sroce/guest-lib.sh
export PYTHONDONTWRITEBYTECODE=1
net_up || exit 10
# VM B's KTAP (guest-lib.sh): each round's server document a subtest.
[ "$ROLE" = A ] || ktap_begin
# ib_cm, for gsi_mads: the CM agent on QP1 (it attaches to each device).
modprobe ib_cm || echo "pyverbs-guest: cannot load ib_cm"
fail=0
n=0
while read -r round; do
	case $round in '' | '#'*) continue ;; esac
	client=${round%-*} server=${round#*-}
	[ "$ROLE" = B ] && prov=$server || prov=$client
	echo "PYVERBS-ROUND $n $round"
	unload_provider || { echo "pyverbs-guest: cannot unload $DEV"; exit 11; }
	if ! load_provider "$prov"; then
		if [ "$ROLE" = B ]; then ktap_fail "round $n $round: cannot load $prov"
		else echo "pyverbs-guest: cannot load $prov"; fi
		fail=1 n=$((n + 1))
		continue
	fi
	dump_stats "start-$n"
	if [ "$ROLE" = B ]; then
		ktap_run "round $n $round" python3 /sroce/sroce_pyverbs.py -d "$DEV" -g "$GIDX" -p $((18900 + n))
	else
		python3 /sroce/sroce_pyverbs.py -d "$DEV" -g "$GIDX" -p $((18900 + n)) "$PEER_IP"
	fi || fail=1
	dump_stats "end-$n"
	n=$((n + 1))
done < /sroce/pyverbs-rounds
[ "$ROLE" = A ] || ktap_end
exit $fail

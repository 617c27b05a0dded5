#!/bin/sh
# Guest side of tools/testvm/rdma-core-test.sh: rdma-core's own test suite
# (Debian's python3-pyverbs ships it in /usr/share/doc/rdma-core/tests,
# partly gzipped), unchanged, in one VM: once per provider named in
# /sroce/rdma-core-providers (one a line, in order), each on its own
# device, unloading one provider before loading the next (stock rdma_rxe
# and sroce exclude each other).
#
# /sroce/rdma-core-args, if present: extra run_tests.py arguments (e.g. a
# test name, to run one test alone).  /sroce/rdma-core-timeout: the budget
# of one run (s).
#
# Per provider P the console carries, every line prefixed so that kernel
# messages cannot be mistaken for them:
#   "RDMACORE-ERR P | ..."  run_tests.py's stderr (unittest's verbose
#                           per-test lines, tracebacks, the totals)
#   "RDMACORE-OUT P | ..."  its stdout (what the tests print)
#   "RDMACORE-RC P N"       its exit status (124: the budget ran out)
# plus rdma statistics before and after (dump_stats) and the kernel log.
# rdma-core 44's rdmacm tests look for the netdev under
# /sys/class/infiniband/DEV/device/net, which a soft device (stock rxe and
# sroce alike) does not have: they skip on both.  rc-test.sh's cm checks
# test rdma_cm.
. /sroce/guest-lib.sh
export PYTHONDONTWRITEBYTECODE=1
net_up || exit 10

src=/usr/share/doc/rdma-core/tests
[ -f "$src/run_tests.py" ] || { echo "guest: no $src/run_tests.py (python3-pyverbs)"; exit 11; }
t=/tmp/rdma-core-tests
mkdir -p "$t/tests"
cp -a "$src/." "$t/tests/"
gunzip -f "$t"/tests/*.py.gz || { echo "guest: gunzip failed"; exit 12; }
echo "guest: $(ls "$t"/tests/*.py | wc -l) test files in $t/tests"

budget=600
[ ! -f /sroce/rdma-core-timeout ] || read -r budget < /sroce/rdma-core-timeout
extra=
[ ! -f /sroce/rdma-core-args ] || extra=$(cat /sroce/rdma-core-args)

rc=0
while read -r prov; do
	[ -n "$prov" ] || continue
	load_provider "$prov" || { echo "guest: cannot load $prov"; rc=13; break; }
	dump_stats "$prov-start"
	echo "RDMACORE-BEGIN $prov $DEV gid $GIDX"
	start=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2086 # extra: words
	(cd "$t/tests" && timeout "$budget" python3 run_tests.py -v --dev "$DEV" --gid "$GIDX" $extra \
		>"$t/$prov.out" 2>"$t/$prov.err")
	r=$?
	end=$(cut -d' ' -f1 /proc/uptime)
	sed "s/^/RDMACORE-ERR $prov | /" "$t/$prov.err"
	sed "s/^/RDMACORE-OUT $prov | /" "$t/$prov.out"
	echo "RDMACORE-RC $prov $r"
	echo "RDMACORE-TIME $prov $start $end"
	dump_stats "$prov-end"
	echo "RDMACORE-DMESG-BEGIN $prov"
	dmesg -c | tail -n 200
	echo "RDMACORE-DMESG-END $prov"
	unload_provider || { echo "guest: cannot unload $prov"; rc=14; break; }
done < /sroce/rdma-core-providers
exit $rc

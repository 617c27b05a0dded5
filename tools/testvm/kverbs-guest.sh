#!/bin/sh
# Guest side of the kernel-verbs test (tools/testvm/kverbs-test.sh), one
# VM: /sroce/sroce_kverbs.ko, whose KUnit suite sroce_kverbs runs at load
# on the device named by dev=, is loaded on stock rdma_rxe first (the
# control: it validates the test itself), then on sroce.  KUnit prints the suite's KTAP at
# pr_info, below the console's loglevel: each run's kernel log is copied
# to the console between "KVERBS-KTAP-BEGIN <dev>" and "KVERBS-KTAP-END
# <dev>", where the host takes the KTAP from.  Then a kmemleak scan, if
# the kernel has kmemleak.
. /sroce/guest-lib.sh
M=/sroce/sroce_kverbs.ko
fail=0

# run_kverbs DEV: load the module against DEV (the suite runs), print the
# kernel log since the load, unload it.
run_kverbs() {
	dmesg -c >/dev/null
	echo "kverbs-guest: insmod sroce_kverbs.ko dev=$1"
	insmod "$M" "dev=$1" || { echo "kverbs-guest: insmod failed"; fail=1; }
	echo "KVERBS-KTAP-BEGIN $1"
	dmesg
	echo "KVERBS-KTAP-END $1"
	rmmod sroce_kverbs || { echo "kverbs-guest: rmmod sroce_kverbs failed"; fail=1; }
}

net_up || exit 10

load_provider rxe || exit 11
run_kverbs "$DEV"
unload_provider || { echo "kverbs-guest: cannot unload rdma_rxe"; exit 12; }

if load_provider sroce; then
	run_kverbs "$DEV"
	unload_provider || { echo "kverbs-guest: cannot unload sroce"; fail=1; }
else
	echo "kverbs-guest: cannot create sroce0"
	fail=1
fi

# The report, if any, on the console, where the host's console check
# fails the run on it (in a shared boot: the boot's closing scan's).
leak_scan
echo "kverbs-guest: done, fail=$fail"
exit $fail

#!/bin/sh
# Guest side of the KUnit run: load sroce_kunit.ko (modprobe pulls in
# sroce.ko and ib_core; the suites run at load), print the KTAP results
# between markers, unload, and let kmemleak look for leaks.
modprobe sroce_kunit || exit 2
# The debugfs results files keep only the tail of a parametrised test's
# log, so the full KTAP comes from the kernel log.
n=$(ls -d /sys/kernel/debug/kunit/sroce_* 2>/dev/null | wc -l)
echo "sroce-kunit: $n suites"
echo "SROCE-KTAP-BEGIN"
dmesg
echo "SROCE-KTAP-END"
rmmod sroce_kunit || exit 3
rmmod sroce || exit 3
modprobe -r ib_uverbs ib_core 2>/dev/null
grep -q '^sroce' /proc/modules && { echo "sroce-kunit: module still loaded"; exit 4; }
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	sleep 2
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi
[ "$n" -gt 0 ] || exit 5
exit 0

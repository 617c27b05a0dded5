#!/bin/sh
# Guest side of the KUnit run (tools/testvm/kunit.sh), VM A alone: load
# sroce (modprobe pulls in ib_core) and /sroce/sroce_kunit.ko (the suites
# run at load), print the kernel log since then, KTAP included, between
# markers, unload, and let kmemleak look for leaks (guest-lib.sh's
# leak_scan: in a shared boot, the boot's closing scan).
. /sroce/guest-lib.sh
dmesg -c >/dev/null
modprobe sroce || exit 2
insmod /sroce/sroce_kunit.ko || exit 2
# The debugfs results files keep only the tail of a parametrised test's
# log, so the full KTAP comes from the kernel log.
n=$(ls -d /sys/kernel/debug/kunit/sroce_* 2>/dev/null | wc -l)
echo "sroce-kunit: $n suites"
echo "SROCE-KTAP-BEGIN"
dmesg
echo "SROCE-KTAP-END"
rmmod sroce_kunit || exit 3
rmmod sroce || exit 3
grep -q '^sroce' /proc/modules && { echo "sroce-kunit: module still loaded"; exit 4; }
leak_scan
[ "$n" -gt 0 ] || exit 5
exit 0

#!/usr/bin/env bash
# The sroce device, link and netdev-notifier test in two VMs (the debug
# kernel by default): rdma link add/delete, module autoload, librxe
# attaching through ibv_devinfo, device and port attributes, refusal of a
# second device, of a VLAN netdev and of stock rdma_rxe beside sroce, drop
# counters for datagrams from the peer, port state and MTU following the
# netdev, the device going with its netdev (NETDEV_UNREGISTER, also with a
# user context open), module unload, kmemleak.
#   tools/testvm/device-test.sh [normal|debug|deb6.1|deb6.12]
#   SROCE_KO=path/sroce.ko tools/testvm/device-test.sh deb6.1
# deb6.1, deb6.12: Debian's stock kernels (tools/testvm/stock-kernel.sh),
# sroce built against their linux-headers package.  SROCE_KO: test this
# prebuilt sroce.ko instead (its vermagic must match the kernel).
# Prints a KTAP document, VM B's checks (KTAP on its console) as a subtest,
# and its count, "device: P passed, F failed" (", S skipped": checks of a
# kernel feature this kernel lacks, e.g. kmemleak, named in the log).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
pair_setup device "${1:-debug}"
rc=0
"$here/run-pair.sh" -A "$here/device-guest.sh" -B "$here/device-guest.sh" -o "$out" \
	-k "$flavour" -s "${ko_args[@]}" -t 600 || rc=1
pair_ktap_begin device
pair_ktap_guest vm-b "$out/b.log"
pair_ktap_end device $rc

#!/usr/bin/env bash
# The sroce device, link and netdev-notifier test in two VMs (the debug
# kernel by default): rdma link add/delete, module autoload, librxe
# attaching through ibv_devinfo, device and port attributes, refusal of a
# second device and of stock rdma_rxe beside sroce, drop counters for
# datagrams from the peer, port state and MTU following the netdev,
# module unload, kmemleak.
#   tools/testvm/device-test.sh [normal|debug]
# Prints "device: P passed, F failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
flavour=${1:-debug}
out=$top/build/device-$flavour
rm -rf "$out"
rc=0
"$here/run-pair.sh" -A "$here/device-guest.sh" -B "$here/device-guest.sh" -o "$out" \
	-k "$flavour" -s -t 600 || rc=1
pass=$(grep -ac 'device-test: ok:' "$out/b.log" 2>/dev/null || true)
fail=$(grep -ac 'device-test: FAIL:' "$out/b.log" 2>/dev/null || true)
grep -a 'device-test: FAIL' -A4 "$out/b.log" 2>/dev/null >&2 || true
[ $rc -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
[ "$pass" -gt 0 ] || fail=$((fail + 1))
echo "device: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

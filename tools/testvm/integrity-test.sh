#!/usr/bin/env bash
# Data integrity through the real wire: tools/integrity/sroce_integrity,
# server on sroce (VM B), client on stock rxe (VM A).  Every byte of
# SEND/SEND_IMM, WRITE/WRITE_IMM, READ and the ATOMIC results is checked.
#   tools/testvm/integrity-test.sh [normal|debug|deb6.1|deb6.12] [responder] [paged]
#   SROCE_KO=path/sroce.ko tools/testvm/integrity-test.sh deb6.1
# deb6.1, deb6.12: Debian's stock kernels (tools/testvm/stock-kernel.sh),
# VM A on the kernel's own rdma_rxe, sroce built against the kernel's
# linux-headers package; SROCE_KO: test this prebuilt sroce.ko instead.
# "paged" runs the link at MTU 9000 (RDMA MTU 4096): virtio-net then hands
# the frames over with their payload in page frags, so sroce's non-linear
# receive path (ICRC and placement with skb_copy_bits) carries every
# byte; its rx_paged counter must show it.
# Prints a KTAP document, both sides' (the tool's sub-tests) as subtests,
# and its count, "integrity: P passed, F failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
paged=${3:-}
extra=()
pair_setup "integrity${paged:+-$paged}" "${1:-debug}" "${2:-sroce}"
if [ "$paged" = paged ]; then
	echo 9000 >"$out/mtu"
	echo >"$out/paged"
	extra=(-f "$out/mtu" -f "$out/paged")
fi
"$top/tools/deps.sh" libibverbs-dev librdmacm-dev build-essential
make -s -C "$top/tools/integrity" >&2 || { echo "integrity: 0 passed, 1 failed"; exit 1; }
rc=0
"$here/run-pair.sh" -A "$here/integrity-guest.sh" -B "$here/integrity-guest.sh" -o "$out" \
	-k "$flavour" -s "${ko_args[@]}" -t 900 -f "$top/tools/integrity/sroce_integrity" -f "$out/responder" \
	"${extra[@]}" || rc=1
pair_ktap_begin integrity
pair_ktap_guest vm-a "$out/a.log"
pair_ktap_guest vm-b "$out/b.log"
pair_ktap_end integrity $rc

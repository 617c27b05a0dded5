#!/usr/bin/env bash
# Run perftest workloads between two VMs: VM A (stock rdma_rxe, the
# requester/client) and VM B (the responder/server: stock rdma_rxe or
# sroce), with the link captured to a pcap.
#
#   tools/testvm/perftest-pair.sh -r rxe|sroce -w WORKLOADS -o OUTDIR
#                                 [-k normal|debug] [-t SECONDS]
#
# OUTDIR gets a.log, b.log (consoles), link.pcap, results.txt (the
# SROCE-WL lines of the client) and stats-a.txt / stats-b.txt (rdma
# counters after each workload).  Fails on a guest failure or any kernel
# report in either console.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
resp=rxe wl= out= flavour=normal tmo=1200
while getopts "r:w:o:k:t:" o; do
	case $o in
	r) resp=$OPTARG ;; w) wl=$OPTARG ;; o) out=$OPTARG ;; k) flavour=$OPTARG ;; t) tmo=$OPTARG ;;
	*) sed -n '2,14p' "$0" >&2; exit 2 ;;
	esac
done
[ -n "$wl" ] && [ -n "$out" ] || { sed -n '2,14p' "$0" >&2; exit 2; }
mkdir -p "$out"
kdir=$("$here/build-kernel.sh" "$flavour" | tail -n1)
base=$("$here/mkinitramfs.sh" full | tail -n1)
extra=()
if [ "$resp" = sroce ]; then
	make -s -C "$top" module-for KDIR="$kdir" BUILD="$top/build/$flavour" >&2
	extra=("$top/build/$flavour/sroce.ko")
fi
mods=$("$here/modroot.sh" "$kdir" "${extra[@]}" | tail -n1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for side in A B; do
	r=$work/$side/sroce
	mkdir -p "$r"
	if [ $side = A ]; then echo "A rxe" >"$r/role"; else echo "B $resp" >"$r/role"; fi
	cp "$wl" "$r/workloads"
	cp "$here/guest-lib.sh" "$r/"
	install -m 0755 "$here/perftest-guest.sh" "$r/run.sh"
	(cd "$work/$side" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$work/$side.cpio.gz"
	cat "$base" "$mods" "$work/$side.cpio.gz" >"$work/initrd-$side.cpio.gz"
done

rc=0
python3 "$here/pair.py" --kernel "$kdir/arch/x86/boot/bzImage" \
	--initrd-a "$work/initrd-A.cpio.gz" --initrd-b "$work/initrd-B.cpio.gz" \
	--log-a "$out/a.log" --log-b "$out/b.log" --pcap "$out/link.pcap" --timeout "$tmo" || rc=1
for side in a b; do
	"$here/check-console.sh" "$out/$side.log" || rc=1
	r=$(sed -n 's/.*SROCE-RESULT rc=\([0-9]*\).*/\1/p' "$out/$side.log" | tail -n1)
	[ "${r:-x}" = 0 ] || { echo "perftest-pair: VM ${side^^} failed (rc=${r:-none})" >&2; rc=1; }
	sed -n '/SROCE-STATS-BEGIN/,/SROCE-STATS-END/p' "$out/$side.log" | tr -d '\r' >"$out/stats-$side.txt"
done
grep -a '^SROCE-WL ' "$out/a.log" | tr -d '\r' >"$out/results.txt" || true
exit $rc

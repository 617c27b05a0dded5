#!/usr/bin/env bash
# Boot two test VMs on one link (tools/testvm/pair.py) and run a guest
# script in each.
#
#   tools/testvm/run-pair.sh -A SCRIPT -B SCRIPT -o OUTDIR
#                            [-k normal|debug|deb6.1|deb6.12] [-f FILE]...
#                            [-s] [-M SROCE.ko] [-t SECONDS] [-i INITRAMFS]
#                            [-P "PARAM=VALUE..."] [-a rxe|sroce] [-b rxe|sroce]
#   tools/testvm/run-pair.sh -1 -A SCRIPT -o OUTDIR [same options]
#
#   -A/-B  scripts run as /sroce/run.sh in VM A (10.0.0.1) and VM B
#          (10.0.0.2); /sroce/guest-lib.sh has the network/RDMA helpers
#   -k     the kernel: a test kernel (normal, debug: tools/testvm/build-
#          kernel.sh) or a Debian stock kernel by its tools/stock-kernels.sh
#          name (deb6.1, deb6.12: the unpacked linux-image-*-unsigned
#          package, tools/testvm/stock-kernel.sh, with its own modules)
#   -f     extra file copied to /sroce/ in both VMs
#   -s     install sroce.ko in both VMs' /lib/modules/<kver>/updates/, so
#          `rdma link add ... type sroce` autoloads it; built with
#          `make module-for` into build/<flavour> against the test kernel's
#          tree or the stock kernel's linux-headers package
#   -M     with -s (implied): install this prebuilt sroce.ko instead of
#          building one (also taken from $SROCE_KO when -s is given); its
#          vermagic must name the kernel booted
#   -t     the budget of the run (default 1200 s); a stock kernel gets
#          60 s more (stock_boot), for its slower boot under TCG
#   -i     the base initramfs flavour (tools/testvm/mkinitramfs.sh;
#          default full)
#   -P     sroce module parameters for VM B (sroce.PARAM=VALUE on its
#          kernel command line, which modprobe applies when it loads sroce)
#   -a/-b  the RDMA provider of VM A / VM B, rxe or sroce: /sroce/provider
#          in that VM, which guest-lib.sh's PROVIDER follows (sroce on
#          either side implies -s).  Without them A runs rxe and B the
#          provider named by a /sroce/responder file (-f), if any, as before
#   -1     one VM only, VM A (10.0.0.1), for loopback tests: its NIC is on
#          a link with no peer, /sroce/single tells guest-lib.sh (PEER_IP
#          is the VM's own address, net_up does not wait for a peer); no
#          -B script; -P applies to VM A
#
# OUTDIR gets a.log, b.log (consoles; no b.log with -1) and link.pcap.
# Fails if a guest script fails, a VM does not finish, or either console
# shows an oops, BUG, WARN, KASAN, lockdep or kmemleak report.
#
# Shared boots (tools/testvm/group.py): with $SROCE_GROUP set to a group
# directory, the run is not booted on its own.  SROCE_GROUP_PHASE=book
# books it into the group (its two /sroce trees and its settings, in the
# order booked) and succeeds at once; group.py then boots the group's
# pair once and runs every booked run in turn, and writes each run's own
# slice of the consoles and of the capture to its OUTDIR.
# SROCE_GROUP_PHASE=replay then judges that slice exactly as a run of its
# own is judged (below), without booting.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
sa= sb= out= flavour=debug tmo=1200 with_sroce=0 rootfs=full ko=
stock_boot=60
files=()
append_b=
prov_a= prov_b= single=0
usage() { sed -n '2,42p' "$0" >&2; exit 2; }
provider_arg() {
	case $1 in
	rxe) ;;
	sroce) with_sroce=1 ;;
	*) echo "run-pair: a provider is rxe or sroce, got '$1'" >&2; exit 2 ;;
	esac
}
while getopts "A:B:o:k:f:sM:t:i:P:a:b:1" o; do
	case $o in
	A) sa=$OPTARG ;; B) sb=$OPTARG ;; o) out=$OPTARG ;; k) flavour=$OPTARG ;;
	f) files+=("$OPTARG") ;; s) with_sroce=1 ;; M) ko=$OPTARG with_sroce=1 ;;
	t) tmo=$OPTARG ;; i) rootfs=$OPTARG ;;
	P) for kv in $OPTARG; do
		[[ $kv =~ ^[a-z_][a-z0-9_]*=[A-Za-z0-9_,.-]+$ ]] ||
			{ echo "run-pair: -P wants PARAM=VALUE, got '$kv'" >&2; exit 2; }
		append_b+=" sroce.$kv"
	   done ;;
	a) provider_arg "$OPTARG"; prov_a=$OPTARG ;;
	b) provider_arg "$OPTARG"; prov_b=$OPTARG ;;
	1) single=1 ;;
	*) usage ;;
	esac
done
[ -n "$sa" ] && { [ -n "$sb" ] || [ $single = 1 ]; } && [ -n "$out" ] || usage
sides="A B"
[ $single = 0 ] || sides=A
[ $with_sroce = 0 ] || [ -n "$ko" ] || ko=${SROCE_KO:-}
mkdir -p "$out"
# kernel: what QEMU boots; moddir: its modules (a build tree or an
# unpacked lib/modules/<kver>); kbuild: what sroce is built against.
case $flavour in
normal | debug)
	kbuild=$("$here/build-kernel.sh" "$flavour" | tail -n1)
	kernel=$kbuild/arch/x86/boot/bzImage
	kver=$(cat "$kbuild/include/config/kernel.release")
	moddir=$kbuild ;;
*)
	info=$("$here/stock-kernel.sh" "$flavour") || exit 2
	get() { sed -n "s/^$1=//p" <<<"$info"; }
	kernel=$(get STOCK_VMLINUZ) kver=$(get STOCK_KVER) moddir=$(get STOCK_MODULES)
	kbuild=$(get STOCK_KDIR)
	# The headers, installed from the cached debs (tools/stock-kernels.sh).
	if [ $with_sroce = 1 ] && [ -z "$ko" ]; then
		kbuild=$("$top/tools/stock-kernels.sh" --headers "$flavour") || exit 2
	fi
	tmo=$((tmo + stock_boot)) ;;
esac
base=$("$here/mkinitramfs.sh" "$rootfs" | tail -n1)
extra=()
if [ $with_sroce = 1 ]; then
	if [ -z "$ko" ]; then
		make -s -C "$top" module-for KDIR="$kbuild" BUILD="$top/build/$flavour" >&2
		ko=$top/build/$flavour/sroce.ko
	fi
	[ -f "$ko" ] || { echo "run-pair: no module $ko" >&2; exit 2; }
	magic=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
	[ "$magic" = "$kver" ] ||
		{ echo "run-pair: $ko is built for '$magic', the $flavour kernel is $kver" >&2; exit 2; }
	echo "run-pair: $flavour kernel $kver, sroce from $ko" >&2
	extra=("$ko")
fi
mods=$("$here/modroot.sh" "$moddir" "${extra[@]}" | tail -n1)
phase=
if [ -n "${SROCE_GROUP:-}" ]; then
	phase=${SROCE_GROUP_PHASE:-}
	case $phase in book | replay) ;;
	*) echo "run-pair: SROCE_GROUP needs SROCE_GROUP_PHASE book or replay" >&2; exit 2 ;;
	esac
fi
out=$(cd "$out" && pwd)

# Replay: the group's boot wrote this run's slices to OUTDIR; judge them.
booking=
if [ "$phase" = replay ]; then
	booking=$(grep -lxF "out=$out" "$SROCE_GROUP"/*/meta 2>/dev/null | head -n1)
	[ -n "$booking" ] || { echo "run-pair: $out was not booked in $SROCE_GROUP" >&2; exit 1; }
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ "$phase" = replay ] || for side in $sides; do
	r=$work/$side/sroce
	mkdir -p "$r"
	echo "$side" >"$r/role"
	if [ $side = A ]; then p=$prov_a; else p=$prov_b; fi
	[ -z "$p" ] || echo "$p" >"$r/provider"
	[ $single = 0 ] || : >"$r/single"
	cp "$here/guest-lib.sh" "$r/"
	for f in "${files[@]}"; do cp "$f" "$r/"; done
	if [ $side = A ]; then s=$sa; else s=$sb; fi
	install -m 0755 "$s" "$r/run.sh"
	[ "$phase" = book ] && continue
	(cd "$work/$side" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$work/$side.cpio.gz"
	cat "$base" "$mods" "$work/$side.cpio.gz" >"$work/initrd-$side.cpio.gz"
done
if [ "$phase" = book ]; then
	mkdir -p "$SROCE_GROUP"
	n=$(find "$SROCE_GROUP" -mindepth 1 -maxdepth 1 -type d | wc -l)
	b=$SROCE_GROUP/$(printf '%02d' "$n")
	mkdir "$b"
	for side in $sides; do cp -a "$work/$side/sroce" "$b/$side"; done
	{
		echo "out=$out"
		echo "flavour=$flavour"
		echo "kernel=$kernel"
		echo "mods=$mods"
		echo "rootfs=$rootfs"
		echo "timeout=$tmo"
		echo "single=$single"
		if [ $single = 1 ]; then echo "append_a=${append_b# }"; else echo "append_b=${append_b# }"; fi
	} >"$b/meta"
	echo "run-pair: booked into $b (group $SROCE_GROUP)" >&2
	exit 0
fi

# A kernel report before /init runs comes from the emulated boot itself
# (seen: a KASAN report in an early edge IRQ under TCG, before any module
# is loaded): the pair is booted once more, and that is logged.  Any report
# after /init started fails the run.
early_report() {
	local first init
	first=$(grep -anE "$("$here/check-console.sh" --pattern)" "$1" | head -n1 | cut -d: -f1)
	init=$(grep -an 'sroce-init: userspace started' "$1" | head -n1 | cut -d: -f1)
	[ -n "$first" ] && { [ -z "$init" ] || [ "$first" -lt "$init" ]; }
}
vm_b=(--initrd-b "$work/initrd-B.cpio.gz" --log-b "$out/b.log" --append-b "${append_b# }")
# -1: sroce's parameters go to the one VM (the kernel command line of A).
extra_a=()
[ $single = 0 ] || { vm_b=(); [ -z "$append_b" ] || extra_a=(--append-a "${append_b# }"); }
rc=0
[ "$phase" = replay ] || for attempt in 1 2; do
	rc=0
	python3 "$here/pair.py" --kernel "$kernel" \
		--initrd-a "$work/initrd-A.cpio.gz" --log-a "$out/a.log" --pcap "$out/link.pcap" \
		--timeout "$tmo" "${vm_b[@]}" "${extra_a[@]}" || rc=1
	if [ $attempt = 1 ] && { early_report "$out/a.log" || { [ $single = 0 ] && early_report "$out/b.log"; }; }; then
		echo "run-pair: kernel report during boot, before /init; booting the pair again" >&2
		for side in ${sides,,}; do cp "$out/$side.log" "$out/$side.boot1.log"; done
		continue
	fi
	break
done
for side in ${sides,,}; do
	"$here/check-console.sh" "$out/$side.log" || rc=1
	r=$(sed -n 's/.*SROCE-RESULT rc=\([0-9]*\).*/\1/p' "$out/$side.log" | tail -n1)
	[ "${r:-x}" = 0 ] || { echo "run-pair: VM ${side^^} failed (rc=${r:-none}), see $out/$side.log" >&2; rc=1; }
done
exit $rc

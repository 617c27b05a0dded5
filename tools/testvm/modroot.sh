#!/usr/bin/env bash
# A cpio.gz of a kernel's modules for the merged-/usr initramfs
# (usr/lib/modules/<ver>, depmod'ed), optionally with extra out-of-tree
# modules under updates/ (so modprobe and `rdma link add ... type sroce`
# find them through modules.alias).
#
#   tools/testvm/modroot.sh KDIR [EXTRA.ko...]      -> path on the last line
#   tools/testvm/modroot.sh MODDIR [EXTRA.ko...]
#
# KDIR: a test kernel's build tree (tools/testvm/build-kernel.sh): all of
# its modules (modules_install), cached next to the kernel.
# MODDIR: an unpacked stock kernel's lib/modules/<ver> (with modules.dep;
# tools/testvm/stock-kernel.sh): only the closure, by modprobe
# --show-depends against that tree, of the modules the tests use ($want
# below) and of the extras' dependencies, plus the tree's modules.order,
# modules.builtin and modules.builtin.modinfo; cached next to the tree.
# Compressed modules (.ko.xz, deb6.12) are kept as Debian ships them:
# Debian 12's kmod in the initramfs loads them, and the 6.12 kernel logs
# one harmless "Invalid ELF header magic: != ELF" per .ko.xz it loads.
set -euo pipefail
kdir=$1
shift
# What the two-VM tests load on a stock kernel (absent or built-in ones
# are skipped): the NIC, the RDMA core and stock rxe, the UDP tunnels,
# VLANs, the CRC32 implementations rxe asks the crypto API for, netem.
want="virtio_pci virtio_net ib_core ib_uverbs ib_umad rdma_ucm rdma_cm rdma_rxe udp_tunnel
	ip6_udp_tunnel 8021q crc32_generic crc32_pclmul crc32c_generic crc32c_intel libcrc32c sch_netem"
extras_key() { for m in "$@"; do sha256sum "$m"; done; }
if [ -f "$kdir/include/config/kernel.release" ]; then
	ver=$(cat "$kdir/include/config/kernel.release")
	key=$( { echo "$kdir"; stat -c %Y "$kdir/.done" 2>/dev/null || true; extras_key "$@"; } |
		sha256sum | cut -c1-12)
	out=$kdir/modroot-$key.cpio.gz
	stock=0
elif [ -f "$kdir/modules.dep" ] && [ -f "$kdir/modules.order" ]; then
	kdir=$(cd "$kdir" && pwd)
	ver=$(basename "$kdir")
	base=$(cd "$kdir/../../.." && pwd)	# the tree holding lib/modules/<ver>
	[ "$base/lib/modules/$ver" = "$kdir" ] ||
		{ echo "modroot: $kdir is not <root>/lib/modules/<ver>" >&2; exit 2; }
	key=$( { echo "$kdir $want"; stat -c %Y "$kdir/modules.dep"; sha256sum "$0"; extras_key "$@"; } |
		sha256sum | cut -c1-12)
	out=$base/modroot-$key.cpio.gz
	stock=1
else
	echo "modroot: $kdir is neither a kernel build tree nor a lib/modules/<ver> tree" >&2
	exit 2
fi
if [ -s "$out" ]; then echo "$out"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mods=$work/root/usr/lib/modules
mkdir -p "$work/root/usr/lib"
if [ $stock = 0 ]; then
	src=$(readlink -f "$kdir/source")
	make -s -C "$src" O="$kdir" INSTALL_MOD_PATH="$work/stage" INSTALL_MOD_STRIP=1 \
		DEPMOD=/bin/true modules_install >&2
	mv "$work/stage/lib/modules" "$mods"
else
	names=$want
	for m in "$@"; do names+=" $(modinfo -F depends "$m" | tr , ' ')"; done
	mkdir -p "$mods/$ver"
	for n in $names; do
		modprobe -d "$base" -S "$ver" --show-depends "$n" 2>/dev/null || true
	done | sed -n 's/^insmod \([^ ]*\).*/\1/p' | sort -u | while read -r f; do
		rel=${f#"$base"/}
		rel=${rel#./}
		rel=${rel#lib/modules/"$ver"/}
		mkdir -p "$mods/$ver/$(dirname "$rel")"
		cp "$f" "$mods/$ver/$rel"
	done
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		cp "$kdir/$f" "$mods/$ver/"
	done
	for n in virtio_net ib_core rdma_rxe; do	# the closure must have what the tests need
		grep -qE "^kernel/.*/$n\.ko" "$kdir/modules.builtin" ||
			find "$mods/$ver" -name "$n.ko*" | grep -q . ||
			{ echo "modroot: $n missing from $kdir" >&2; exit 1; }
	done
fi
if [ $# -gt 0 ]; then
	mkdir -p "$mods/$ver/updates"
	for m in "$@"; do	# named as the module calls itself (depmod names it by its
		# file), compressed (.ko.xz, from DKMS) or not
		cp "$m" "$mods/$ver/updates/$(modinfo -F name "$m").ko${m##*.ko}"
	done
fi
depmod -b "$work/root/usr" "$ver"
(cd "$work/root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
echo "$out"

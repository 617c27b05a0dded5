#!/usr/bin/env bash
# Fetch (or reuse) one of Debian's stock kernels, as shipped: the
# linux-image-<kver>-unsigned package of tools/stock-kernels.sh NAME,
# unpacked, not built.
#
#   tools/testvm/stock-kernel.sh deb6.1|deb6.12
#
# The .deb is kept in $SROCE_CACHE/debs (default ~/.cache/sroce), the
# unpacked tree in $SROCE_CACHE/stock/<kver>/ (boot/vmlinuz-<kver>,
# lib/modules/<kver>/ with modules.dep from depmod: the package ships
# none); a second run downloads and unpacks nothing.  Prints, one per line:
#
#   STOCK_NAME=deb6.1
#   STOCK_KVER=6.1.0-57-amd64
#   STOCK_VMLINUZ=.../stock/6.1.0-57-amd64/boot/vmlinuz-6.1.0-57-amd64
#   STOCK_MODULES=.../stock/6.1.0-57-amd64/lib/modules/6.1.0-57-amd64
#   STOCK_HEADERS=linux-headers-6.1.0-57-amd64   (package; installed under
#   STOCK_KDIR=/usr/src/linux-headers-6.1.0-57-amd64   this KDIR)
#
# tools/testvm/modroot.sh STOCK_MODULES builds the VMs' module root from
# the unpacked tree (only the modules the tests need).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${SROCE_CACHE:-$HOME/.cache/sroce}
name=${1:-}
[ -n "$name" ] || { sed -n '2,20p' "$0" >&2; exit 2; }
read -r _ kver image headers < <("$top/tools/stock-kernels.sh" "$name") ||
	{ echo "stock-kernel: no stock kernel named '$name'" >&2; exit 2; }
"$top/tools/deps.sh" kmod >&2

dir=$cache/stock/$kver
mkdir -p "$cache/debs" "$cache/stock"
exec 9>"$cache/stock/.lock-$kver"
flock 9
if [ ! -e "$dir/.done" ]; then
	deb=$(ls "$cache/debs/${image}_"*.deb 2>/dev/null | sort -V | tail -n1 || true)
	if [ -z "$deb" ]; then
		echo "stock-kernel: apt-get download $image" >&2
		(cd "$cache/debs" && { apt-get download "$image" ||
			{ apt-get update -qq && apt-get download "$image"; }; }) >&2
		deb=$(ls "$cache/debs/${image}_"*.deb | sort -V | tail -n1)
	fi
	echo "stock-kernel: unpacking $(basename "$deb")" >&2
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$deb" "$dir"
	[ -f "$dir/boot/vmlinuz-$kver" ] && [ -d "$dir/lib/modules/$kver/kernel" ] ||
		{ echo "stock-kernel: $deb has no vmlinuz-$kver or modules" >&2; exit 1; }
	depmod -b "$dir" "$kver"
	touch "$dir/.done"
fi
echo "STOCK_NAME=$name"
echo "STOCK_KVER=$kver"
echo "STOCK_VMLINUZ=$dir/boot/vmlinuz-$kver"
echo "STOCK_MODULES=$dir/lib/modules/$kver"
echo "STOCK_HEADERS=$headers"
echo "STOCK_KDIR=/usr/src/$headers"

#!/usr/bin/env bash
# A cpio.gz of a test kernel's modules (modules_install + depmod), laid
# out for the merged-/usr initramfs (usr/lib/modules/<ver>), optionally
# with extra out-of-tree modules under extra/.  Cached next to the kernel.
#   tools/testvm/modroot.sh KDIR [EXTRA.ko...]   -> path on the last line
set -euo pipefail
kdir=$1
shift
src=$(readlink -f "$kdir/source")
ver=$(cat "$kdir/include/config/kernel.release")
key=$( { echo "$kdir"; stat -c %Y "$kdir/.done" 2>/dev/null || true; for m in "$@"; do sha256sum "$m"; done; } |
	sha256sum | cut -c1-12)
out=$kdir/modroot-$key.cpio.gz
if [ -s "$out" ]; then echo "$out"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s -C "$src" O="$kdir" INSTALL_MOD_PATH="$work/stage" INSTALL_MOD_STRIP=1 \
	DEPMOD=/bin/true modules_install >&2
mkdir -p "$work/root/usr/lib"
mv "$work/stage/lib/modules" "$work/root/usr/lib/modules"
if [ $# -gt 0 ]; then
	mkdir -p "$work/root/usr/lib/modules/$ver/extra"
	cp "$@" "$work/root/usr/lib/modules/$ver/extra/"
fi
depmod -b "$work/root/usr" "$ver"
(cd "$work/root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$out"
echo "$out"

#!/usr/bin/env bash
# Build (or reuse) the base initramfs for the test VMs.
#
#   tools/testvm/mkinitramfs.sh [base|full|pyverbs]
#
# The root is unpacked from Debian packages (apt-get download + dpkg-deb),
# shared libraries are resolved with ldd against the same packages
# installed on the host, and tools/testvm/init is the guest's /init.
# "full" adds the RDMA userspace (rdma-core, perftest, iproute2 ...),
# "pyverbs" that and Python 3 with Debian's python3-pyverbs.
# libgcc-s1: glibc dlopens libgcc_s.so.1 for pthread_exit() (rping), which
# ldd cannot see.
# Cached in $SROCE_CACHE/initramfs keyed by the package list and the
# init script; the path of the cpio.gz is the last line of stdout.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${SROCE_CACHE:-$HOME/.cache/sroce}
flavour=${1:-base}

pkgs=(busybox-static kmod)
if [ "$flavour" = full ] || [ "$flavour" = pyverbs ]; then
	pkgs+=(rdma-core ibverbs-providers libibverbs1 librdmacm1 libibumad3 libpci3
		perftest ibverbs-utils rdmacm-utils iproute2 netcat-openbsd libgcc-s1)
fi
if [ "$flavour" = pyverbs ]; then
	pkgs+=(python3-minimal python3.11-minimal libpython3.11-minimal
		libpython3.11-stdlib libpython3.11 python3-pyverbs)
fi
# Installed on the host too, so ldd can resolve their libraries.
"$top/tools/deps.sh" cpio gzip file "${pkgs[@]}"

key=$( { printf '%s\n' "${pkgs[@]}"; cat "$here/init" "$0"; dpkg-query -W "${pkgs[@]}"; } |
	sha256sum | cut -c1-12)
out=$cache/initramfs/$flavour-$key.cpio.gz
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$cache/initramfs" "$cache/debs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"

(cd "$cache/debs" && apt-get download "${pkgs[@]}" >/dev/null 2>&1 ||
	{ apt-get update -qq && apt-get download "${pkgs[@]}" >/dev/null; })
for p in "${pkgs[@]}"; do
	deb=$(ls "$cache/debs/${p}_"*.deb | sort -V | tail -n1)
	dpkg-deb -x "$deb" "$root"
done

# Merged /usr, as on Debian 12.
for d in bin sbin lib lib64; do
	mkdir -p "$root/usr/$d"
	if [ -d "$root/$d" ] && [ ! -L "$root/$d" ]; then
		cp -a "$root/$d/." "$root/usr/$d/"
		rm -rf "${root:?}/$d"
	fi
	ln -sfn "usr/$d" "$root/$d"
done

# Shared libraries of every ELF file in the root, from the host.
copy_lib() {
	local f=$1 real
	real=$(readlink -f "$f")
	mkdir -p "$root$(dirname "$f")"
	if [ ! -e "$root$f" ]; then cp -L "$real" "$root$f"; fi
}
find "$root/usr" -type f -perm -u+x -o -type f -name '*.so*' | while read -r f; do
	file -b "$f" 2>/dev/null | grep -q ELF || continue
	ldd "$f" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib64/{print $1}'  || true
done | sort -u | while read -r lib; do
	copy_lib "$lib"
	case $lib in /lib/*|/lib64/*) copy_lib "/usr$lib" ;; esac
done
# The dynamic loader at its canonical path.
mkdir -p "$root/usr/lib64"
cp -L /lib64/ld-linux-x86-64.so.2 "$root/usr/lib64/"

# busybox applets for everything else.
"$root/usr/bin/busybox" --list-full 2>/dev/null | while read -r a; do
	[ -e "$root/$a" ] || ln -s /usr/bin/busybox "$root/$a" 2>/dev/null || true
done
mkdir -p "$root"/{proc,sys,dev,tmp,run,mnt,etc,sroce}
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
install -m 0755 "$here/init" "$root/init"
ldconfig -r "$root" 2>/dev/null || true

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
echo "$out"

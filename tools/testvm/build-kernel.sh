#!/usr/bin/env bash
# Build (or reuse) the sroce test kernel.
#
#   tools/testvm/build-kernel.sh [normal|debug]
#   tools/testvm/build-kernel.sh --source     only fetch and unpack the
#                                             source; print its directory
#                                             (checkpatch.pl for make style)
#
# Source: Debian's linux-source-6.1 package (apt-get download), config:
# tinyconfig + tools/testvm/kernel.config (+ debug.config for "debug").
# The build tree lives in $SROCE_CACHE (default ~/.cache/sroce), keyed by
# the source package version and the hash of the fragments, and is reused
# until either changes.  On success the build directory (usable as KDIR for
# out-of-tree modules; bzImage under arch/x86/boot/) is the last line of
# stdout.
set -euo pipefail

flavour=${1:-normal}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${SROCE_CACHE:-$HOME/.cache/sroce}
jobs=${JOBS:-$(nproc)}

case $flavour in
normal) frags=("$here/kernel.config") ;;
debug) frags=("$here/kernel.config" "$here/debug.config") ;;
--source) frags=() ;;
*) echo "usage: $0 [normal|debug]" >&2; exit 2 ;;
esac

"$top/tools/deps.sh" build-essential bc bison flex libelf-dev libssl-dev \
	cpio xz-utils kmod python3 dwarves

mkdir -p "$cache/debs" "$cache/src" "$cache/kernel"
# The source is fetched and unpacked under one lock, each build under its own.
exec 8>"$cache/kernel/.lock-source"
flock 8

deb=$(ls "$cache"/debs/linux-source-6.1_*.deb 2>/dev/null | sort -V | tail -n1 || true)
if [ -z "$deb" ]; then
	(cd "$cache/debs" && { apt-get download linux-source-6.1 ||
		{ apt-get update -qq && apt-get download linux-source-6.1; }; }) >&2
	deb=$(ls "$cache"/debs/linux-source-6.1_*.deb | sort -V | tail -n1)
fi
ver=$(dpkg-deb -f "$deb" Version)
src=$cache/src/linux-source-$ver
if [ ! -e "$src/.unpacked" ]; then
	echo "build-kernel: unpacking linux-source $ver" >&2
	rm -rf "$src" "$src.deb"
	dpkg-deb -x "$deb" "$src.deb"
	mkdir -p "$src"
	tar -xJf "$src.deb"/usr/src/linux-source-6.1.tar.xz -C "$src" --strip-components=1
	rm -rf "$src.deb"
	touch "$src/.unpacked"
fi
flock -u 8
if [ "$flavour" = --source ]; then
	echo "$src"
	exit 0
fi
exec 9>"$cache/kernel/.lock-$flavour"
flock 9

key=$(cat "${frags[@]}" | sha256sum | cut -c1-12)
out=$cache/kernel/$ver-$flavour-$key
if [ -e "$out/.done" ]; then
	echo "build-kernel: reusing $out" >&2
	echo "$out"
	exit 0
fi

echo "build-kernel: building $flavour kernel $ver in $out (about 13+ minutes)" >&2
rm -rf "$out"
mkdir -p "$out"
{
	make -C "$src" O="$out" tinyconfig
	KCONFIG_CONFIG="$out/.config" "$src"/scripts/kconfig/merge_config.sh -m \
		-O "$out" "$out/.config" "${frags[@]}"
	make -C "$src" O="$out" olddefconfig
} >"$out/config.log" 2>&1 || { tail -n 30 "$out/config.log" >&2; exit 1; }

# Every option the fragments ask for must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=n) opt=${line%%=*}
		grep -q "^$opt=" "$out/.config" && { echo "build-kernel: $opt still set" >&2; bad=1; } ;;
	CONFIG_*=*) grep -qxF "$line" "$out/.config" ||
		{ echo "build-kernel: $line did not survive olddefconfig" >&2; bad=1; } ;;
	esac
done < <(cat "${frags[@]}")
[ $bad -eq 0 ] || exit 1

if ! make -C "$src" O="$out" -j"$jobs" bzImage modules >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	exit 1
fi
touch "$out/.done"
echo "$out"

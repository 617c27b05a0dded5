#!/usr/bin/env bash
# Build sroce against Debian 12's stock kernel headers (linux-headers-amd64),
# with W=1, and fail on any compiler, objtool or modpost warning: a user on
# a stock Debian 12 kernel must be able to build it.
#   tools/check-stock-build.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/deps.sh" linux-headers-amd64 build-essential
ver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 | grep -oE 'linux-headers-[^ ,]+' | head -n1)
kdir=/usr/src/$ver
[ -d "$kdir" ] || { echo "check-stock: $kdir missing" >&2; exit 1; }
out=$top/build/stock
rm -rf "$out"
log=$(mktemp)
if ! make -s -C "$top" module-for KDIR="$kdir" BUILD="$out" >"$log" 2>&1; then
	cat "$log" >&2
	echo "check-stock: build against $ver FAILED" >&2
	exit 1
fi
if grep -iE 'warning|error' "$log" >&2; then
	echo "check-stock: build against $ver has warnings" >&2
	exit 1
fi
modinfo "$out/sroce.ko" | grep -E '^(vermagic|name)' >&2
echo "check-stock: sroce.ko builds cleanly against $ver"

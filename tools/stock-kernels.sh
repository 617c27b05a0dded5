#!/usr/bin/env bash
# The Debian kernels sroce is built and tested against, besides the
# project's own test kernels: one line per kernel line,
#
#   NAME KVER IMAGE-PACKAGE HEADERS-PACKAGE
#
#   deb6.1   the kernel of linux-headers-amd64 (Debian 12's default)
#   deb6.12  the newest linux-headers-6.12.*+deb12-amd64 whose
#            linux-image-...-unsigned is also in the registry
#
#   tools/stock-kernels.sh [NAME]    all lines, or NAME's line only
#   tools/stock-kernels.sh --headers NAME
#                                    install NAME's headers (linux-headers-*,
#                                    its -common and linux-kbuild-*) from
#                                    debs cached in $SROCE_CACHE/debs, like
#                                    the test kernels' source, and print
#                                    the headers directory (a KDIR)
#
# Reads apt's package lists (apt-get update once if they are empty).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
headers=0
if [ "${1:-}" = --headers ]; then
	headers=1
	shift
	[ -n "${1:-}" ] || { echo "usage: $0 --headers NAME" >&2; exit 2; }
fi
want=${1:-}
if ! apt-cache show linux-headers-amd64 >/dev/null 2>&1; then
	apt-get update -qq >&2
fi
# The candidate linux-headers-amd64 (not the first stanza: that can be an
# older suite's).
cand=$(apt-cache policy linux-headers-amd64 | sed -n 's/^ *Candidate: //p')
k61=$(apt-cache show "linux-headers-amd64=$cand" | sed -n 's/^Depends: .*linux-headers-\([^ ,]*\) .*/\1/p' | head -n1)
k612=
for v in $(apt-cache pkgnames linux-headers-6.12. | sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb12-amd64\)$/\1/p' | sort -rV); do
	if apt-cache show "linux-image-$v-unsigned" >/dev/null 2>&1; then k612=$v; break; fi
done
[ -n "$k61" ] && [ -n "$k612" ] || { echo "stock-kernels: cannot resolve the Debian kernels" >&2; exit 1; }
lines="deb6.1 $k61 linux-image-$k61-unsigned linux-headers-$k61
deb6.12 $k612 linux-image-$k612-unsigned linux-headers-$k612"
if [ -z "$want" ]; then
	echo "$lines"
	exit 0
fi
line=$(grep "^$want " <<<"$lines") || { echo "stock-kernels: no kernel named $want" >&2; exit 2; }
if [ $headers = 0 ]; then
	echo "$line"
	exit 0
fi
read -r _ _ _ hpkg <<<"$line"
kdir=/usr/src/$hpkg
# One installer at a time: make test's chains ask for the headers side by
# side (the download into the cache, then apt's own lock).
exec 9>/tmp/.sroce-stock-headers.lock
flock 9
if ! dpkg-query -W -f='${Status}' "$hpkg" 2>/dev/null | grep -q 'install ok installed'; then
	cache=${SROCE_CACHE:-$HOME/.cache/sroce}/debs
	mkdir -p "$cache"
	pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances "$hpkg" | grep -E '^linux-(headers|kbuild)-' | sort -u)
	debs=()
	for p in $pkgs; do
		v=$(apt-cache policy "$p" | sed -n 's/^ *Candidate: //p')
		d=$(ls "$cache/${p}_${v//:/%3a}_"*.deb 2>/dev/null | head -n1 || true)
		if [ -z "$d" ]; then
			(cd "$cache" && apt-get download "$p=$v") >&2
			d=$(ls "$cache/${p}_${v//:/%3a}_"*.deb | head -n1)
		fi
		debs+=("$d")
	done
	"$top/tools/deps.sh" build-essential >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
		--no-install-recommends "${debs[@]}" >&2
fi
[ -f "$kdir/Makefile" ] || { echo "stock-kernels: $kdir missing after install" >&2; exit 1; }
echo "$kdir"

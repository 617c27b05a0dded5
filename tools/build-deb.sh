#!/usr/bin/env bash
# make deb: the sroce-dkms Debian package, built with Debian's own tooling
# (dpkg-buildpackage, debhelper, dh-dkms) from a copy of the tree.
#   tools/build-deb.sh [OUTDIR]      default build/deb; the .deb's path is
#                                    the last line of stdout
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/deb}
"$top/tools/deps.sh" dpkg-dev debhelper dh-dkms build-essential
ver=$(sed -n '1s/^sroce (\([^)]*\)).*/\1/p' "$top/debian/changelog")
[ -n "$ver" ] || { echo "build-deb: no version in debian/changelog" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/sroce-$ver"
(cd "$top" && cp -r Kbuild Makefile dkms.conf drivers include kunit debian "$out/sroce-$ver/")
rm -f "$out/sroce-$ver/drivers/sroce/compat/config.h"
(cd "$out/sroce-$ver" && dpkg-buildpackage -b -us -uc) >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log" >&2; exit 1; }
deb=$out/sroce-dkms_${ver}_all.deb
[ -f "$deb" ] || { echo "build-deb: $deb was not produced" >&2; exit 1; }
echo "$deb"

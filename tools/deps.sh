#!/usr/bin/env bash
# Package installer shared by every sroce script.
#
#   tools/deps.sh PKG...      install the Debian packages that are missing
#
# Runs `apt-get update` at most once per machine boot (stamp in the cache),
# and only when something is actually missing.  Needs root or sudo.
set -euo pipefail

missing=()
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
stamp=/tmp/.sroce-apt-updated
if [ ! -e "$stamp" ]; then
	echo "deps: apt-get update" >&2
	$SUDO apt-get update -qq -o DPkg::Lock::Timeout=600
	touch "$stamp"
fi
echo "deps: installing ${missing[*]}" >&2
$SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}" >/dev/null

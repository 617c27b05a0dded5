#!/usr/bin/env bash
# Installation like a real driver, tested for real on this machine (the
# modules are built and installed, never loaded: the stock-kernel VM runs
# load them):
#   1. the sroce-dkms Debian package (make deb): installed with dpkg, whose
#      postinst runs dkms build + install for each kernel; the modules it
#      installed are copied to build/dkms/<KVER>/sroce.ko, the module the
#      stock-kernel VM runs load, and build/dkms/.ready says so (at once,
#      so that those runs start while the rest goes on; also when this
#      script ends early, whatever it made); dkms build + install again by
#      hand, as after a kernel update; then purged, which removes them;
#   2. make install / make uninstall into a staging root, for each Debian
#      kernel: sroce.ko under updates/, depmod's alias for autoload;
#   3. make dkms-install / make dkms-remove from the tree, for every
#      kernel whose headers are installed.
# Headers: Debian's 6.1 and 6.12 (tools/stock-kernels.sh).  Needs root.
#   tools/dkms-test.sh         prints a KTAP document of its checks as it
#                              goes (also to build/dkms-test.ktap), then
#                              its count, "dkms: P passed, F failed"
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
mkdir -p build
KTAP_ONLY=1 . "$top/tools/testvm/guest-lib.sh"
KTAP_STATE=$top/build/dkms-test.state
doc=$top/build/dkms-test.ktap
ktap_begin >"$doc"	# the plan at the end
cat "$doc"
ok() { ktap_ok "$*" >>"$doc"; tail -n1 "$doc"; }
bad() { ktap_fail "$*" >>"$doc"; tail -n1 "$doc"; }
# finish: the plan, and tools/ktap.py's count of the document.
finish() {
	ktap_end >>"$doc"
	tail -n1 "$doc"
	python3 "$top/tools/ktap.py" count --name dkms "$doc"
	exit
}
check() {	# check WHAT CMD...
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
mapfile -t kernels < <(tools/stock-kernels.sh)
kdirs=() kvers=()
for l in "${kernels[@]}"; do
	read -r name kv _ _ <<<"$l"
	kvers+=("$kv")
	kdirs+=("$(tools/stock-kernels.sh --headers "$name")") || { bad "the headers of $name"; finish; }
done
tools/deps.sh dkms dpkg-dev debhelper dh-dkms build-essential kmod xz-utils zstd ccache ||
	{ bad "the packages DKMS needs install"; finish; }
# The compiler through ccache (Debian's /usr/lib/ccache names), its cache
# beside the kernels' ($SROCE_CACHE/ccache): DKMS builds in the same
# directories every time, so most of the eight builds of sroce below (per
# kernel: the package's, dkms build by hand, make install, make
# dkms-install) are cache hits once one has run, here or in an earlier
# run; a changed source or header compiles again.  188 s of compiling
# became 109 s warm on an idle machine; beside make test's VMs this stage
# runs at the lowest priority, and the stock-kernel runs wait for its
# first build.
export CCACHE_DIR=${SROCE_CACHE:-$HOME/.cache/sroce}/ccache CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=2G
export PATH=/usr/lib/ccache:$PATH
ver=$(sed -n '1s/^sroce (\([^)]*\)).*/\1/p' debian/changelog)
out=$top/build/dkms
rm -rf "$out"
mkdir -p "$out"
ready() { touch "$out/.ready"; }
trap ready EXIT

# A clean slate: no sroce from an earlier run, even one stopped part-way
# through an install (its DKMS tree can then lack the dkms.conf that
# dkms remove needs, and every later build fails on it).
dpkg --purge sroce-dkms >/dev/null 2>&1
dkms remove "sroce/$ver" --all >/dev/null 2>&1
rm -rf "/usr/src/sroce-$ver" /var/lib/dkms/sroce

alias_of() {	# alias_of ROOT KVER: the module rdma-link-sroce resolves to
	sed -n 's/^alias rdma-link-sroce \(.*\)$/\1/p' "$1/lib/modules/$2/modules.alias" 2>/dev/null
}
vermagic_is() {	# vermagic_is KO KVER
	[ "$(modinfo -F vermagic "$1" 2>/dev/null | cut -d' ' -f1)" = "$2" ]
}

# dkms_ko KVER: the module DKMS installed for KVER (compressed like the
# kernel's own modules: sroce.ko.xz on Debian's 6.12).
dkms_ko() {
	ls "/lib/modules/$1/updates/dkms/"sroce.ko* 2>/dev/null | head -n1
}
# dkms_installed KVER: dkms status says installed, and the module is there
# with KVER's vermagic.
dkms_installed() {
	dkms status "sroce/$ver" -k "$1" 2>/dev/null | grep -q ': installed' &&
		vermagic_is "$(dkms_ko "$1")" "$1"
}
# keep_ko KVER: the DKMS-installed module, uncompressed, for the VM runs.
keep_ko() {
	local ko
	ko=$(dkms_ko "$1")
	mkdir -p "$out/$1"
	case $ko in
	*.xz) xz -dc "$ko" >"$out/$1/sroce.ko" ;;
	*.zst) zstd -qdc "$ko" >"$out/$1/sroce.ko" ;;
	?*) cp "$ko" "$out/$1/sroce.ko" ;;
	esac
}

# 1. The Debian package first: its DKMS build is the module the
# stock-kernel runs load, and they wait for it (ready).
deb=$(tools/build-deb.sh "$out/deb" 2>"$out/deb.log" | tail -n1)
check "make deb builds sroce-dkms_${ver}_all.deb" test -f "$deb"
check "the package holds the source and dkms.conf for $ver" \
	sh -c "dpkg-deb -c '$deb' | grep './usr/src/sroce-$ver/dkms.conf' >/dev/null"
if dpkg -i "$deb" >"$out/dpkg-i.log" 2>&1; then ok "dpkg -i sroce-dkms"; else
	bad "dpkg -i sroce-dkms"; tail -n 30 "$out/dpkg-i.log"; fi
grep -E 'Building|Installing|Error' "$out/dpkg-i.log" | sed 's/^/dkms: postinst: /'
for kv in "${kvers[@]}"; do
	check "$kv: the package's DKMS build is installed" dkms_installed "$kv"
	keep_ko "$kv"	# the module the stock-kernel VM runs load
done
ready
# dkms build and dkms install again, by hand, as after a kernel update.
for kv in "${kvers[@]}"; do
	dkms remove "sroce/$ver" -k "$kv" >/dev/null 2>&1
	check "$kv: dkms build" sh -c "dkms build sroce/$ver -k '$kv' >'$out/build-$kv.log' 2>&1"
	check "$kv: dkms install" sh -c "dkms install sroce/$ver -k '$kv' >'$out/install-$kv.log' 2>&1"
	check "$kv: installed again with the right vermagic" dkms_installed "$kv"
done
dpkg --purge sroce-dkms >"$out/dpkg-purge.log" 2>&1
for kv in "${kvers[@]}"; do
	check "$kv: dpkg --purge removes the module" test -z "$(dkms_ko "$kv")"
	check "$kv: the DKMS-built module is kept for the VM runs" vermagic_is "$out/$kv/sroce.ko" "$kv"
done
check "dpkg --purge removes the source" test ! -e "/usr/src/sroce-$ver"
# 2. make install / uninstall, staged.
for i in "${!kvers[@]}"; do
	kv=${kvers[$i]} kdir=${kdirs[$i]}
	# The tree builds at one path in every clone (a clone's own path
	# would be in each compiler command, and ccache would miss).
	src=${SROCE_CACHE:-$HOME/.cache/sroce}/dkms-test-src/$kv root=$out/root-$kv
	rm -rf "$src"
	mkdir -p "$src" "$root"
	cp -r Kbuild Makefile dkms.conf drivers include kunit debian "$src/"
	rm -f "$src/drivers/sroce/compat/config.h"
	if ! make -s -C "$src" module KDIR="$kdir" >"$out/make-$kv.log" 2>&1; then
		bad "$kv: make module"; tail -n 20 "$out/make-$kv.log"; continue
	fi
	make -s -C "$src" install KDIR="$kdir" INSTALL_MOD_PATH="$root" >>"$out/make-$kv.log" 2>&1
	check "$kv: make install puts sroce.ko under updates/" test -f "$root/lib/modules/$kv/updates/sroce.ko"
	check "$kv: depmod maps rdma-link-sroce to sroce (autoload)" test "$(alias_of "$root" "$kv")" = sroce
	check "$kv: modules.dep lists updates/sroce.ko" \
		grep -q '^updates/sroce.ko:' "$root/lib/modules/$kv/modules.dep"
	make -s -C "$src" uninstall KDIR="$kdir" INSTALL_MOD_PATH="$root" >>"$out/make-$kv.log" 2>&1
	check "$kv: make uninstall removes it" test ! -e "$root/lib/modules/$kv/updates/sroce.ko"
	check "$kv: and its alias" test -z "$(alias_of "$root" "$kv")"
done

# 3. make dkms-install / dkms-remove.
if make -s dkms-install DKMS_KERNELS="${kvers[*]}" >"$out/dkms-install.log" 2>&1; then
	ok "make dkms-install"
else
	bad "make dkms-install"; tail -n 30 "$out/dkms-install.log"
fi
for kv in "${kvers[@]}"; do
	check "$kv: make dkms-install built and installed sroce" dkms_installed "$kv"
	check "$kv: depmod maps rdma-link-sroce to sroce" test "$(alias_of "" "$kv")" = sroce
done
make -s dkms-remove >"$out/dkms-remove.log" 2>&1
for kv in "${kvers[@]}"; do
	check "$kv: make dkms-remove removes the module" test -z "$(dkms_ko "$kv")"
done
check "make dkms-remove removes the source and the DKMS tree" \
	test ! -e "/usr/src/sroce-$ver" -a ! -e "/var/lib/dkms/sroce/$ver"

finish

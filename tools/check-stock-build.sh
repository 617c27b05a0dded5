#!/usr/bin/env bash
# make check-stock: sroce builds, at W=1 with every compiler, objtool and
# modpost warning fatal, against every kernel tree it supports:
#   deb6.1, deb6.12   Debian's 6.1 and 6.12 headers (tools/stock-kernels.sh)
#   debug             the project's test kernel (tools/testvm/build-kernel.sh debug)
# and the kernel API probes (drivers/sroce/compat/probe.sh) find in each
# tree exactly what it has (the table below).  The probes are checked in
# both directions with two synthetic trees, symlink copies of Debian's
# headers with a few headers rewritten: "past" (6.1 before the stable
# backport of timer_delete_sync) and "future" (6.12 plus the upstream
# changes after it: the string-literal MODULE_IMPORT_NS of v6.13, the DMA
# handle of v6.17, timer_container_of of v6.16);
# sroce must build against both as well.
#
# Each tree's modules are built by `make module-for` in build/stock/TREE/
# (sroce.ko, and sroce_kunit.ko where the kernel has CONFIG_KUNIT, as the
# debug kernel does: checked), so that the VM test stages can load
# build/stock/debug's modules instead of building their own.
# A tree's build directory is kept and rebuilt incrementally by kbuild,
# but only if the last check of it passed in full, against the same
# kernel tree (path, configuration, release and version strings), with
# the same compiler and this script unchanged, and it holds no source file
# the tree no longer has.  Otherwise it is removed first: an object built
# with a warning would not be rebuilt, so its warning would not be printed
# again, and a stale copy of a deleted header could still be included.
#
# The checker itself is checked: main.c of a copy of the sources, with a
# W=1 warning planted, is compiled alone (a kbuild single target, W=1)
# against the first tree, and the warning must get through the filter.
#   tools/check-stock-build.sh [TREE...]     default: all five
# Prints a KTAP document of its checks as it goes (also to
# build/stock/stock-build.ktap), then its count by tools/ktap.py,
# "stock-build: P passed, F failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/stock
mkdir -p "$out"
KTAP_ONLY=1 . "$top/tools/testvm/guest-lib.sh"
KTAP_STATE=$out/stock-build.state
doc=$out/stock-build.ktap
ktap_begin >"$doc"	# the plan at the end
cat "$doc"
fail=0	# failures so far: a tree whose checks all passed is cached
ok() { ktap_ok "$*" >>"$doc"; tail -n1 "$doc"; }
bad() { ktap_fail "$*" >>"$doc"; tail -n1 "$doc"; fail=$((fail + 1)); }

# What each tree has.
declare -A expect=(
	[deb6.1]="MODULE_IMPORT_NS_IDENT TIMER_DELETE_SYNC"
	[deb6.12]="CREATE_CQ_ATTRS LINUX_UNALIGNED_H MODULE_IMPORT_NS_IDENT TIMER_DELETE_SYNC"
	[debug]="MODULE_IMPORT_NS_IDENT TIMER_DELETE_SYNC"
	[past]="MODULE_IMPORT_NS_IDENT"
	[future]="CREATE_CQ_ATTRS LINUX_UNALIGNED_H REG_MR_DMAH TIMER_CONTAINER_OF TIMER_DELETE_SYNC"
)
trees=("$@")
[ ${#trees[@]} -gt 0 ] || trees=(deb6.1 deb6.12 debug past future)

# hdrs_of deb6.1: the headers directory, installed.  Asked once per run
# (past and future are made from deb6.1's and deb6.12's).
memo=$(mktemp -d)
trap 'rm -rf "$memo"' EXIT
hdrs_of() {
	[ -s "$memo/$1" ] || "$top/tools/stock-kernels.sh" --headers "$1" >"$memo/$1" || return 1
	cat "$memo/$1"
}

# overlay NAME BASE: a copy of Debian headers BASE (its -amd64 directory
# and the -common one its Makefile includes) made of symlinks, in
# $out/NAME; files are rewritten by edit.  Prints the new KDIR.
overlay() {
	local base=$2 common dir=$out/overlay-$1
	common=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$base/Makefile")
	[ -d "$common" ] || return 1
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -as "$common" "$dir/common" && cp -as "$base" "$dir/amd64" || return 1
	# Real files, so that the kernel Makefile finds its tree here.
	rm "$dir/common/Makefile" && cp "$common/Makefile" "$dir/common/Makefile"
	echo "include $dir/common/Makefile" >"$dir/amd64/Makefile.new"
	rm "$dir/amd64/Makefile" && mv "$dir/amd64/Makefile.new" "$dir/amd64/Makefile"
	echo "$dir/amd64"
}

# edit KDIR FILE: rewrite include/FILE of an overlay with the python
# statements on stdin (s is the text; rep(old, new) must match once).
# The new file keeps the original's time, so that a rebuilt overlay does
# not rebuild every object (what it is made of is in the build's stamp).
edit() {
	local f=$1/../common/include/$2 real
	real=$(readlink -f "$f")
	rm "$f"
	python3 -c '
import sys
src, dst, code = sys.argv[1], sys.argv[2], sys.stdin.read()
s = open(src).read()
def rep(old, new):
    global s
    if s.count(old) != 1:
        sys.exit("check-stock: %r found %d times in %s" % (old, s.count(old), src))
    s = s.replace(old, new)
exec(code)
open(dst, "w").write(s)
' "$real" "$f" && touch -r "$real" "$f"
}

make_past() {
	local k
	k=$(overlay past "$(hdrs_of deb6.1)") || return 1
	edit "$k" linux/timer.h <<'PY' || return 1
rep("extern int timer_delete_sync(struct timer_list *timer);\n", "")
rep("extern int timer_delete(struct timer_list *timer);\n", "")
rep("static inline int del_timer_sync(struct timer_list *timer)\n{\n\treturn timer_delete_sync(timer);\n}",
    "extern int del_timer_sync(struct timer_list *timer);")
rep("static inline int del_timer(struct timer_list *timer)\n{\n\treturn timer_delete(timer);\n}",
    "extern int del_timer(struct timer_list *timer);")
PY
	# Such a kernel exports the old names, as its timer.h says: so does
	# the overlay's Module.symvers, or modpost could not resolve them.
	local symvers=$k/Module.symvers
	cp --remove-destination "$(readlink -f "$symvers")" "$symvers" || return 1
	sed -n 's/\ttimer_delete\(_sync\)\?\t/\tdel_timer\1\t/p' "$symvers" >"$symvers.old" &&
		[ "$(wc -l <"$symvers.old")" = 2 ] && cat "$symvers.old" >>"$symvers" && rm "$symvers.old" ||
		return 1
	echo "$k"
}

make_future() {
	local k
	k=$(overlay future "$(hdrs_of deb6.12)") || return 1
	edit "$k" rdma/ib_verbs.h <<'PY' || return 1
rep("struct uverbs_attr_bundle;\n", "struct uverbs_attr_bundle;\nstruct ib_dmah;\n")
rep("""				     u64 virt_addr, int mr_access_flags,
				     struct ib_udata *udata);""", """				     u64 virt_addr, int mr_access_flags,
				     struct ib_dmah *dmah,
				     struct ib_udata *udata);""")
rep("""					    int mr_access_flags,
					    struct uverbs_attr_bundle *attrs);""", """					    int mr_access_flags,
					    struct ib_dmah *dmah,
					    struct uverbs_attr_bundle *attrs);""")
PY
	edit "$k" linux/module.h <<'PY' || return 1
rep("#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, __stringify(ns))",
    "#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)")
PY
	edit "$k" linux/timer.h <<'PY' || return 1
rep("#define from_timer(", "#define timer_container_of(var, callback_timer, timer_fieldname) \\\n\tcontainer_of(callback_timer, typeof(*var), timer_fieldname)\n\n#define from_timer(")
PY
	echo "$k"
}

kdir_of() {
	case $1 in
	deb6.1|deb6.12) hdrs_of "$1" ;;
	debug) "$top/tools/testvm/build-kernel.sh" "$1" | tail -n1 ;;
	past) make_past ;;
	future) make_future ;;
	*) return 1 ;;
	esac
}

# warnings LOG: what the build printed besides the probes' summary line
# and kbuild's note on BTF: every such line is a warning.
warnings() {
	grep -v '^probe: ' "$1" | grep -vE '^Skipping BTF generation .* unavailability of vmlinux$'
}

# ident KDIR: what a build against KDIR depends on that kbuild does not
# see change: the tree behind KDIR (an overlay's base), its configuration,
# release and version strings, the compilers, this script (which makes
# the overlays).
ident() {
	readlink -f "$1/.config"
	cat "$1/.config" "$1"/include/generated/utsrelease.h "$1"/include/generated/utsversion.h \
		"$top/tools/check-stock-build.sh" | cksum
	{ gcc --version; g++ --version; } 2>/dev/null | cksum
}

# stale DIR: DIR, a build directory, holds a source file that the tree
# does not (module-for copies the sources over it and deletes nothing).
stale() {
	local f
	while IFS= read -r -d '' f; do
		[ -e "$top/${f#"$1"/}" ] || return 0
	done < <(find "$1" -type f \( -name '*.[chS]' -o -name '*.cc' -o -name '*.sh' -o -name 'Kbuild*' \
		-o -name Makefile \) ! -name '*.mod.c' ! -path "$1/drivers/sroce/compat/config.h" -print0 2>/dev/null)
	return 1
}

mkdir -p "$out"
# Every probe says what it detects (its macro) and the version that changed it.
for f in "$top"/drivers/sroce/compat/probes/*.c; do
	m=SROCE_HAVE_$(basename "$f" .c | tr '[:lower:]' '[:upper:]')
	if grep -q " \* $m: " "$f" && grep -qE 'v[0-9]+\.[0-9]+' "$f"; then
		ok "probe $(basename "$f") documents $m and a kernel version"
	else
		bad "probe $(basename "$f") does not document $m and the version that changed it"
	fi
done
kdir0=
for t in "${trees[@]}"; do
	if ! kdir=$(kdir_of "$t") || [ ! -d "$kdir" ]; then bad "$t: no kernel tree"; continue; fi
	[ "$t" != "${trees[0]}" ] || kdir0=$kdir
	b=$out/$t
	id=$(ident "$kdir")
	if [ "$(cat "$b/.stock-ok" 2>/dev/null)" != "$id" ] || stale "$b"; then rm -rf "$b"; fi
	rm -f "$b/.stock-ok"
	fail0=$fail
	log=$out/$t.log
	if ! make -s -C "$top" module-for KDIR="$kdir" BUILD="$b" >"$log" 2>&1; then
		cat "$log"
		bad "$t: sroce.ko does not build against $kdir"
		continue
	fi
	if warnings "$log" | grep -q .; then
		warnings "$log"
		bad "$t: the W=1 build has warnings"
	elif ! grep -q -- '-DKBUILD_EXTRA_WARN1 ' "$b/drivers/sroce/.main.o.cmd"; then
		bad "$t: main.o was not compiled at W=1"
	else
		ok "$t: sroce.ko builds at W=1 without a warning ($(modinfo -F vermagic "$b/sroce.ko" | cut -d' ' -f1))"
	fi
	if grep -qE '^CONFIG_KUNIT=[ym]$' "$kdir/include/config/auto.conf" 2>/dev/null; then
		if [ -f "$b/sroce_kunit.ko" ]; then ok "$t: sroce_kunit.ko builds too (the kernel has KUnit)"; else
			bad "$t: the kernel has KUnit, but no sroce_kunit.ko was built"; fi
	fi
	have=$(sed -n 's/^#define SROCE_HAVE_\([A-Z0-9_]*\) 1$/\1/p' "$b/drivers/sroce/compat/config.h" | sort | xargs)
	want=$(tr ' ' '\n' <<<"${expect[$t]}" | sort | xargs)
	if [ "$have" = "$want" ]; then ok "$t: probes found: ${have:-nothing}"; else
		bad "$t: probes found '$have', expected '$want'"; fi
	[ "$fail" != "$fail0" ] || printf '%s\n' "$id" >"$b/.stock-ok"
done

# The checker itself: main.c with one W=1 warning added must be caught.
# Only main.o of the copy is compiled (a kbuild single target, W=1, as
# module-for builds), against the first tree, with the probe results of
# that tree's build (probe.sh keeps them if they are for that tree); its
# output goes through the same filter as a module build's.
# ($out/selftest: where the whole copy used to be built.)
self=$out/selftest-src
rm -rf "$self" "$out/selftest"
mkdir -p "$self"
(cd "$top" && cp -r Kbuild drivers include kunit "$self/")
rm -f "$self/drivers/sroce/main.o" "$self/drivers/sroce/compat/config.h"
cp "$out/${trees[0]}/drivers/sroce/compat/config.h" "$self/drivers/sroce/compat/config.h" 2>/dev/null || true
echo 'static int sroce_check_stock_selftest;' >>"$self/drivers/sroce/main.c"
if [ -n "$kdir0" ] &&
	"$self/drivers/sroce/compat/probe.sh" "$kdir0" "$self/drivers/sroce/compat/config.h" >"$out/selftest.log" 2>&1 &&
	make -s -C "$kdir0" M="$self" W=1 drivers/sroce/main.o >>"$out/selftest.log" 2>&1 &&
	warnings "$out/selftest.log" | grep -qE 'main\.c:[0-9]+:[0-9]+: warning: .*sroce_check_stock_selftest'; then
	ok "the warning check catches an unused variable added to main.c"
else
	cat "$out/selftest.log" 2>/dev/null
	bad "the warning check missed an unused variable added to main.c"
fi
# probe.sh's cache (SROCE_PROBE_CACHE, which make test sets): a first run
# probes and keeps its header, a second one takes it back unchanged, and a
# planted entry is what a run with that key gets (so a key that missed a
# change would be seen); another kernel's headers probe afresh.
pc=$out/probe-cache
rm -rf "$pc"
probe() {	# probe KDIR OUT: probe.sh with the cache $pc; its messages in $pc.log
	SROCE_PROBE_CACHE=$pc "$top/drivers/sroce/compat/probe.sh" "$1" "$2" >>"$pc.log" 2>&1
}
if [ -n "$kdir0" ] && probe "$kdir0" "$out/probe-1.h" && probe "$kdir0" "$out/probe-2.h" &&
	[ "$(ls "$pc" | wc -l)" = 1 ] && cmp -s "$out/probe-1.h" "$out/probe-2.h" &&
	grep -q 'as probed before' "$pc.log"; then
	ok "probe.sh keeps its header in SROCE_PROBE_CACHE and the next run takes it back"
else
	bad "probe.sh's cache: one header kept, then taken back unchanged"; cat "$pc.log" 2>/dev/null
fi
entry=$(ls "$pc"/*.h 2>/dev/null | head -n1)
if [ -n "$entry" ] && sed -i 's|^/\* probe key|/* planted */\n&|' "$entry" &&
	probe "$kdir0" "$out/probe-3.h" && grep -q planted "$out/probe-3.h" &&
	probe "$(hdrs_of "${trees[1]:-deb6.12}")" "$out/probe-4.h" && ! grep -q planted "$out/probe-4.h" &&
	[ "$(ls "$pc" | wc -l)" = 2 ]; then
	ok "a probe.sh cache entry serves its own kernel's key only"
else
	bad "a probe.sh cache entry serves its own kernel's key only"; cat "$pc.log" 2>/dev/null
fi
ktap_end >>"$doc"
tail -n1 "$doc"
python3 "$top/tools/ktap.py" count --name stock-build "$doc"

#!/usr/bin/env bash
# make check-stock: sroce builds, at W=1 with every compiler, objtool and
# modpost warning fatal, against every kernel tree it supports:
#   deb6.1, deb6.12   Debian's 6.1 and 6.12 headers (tools/stock-kernels.sh)
#   normal, debug     the project's test kernels (tools/testvm/build-kernel.sh)
# and the kernel API probes (drivers/sroce/compat/probe.sh) find in each
# tree exactly what it has (the table below).  The probes are checked in
# both directions with two synthetic trees, symlink copies of Debian's
# headers with a few headers rewritten: "past" (6.1 before the stable
# backport of timer_delete_sync) and "future" (6.12 plus the upstream
# changes after it: the string-literal MODULE_IMPORT_NS of v6.13, the DMA
# handle of v6.17, timer_container_of of v6.16, rdma_link_ops.dellink);
# sroce must build against both as well.
#   tools/check-stock-build.sh [TREE...]     default: all six
# Prints "stock-build: P passed, F failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/stock
pass=0 fail=0
ok() { echo "stock-build: ok: $*"; pass=$((pass + 1)); }
bad() { echo "stock-build: FAIL: $*"; fail=$((fail + 1)); }

# What each tree has.
declare -A expect=(
	[deb6.1]="MODULE_IMPORT_NS_IDENT TIMER_DELETE_SYNC"
	[deb6.12]="CREATE_CQ_ATTRS LINUX_UNALIGNED_H MODULE_IMPORT_NS_IDENT REG_MR_DMABUF_ATTRS TIMER_DELETE_SYNC"
	[normal]="MODULE_IMPORT_NS_IDENT TIMER_DELETE_SYNC"
	[debug]="MODULE_IMPORT_NS_IDENT TIMER_DELETE_SYNC"
	[past]="MODULE_IMPORT_NS_IDENT"
	[future]="CREATE_CQ_ATTRS LINK_DELLINK LINUX_UNALIGNED_H REG_MR_DMABUF_ATTRS REG_MR_DMAH TIMER_CONTAINER_OF TIMER_DELETE_SYNC"
)
trees=("$@")
[ ${#trees[@]} -gt 0 ] || trees=(deb6.1 deb6.12 normal debug past future)

hdrs_of() {	# hdrs_of deb6.1: the headers directory, installed
	"$top/tools/stock-kernels.sh" --headers "$1"
}

# overlay NAME BASE: a copy of Debian headers BASE (its -amd64 directory
# and the -common one its Makefile includes) made of symlinks, in
# $out/NAME; files are rewritten by edit.  Prints the new KDIR.
overlay() {
	local name=$1 base=$2 common dir=$out/overlay-$1
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
' "$real" "$f"
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
	edit "$k" rdma/rdma_netlink.h <<'PY' || return 1
rep("	int (*newlink)(const char *ibdev_name, struct net_device *ndev);\n",
    "	int (*newlink)(const char *ibdev_name, struct net_device *ndev);\n	int (*dellink)(struct ib_device *dev);\n")
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
	normal|debug) "$top/tools/testvm/build-kernel.sh" "$1" | tail -n1 ;;
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
# The checker itself: a source tree with one W=1 warning added must be
# caught (against the first tree).
self=$out/selftest-src
rm -rf "$self"
mkdir -p "$self"
(cd "$top" && cp -r Kbuild Makefile dkms.conf drivers include kunit "$self/")
rm -f "$self/drivers/sroce/compat/config.h"
echo 'static int sroce_check_stock_selftest;' >>"$self/drivers/sroce/main.c"
if kdir=$(kdir_of "${trees[0]}") &&
	make -s -C "$self" module-for KDIR="$kdir" BUILD="$out/selftest" >"$out/selftest.log" 2>&1 &&
	warnings "$out/selftest.log" | grep -q 'sroce_check_stock_selftest'; then
	ok "the warning check catches an unused variable added to main.c"
else
	cat "$out/selftest.log"
	bad "the warning check missed an unused variable added to main.c"
fi

for t in "${trees[@]}"; do
	kdir=$(kdir_of "$t") && [ -d "$kdir" ] || { bad "$t: no kernel tree"; continue; }
	b=$out/$t
	rm -rf "$b"
	log=$out/$t.log
	if ! make -s -C "$top" module-for KDIR="$kdir" BUILD="$b" >"$log" 2>&1; then
		cat "$log"
		bad "$t: sroce.ko does not build against $kdir"
		continue
	fi
	if warnings "$log" | grep -q .; then
		warnings "$log"
		bad "$t: the W=1 build has warnings"
	else
		ok "$t: sroce.ko builds at W=1 without a warning ($(modinfo -F vermagic "$b/sroce.ko" | cut -d' ' -f1))"
	fi
	have=$(sed -n 's/^#define SROCE_HAVE_\([A-Z0-9_]*\) 1$/\1/p' "$b/drivers/sroce/compat/config.h" | sort | xargs)
	want=$(tr ' ' '\n' <<<"${expect[$t]}" | sort | xargs)
	if [ "$have" = "$want" ]; then ok "$t: probes found: ${have:-nothing}"; else
		bad "$t: probes found '$have', expected '$want'"; fi
done
echo "stock-build: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

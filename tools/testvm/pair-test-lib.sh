# Sourced by the VM test wrappers (device, integrity, errors, pyverbs,
# kverbs, kcm ...).
# They set `top` first.

# pair_setup NAME FLAVOUR [RESPONDER]: sets flavour (and resp) and a fresh
# output directory $out = build/NAME-FLAVOUR[-RESPONDER]; with a
# responder, $out/responder names it for the guests (-f "$out/responder").
# FLAVOUR: a test kernel (normal, debug) or a stock one (deb6.1, deb6.12);
# ko_args: run-pair.sh's -M for a prebuilt sroce.ko named by $SROCE_KO
# (empty when unset: run-pair.sh builds sroce.ko for the kernel).
pair_setup() {
	flavour=$2
	resp=${3:-}
	ko_args=()
	[ -z "${SROCE_KO:-}" ] || ko_args=(-M "$SROCE_KO")
	out=$top/build/$1-$flavour${resp:+-$resp}
	# A replay (run-pair.sh, shared boots) judges what the boot left here.
	[ "${SROCE_GROUP_PHASE:-}" = replay ] || rm -rf "$out"
	mkdir -p "$out"
	[ -z "$resp" ] || echo "$resp" >"$out/responder"
}

# pair_grep_count REGEX FILE...: lines matching REGEX (0 if none).
pair_grep_count() {
	local re=$1
	shift
	cat "$@" 2>/dev/null | grep -aEc "$re" || true
}

# pair_verdict NAME RC PASS FAIL [SKIP]: print "NAME: P passed, F failed"
# (and ", S skipped" for checks that cannot run on this kernel: they count
# neither as passed nor as failed) and succeed only if none failed.  A
# failed VM run (RC != 0) with no failed check still counts as one
# failure, and so does a run with no passes.
pair_verdict() {
	local name=$1 rc=$2 pass=$3 fail=$4 skip=${5:-0} more=
	[ "$rc" -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
	[ "$pass" -gt 0 ] || fail=$((fail + 1))
	[ "$skip" -eq 0 ] || more=", $skip skipped"
	echo "$name: $pass passed, $fail failed$more"
	[ "$fail" -eq 0 ]
}

# kverbs_modules NAME: build tools/kverbs' test modules (sroce_kverbs.ko,
# sroce_kcm.ko) into $kvdir = build/kverbs-$flavour, at W=1, against the
# test kernel $flavour (whose tree it sets in kdir); outside the source
# tree, which keeps no objects, and once per kernel: the copy keeps the
# sources' timestamps, so a second call rebuilds nothing.  On a failure or
# a warning it prints the log and "NAME: 0 passed, 1 failed", and exits.
kverbs_modules() {
	kdir=$("$here/build-kernel.sh" "$flavour" | tail -n1)
	kvdir=$top/build/kverbs-$flavour
	mkdir -p "$kvdir"
	cp -p "$top/tools/kverbs/Kbuild" "$top/tools/kverbs/Makefile" "$top/tools/kverbs/"*.c "$kvdir/"
	if ! make -s -C "$kvdir" KDIR="$kdir" W=1 >"$out/kverbs-build.log" 2>&1 ||
		grep -q 'warning:' "$out/kverbs-build.log"; then
		cat "$out/kverbs-build.log" >&2
		rm -f "$kvdir"/*.o	# so that the next build shows the warning again
		echo "$1: 0 passed, 1 failed"
		exit 1
	fi
}

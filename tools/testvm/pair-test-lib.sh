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

# stallmon_build DEST: tools/testvm/stallmon.c, the guests' stall monitor,
# built to DEST (each run its own: runs beside each other share no build).
stallmon_build() {
	gcc -O2 -Wall -Wextra -Werror -o "$1" "$top/tools/testvm/stallmon.c"
}

# The wrapper's own KTAP document (tools/testvm/guest-lib.sh's emitter):
# its host-side checks and the guests' documents as subtests, written to
# $ktap = $out/NAME.ktap by pair_ktap_begin, ended by pair_ktap_end, which
# prints it and its count.
KTAP_ONLY=1 . "$top/tools/testvm/guest-lib.sh"

# pair_ktap_begin NAME: a fresh document in $ktap.
pair_ktap_begin() {
	ktap=$out/$1.ktap
	KTAP_STATE=$out/$1.ktap-state
	ktap_begin >"$ktap"
}

# pair_ktap_guest NAME LOG...: the KTAP documents in a guest's console LOGs
# as subtest NAME of $ktap; its result fails if tools/ktap.py would fail
# them (none, a truncated one, a failed check).
pair_ktap_guest() {
	local name=$1 n
	shift
	n=$(($(wc -l <"$KTAP_STATE") + 1))
	python3 "$top/tools/ktap.py" subtest --name "$name" --number "$n" "$@" >"$ktap.sub" 2>/dev/null
	if tail -n1 "$ktap.sub" | grep -q '^ok '; then echo ok; else echo "not ok"; fi >>"$KTAP_STATE"
	cat "$ktap.sub" >>"$ktap"
	rm -f "$ktap.sub"
}

# pair_ktap_end NAME RC: one check more, that the VM run (RC) ended
# cleanly; the plan; prints $ktap and "NAME: P passed, F failed" (",
# S skipped"), tools/ktap.py's count of it, with its reasons on stderr;
# succeeds only if none failed and some passed.
pair_ktap_end() {
	# The VM run's own check must not be the only pass: a document
	# whose every other result failed or that has none fails here.
	grep -qx ok "$KTAP_STATE" || ktap_fail "some check of the run passed" >>"$ktap"
	ktap_check "$2" "the VM run ended cleanly (run-pair.sh)" >>"$ktap"
	ktap_end >>"$ktap"
	cat "$ktap"
	python3 "$top/tools/ktap.py" count --name "$1" "$ktap"
}

# kverbs_modules NAME: build tools/kverbs' test modules (sroce_kverbs.ko,
# sroce_kcm.ko) into $kvdir = build/kverbs-$flavour, at W=1, against the
# test kernel $flavour (whose tree it sets in kdir); outside the source
# tree, which keeps no objects, and once per kernel: the copy keeps the
# sources' timestamps, so a second call rebuilds nothing (the sources are
# copied anew: none that a split or a rename left behind).  On a failure or
# a warning it prints the log and "NAME: 0 passed, 1 failed", and exits.
kverbs_modules() {
	kdir=$("$here/build-kernel.sh" "$flavour" | tail -n1)
	kvdir=$top/build/kverbs-$flavour
	mkdir -p "$kvdir"
	rm -f "$kvdir"/*.[ch]
	cp -p "$top/tools/kverbs/Kbuild" "$top/tools/kverbs/Makefile" "$top/tools/kverbs/"*.[ch] "$kvdir/"
	if ! make -s -C "$kvdir" KDIR="$kdir" W=1 >"$out/kverbs-build.log" 2>&1 ||
		grep -q 'warning:' "$out/kverbs-build.log"; then
		cat "$out/kverbs-build.log" >&2
		rm -f "$kvdir"/*.o	# so that the next build shows the warning again
		echo "$1: 0 passed, 1 failed"
		exit 1
	fi
}

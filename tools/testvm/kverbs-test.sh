#!/usr/bin/env bash
# Kernel verbs in one VM (the debug kernel by default): tools/kverbs/
# sroce_kverbs.ko, the KUnit suite sroce_kverbs (a kernel consumer of
# ib_alloc_pd, ib_alloc_cq in each poll context, RC, SRQ and UD QPs,
# ib_post_send/recv and ib_drain_qp: one case a check, over the device's
# runs <dev>_<poll>_<family>), runs its loopback checks on stock rdma_rxe
# (the control, which must pass in full) and then on sroce
# (tools/testvm/kverbs-guest.sh).
#   tools/testvm/kverbs-test.sh [normal|debug]
# Takes each run's KTAP from the guest's console to build/kverbs-<flavour>/
# <dev>.ktap and has the kernel tree's kunit.py parse it (<dev>-parse.txt).
# Prints a KTAP document, the sroce run's as a subtest, and its count by
# tools/ktap.py, "kverbs: P passed, F failed" (", S skipped"); fails if
# any test point failed or crashed, if kunit.py found the sroce run
# failed, or if the rxe control did not pass.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
pair_setup kverbs "${1:-debug}"
case $flavour in
normal | debug) ;;
*) echo "kverbs-test: a test kernel (normal or debug), got '$flavour'" >&2; exit 2 ;;
esac
"$top/tools/deps.sh" qemu-system-x86 busybox-static kmod
kverbs_modules kverbs
kunitpy=$(readlink -f "$kdir/source")/tools/testing/kunit/kunit.py
rc=0
"$here/run-pair.sh" -1 -A "$here/kverbs-guest.sh" -o "$out" -k "$flavour" -s "${ko_args[@]}" \
	-t 600 -f "$kvdir/sroce_kverbs.ko" || rc=1
log=$out/a.log
touch "$log"

# ktap_count WHAT FILE: kunit.py's count of the test points that WHAT
# (passed, failed, crashed, skipped; errors: of the parse) in FILE.
ktap_count() {
	sed -n 's/.*Testing complete\. Ran [0-9]* tests: //p' "$2" | tail -n1 |
		grep -oE "(^|, )$1: [0-9]+" | grep -oE '[0-9]+$' || echo 0
}

# ktap_failures PREFIX <KTAP: "PREFIX <case> <run>: <reason>" for each failed
# test point (the last line of its failure's message), the first 40; then
# how many more failed as "not run" (after an earlier failure).
ktap_failures() {
	awk -v pfx="$1" '
	/^ *# Subtest: / { name = $NF; next }
	/ FAILED at / { infail = 1; why = ""; next }
	/^ *(not )?ok [0-9]+ / {
		if ($1 == "not") {
			desc = $0
			sub(/^ *not ok [0-9]+ /, "", desc)
			line = ""
			if ($0 ~ /^        [^ ]/)
				line = name " " desc
			else if ($0 ~ /^    [^ ]/ && desc != name)
				line = desc
			if (line != "" && why ~ /^not run: /)
				notrun++
			else if (line != "" && shown++ < 40)
				print pfx line ": " why
		}
		infail = 0
		why = ""
		next
	}
	infail && NF { why = $0; sub(/^ +/, "", why) }
	END { if (notrun) print pfx notrun " more failed as not run, after a failure above" }'
}

# kverbs_parse DEV PREFIX: the KTAP of the suite's run on DEV, from the
# console (between the guest's markers, from the suite's header on) under
# a top-level header, to $out/DEV.ktap (the suite numbered 1 there: KUnit
# counts on from the suites of other modules still loaded in a shared
# boot); kunit.py parses it to
# $out/DEV-parse.txt.  Sets parsed (1 if kunit.py passed it), and pass,
# fail, skip: kunit.py's count of its test points, fail with the crashed
# ones and the parse's errors.  Prints the failures, after PREFIX.
kverbs_parse() {
	local dev=$1 parse=$out/$1-parse.txt
	tr -d '\r' <"$log" | sed -n "/^KVERBS-KTAP-BEGIN $dev\$/,/^KVERBS-KTAP-END $dev\$/p" |
		sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | grep -av '^KVERBS-KTAP-' |
		awk 'started || /^    KTAP version 1$/ { started = 1; print }' |
		sed -E 's/^(not )?ok [0-9]+ sroce_kverbs$/\1ok 1 sroce_kverbs/' >"$out/$dev-suite.ktap"
	{ echo "KTAP version 1"; echo "1..1"; cat "$out/$dev-suite.ktap"; } >"$out/$dev.ktap"
	parsed=1
	python3 "$kunitpy" parse "$out/$dev.ktap" >"$parse" 2>&1 || parsed=0
	pass=$(ktap_count passed "$parse")
	skip=$(ktap_count skipped "$parse")
	fail=$(($(ktap_count failed "$parse") + $(ktap_count crashed "$parse") +
		$(ktap_count errors "$parse")))
	grep -aF '[ERROR]' "$parse" | head -n 20 | sed "s/^/$2/" >&2
	ktap_failures "$2" <"$out/$dev.ktap" >&2
}

kverbs_parse rxe0 "kverbs-test: rxe control: "
rxe="$pass passed, $fail failed, $skip skipped"
rxe_ok=1
[ $parsed = 1 ] && [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ] &&
	grep -qaE '^ +ok [0-9]+ rxe0_' "$out/rxe0.ktap" && rxe_ok=0
kverbs_parse sroce0 "kverbs-test: "
echo "kverbs-test: rxe control: $rxe ($out/rxe0-parse.txt)" >&2
[ $rxe_ok = 0 ] || echo "kverbs-test: the rxe control did not pass: the test itself is suspect" >&2
[ $parsed = 1 ] || echo "kverbs-test: kunit.py did not pass the sroce run, see $out/sroce0-parse.txt" >&2
# The wrapper's KTAP: the sroce run's (the suite's test points) as a
# subtest, and the checks of the rxe control and of kunit.py.
pair_ktap_begin kverbs
pair_ktap_guest sroce0 "$out/sroce0.ktap"
{
	ktap_check $rxe_ok "the rxe control passed in full ($rxe)"
	ktap_check $((1 - parsed)) "kunit.py passes the sroce run"
	grep -qaE '^ +ok [0-9]+ sroce0_' "$out/sroce0.ktap"
	ktap_check $? "a check of sroce0 passed"
} >>"$ktap"
pair_ktap_end kverbs $rc

#!/usr/bin/env bash
# The shared-boot harness must judge each run by its own slice: three
# planted runs booked beside the real ones (tools/run-tests.sh puts them
# first in the debug kernel's pair boot): one whose guest script fails,
# one whose console shows a kernel report (a WARNING line), one that
# leaves a lossy netem qdisc on eth0 (and passes), and one that passes if
# its link has no qdisc left.  The failing two must not take the next run
# with them, and the reset between runs must take the qdisc away (that the
# last, booked after them, passes shows both).  Without $SROCE_GROUP each run boots on its own.
#   tools/testvm/group-selftest.sh [debug|deb6.1|deb6.12]
# Prints a KTAP document of the verdicts and its count, "group-selftest:
# P passed, F failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
flav=${1:-debug}
# The verdicts, in KTAP (guest-lib.sh's emitter), counted by tools/ktap.py.
mkdir -p "$top/build"
doc=$top/build/group-selftest-$flav.ktap
KTAP_STATE=$doc.state
ktap_begin 5 >"$doc"
judge() {	# judge NAME WANT(pass|fail) RC LOG
	local got=pass
	[ "$3" -eq 0 ] || got=fail
	if [ "$got" = "$2" ]; then
		ktap_ok "the $1 run was judged $got"
	else
		ktap_fail "the $1 run was judged $got, not $2"
		sed 's/^/# | /' "$4"
	fi >>"$doc"
}
for run in fail report netem ok; do
	pair_setup "group-selftest-$run" "$flav"
	r=0
	"$here/run-pair.sh" -A "$here/selftest/$run.sh" -B "$here/selftest/$run.sh" -o "$out" \
		-k "$flavour" "${ko_args[@]}" -t 120 >"$out/judge.log" 2>&1 || r=1
	case $run in
	ok | netem) judge "$run" pass $r "$out/judge.log" ;;
	*) judge "$run" fail $r "$out/judge.log" ;;
	esac
done
# The report run failed for its report, not for something else.
if grep -q 'check-console: kernel reported a problem' "$top/build/group-selftest-report-$flav/judge.log"; then
	ktap_ok "the planted report was found by check-console"
else
	ktap_fail "the report run did not fail on its report"
fi >>"$doc"
cat "$doc"
python3 "$top/tools/ktap.py" count --name group-selftest "$doc"

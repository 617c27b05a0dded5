#!/usr/bin/env bash
# The shared-boot harness must judge each run by its own slice: three
# planted runs booked beside the real ones (tools/run-tests.sh puts them
# first in the debug kernel's pair boot): one that passes, one whose
# guest script fails, one whose console shows a kernel report (a WARNING
# line).  Only the first may pass; the failing two must not take the next
# run with them (that the passing one, booked after them, passes shows
# it).  Without $SROCE_GROUP each run boots on its own.
#   tools/testvm/group-selftest.sh [debug|deb6.1|deb6.12]
# Prints "group-selftest: P passed, F failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
flav=${1:-debug}
pass=0 fail=0
judge() {	# judge NAME WANT(pass|fail) RC LOG
	local got=pass
	[ "$3" -eq 0 ] || got=fail
	if [ "$got" = "$2" ]; then
		echo "group-selftest: ok: the $1 run was judged $got"
		pass=$((pass + 1))
	else
		echo "group-selftest: FAIL: the $1 run was judged $got, not $2"
		sed 's/^/  | /' "$4"
		fail=$((fail + 1))
	fi
}
for run in fail report ok; do
	pair_setup "group-selftest-$run" "$flav"
	r=0
	"$here/run-pair.sh" -A "$here/selftest/$run.sh" -B "$here/selftest/$run.sh" -o "$out" \
		-k "$flavour" "${ko_args[@]}" -t 120 >"$out/judge.log" 2>&1 || r=1
	case $run in
	ok) judge "$run" pass $r "$out/judge.log" ;;
	*) judge "$run" fail $r "$out/judge.log" ;;
	esac
done
# The report run failed for its report, not for something else.
if grep -q 'check-console: kernel reported a problem' "$top/build/group-selftest-report-$flav/judge.log"; then
	echo "group-selftest: ok: the planted report was found by check-console"
	pass=$((pass + 1))
else
	echo "group-selftest: FAIL: the report run did not fail on its report"
	fail=$((fail + 1))
fi
echo "group-selftest: $pass passed, $fail failed"
[ $fail -eq 0 ]

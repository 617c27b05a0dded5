#!/usr/bin/env bash
# The stall detector must see a stall that is there and no stall that is
# not: VM A asks the host to stop VM B's QEMU process for 1500 ms
# (SIGSTOP, tools/testvm/pair.py's planted stall) while both run
# tools/testvm/stallmon.c (tools/testvm/selftest/stall.sh).  B's
# stallmon must report a stall of at least 1000 ms, A's none that long.
# make compare judges its rounds with the same detector.
#   tools/testvm/stall-selftest.sh [debug|deb6.1|deb6.12]
# Prints a KTAP document of its checks and its count, "stall-selftest: P
# passed, F failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
pair_setup stall-selftest "${1:-debug}"
stallmon_build "$out/stallmon" ||
	{ echo "stall-selftest: 0 passed, 1 failed"; exit 1; }
rc=0
"$here/run-pair.sh" -A "$here/selftest/stall.sh" -B "$here/selftest/stall.sh" -o "$out" \
	-k "$flavour" "${ko_args[@]}" -t 180 -f "$out/stallmon" || rc=1
pair_ktap_begin stall-selftest
check() {	# check WHAT CONDITION...: one KTAP result
	local what=$1
	shift
	"$@"
	ktap_check $? "$what" >>"$ktap"
}
longest() {	# the longest stall (ms) a console log reports, 0 if none
	tr -d '\r' <"$1" 2>/dev/null | awk '$1 == "SROCE-STALL" && $2 > m { m = $2 } END { print m + 0 }'
}
a=$(longest "$out/a.log") b=$(longest "$out/b.log")
check "VM B, stopped for 1500 ms, saw a stall of at least 1000 ms ($b ms)" test "$b" -ge 1000
check "VM A, never stopped, saw none that long ($a ms)" test "$a" -lt 1000
check "both monitors ran to the end" test "$(cat "$out/a.log" "$out/b.log" 2>/dev/null |
	grep -ac '^SROCE-STALL-SUMMARY')" -eq 2
pair_ktap_end stall-selftest $rc

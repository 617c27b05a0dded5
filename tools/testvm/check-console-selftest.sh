#!/usr/bin/env bash
# The console checker must pass a clean boot log and fail every kind of
# kernel report it is meant to catch.  A KTAP document, one result a case,
# then "console-check: P passed, F failed" (tools/ktap.py's count).
#   tools/testvm/check-console-selftest.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
KTAP_ONLY=1 . "$here/guest-lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
KTAP_STATE=$tmp/ktap-state
reports=('BUG: KASAN: slab-out-of-bounds in sroce_resp_rx+0x1/0x2'
	'WARNING: CPU: 0 PID: 1 at drivers/x.c:1 f+0x0/0x1'
	'WARNING: possible circular locking dependency detected'
	'BUG: sleeping function called from invalid context at mm/slab.h:1'
	'Oops: 0000 [#1] PREEMPT SMP'
	'unreferenced object 0xffff888003a1b000 (size 64):'
	'general protection fault, probably for non-canonical address'
	'Kernel panic - not syncing: Fatal exception')
{
	ktap_begin $((1 + ${#reports[@]}))
	printf 'Linux version 6.1\nrcu: \tRCU lockdep checking is enabled.\nkmemleak: Kernel memory leak detector initialized\nSROCE-RESULT rc=0\n' >"$tmp/clean"
	"$here/check-console.sh" "$tmp/clean" >/dev/null 2>&1
	ktap_check $? "a clean boot log passes"
	for report in "${reports[@]}"; do
		{ cat "$tmp/clean"; echo "$report"; } >"$tmp/bad"
		if "$here/check-console.sh" "$tmp/bad" >/dev/null 2>&1; then
			ktap_fail "caught: $report"
		else
			ktap_ok "caught: $report"
		fi
	done
} >"$tmp/ktap"
cat "$tmp/ktap"
python3 "$here/../ktap.py" count --name console-check "$tmp/ktap"

#!/usr/bin/env bash
# The console checker must pass a clean boot log and fail every kind of
# kernel report it is meant to catch.
#   tools/testvm/check-console-selftest.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
printf 'Linux version 6.1\nrcu: \tRCU lockdep checking is enabled.\nkmemleak: Kernel memory leak detector initialized\nSROCE-RESULT rc=0\n' >"$tmp/clean"
if "$here/check-console.sh" "$tmp/clean" 2>/dev/null; then pass=$((pass + 1)); else
	echo "check-console-selftest: clean log rejected" >&2; fail=$((fail + 1)); fi
for report in 'BUG: KASAN: slab-out-of-bounds in sroce_resp_rx+0x1/0x2' \
	'WARNING: CPU: 0 PID: 1 at drivers/x.c:1 f+0x0/0x1' \
	'WARNING: possible circular locking dependency detected' \
	'BUG: sleeping function called from invalid context at mm/slab.h:1' \
	'Oops: 0000 [#1] PREEMPT SMP' \
	'unreferenced object 0xffff888003a1b000 (size 64):' \
	'general protection fault, probably for non-canonical address' \
	'Kernel panic - not syncing: Fatal exception'; do
	{ cat "$tmp/clean"; echo "$report"; } >"$tmp/bad"
	if "$here/check-console.sh" "$tmp/bad" 2>/dev/null; then
		echo "check-console-selftest: missed: $report" >&2
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done
echo "check-console: $pass passed, $fail failed"
[ $fail -eq 0 ]

#!/usr/bin/env bash
# Fail if a console log shows a kernel oops, BUG, WARN, KASAN report,
# lockdep splat, hung task or kmemleak report.
#   tools/testvm/check-console.sh CONSOLE.log
set -u
log=$1
pat='Oops|BUG:|WARNING:|Kernel panic|KASAN:|UBSAN:|possible recursive locking|possible circular locking|inconsistent lock state|INFO: task .* blocked|unreferenced object|general protection fault|Call Trace:|kmemleak: .*new suspected'
if [ "$log" = --pattern ]; then
	printf '%s\n' "$pat"
	exit 0
fi
if grep -aEn "$pat" "$log" >&2; then
	echo "check-console: kernel reported a problem (above) in $log" >&2
	exit 1
fi
exit 0

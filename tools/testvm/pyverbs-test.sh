#!/usr/bin/env bash
# Debian's pyverbs, unchanged, on sroce: tools/pyverbs/sroce_pyverbs.py,
# server on sroce (VM B, the checks), client on stock rxe (VM A), in VMs
# whose initramfs carries Python 3 and python3-pyverbs.
#   tools/testvm/pyverbs-test.sh [normal|debug] [responder]
# Prints "pyverbs: P passed, F failed" (the server's PYVERBS checks).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
pair_setup pyverbs "${1:-debug}" "${2:-sroce}"
rc=0
"$here/run-pair.sh" -A "$here/pyverbs-guest.sh" -B "$here/pyverbs-guest.sh" -o "$out" \
	-k "$flavour" -s -t 900 -i pyverbs -f "$top/tools/pyverbs/sroce_pyverbs.py" \
	-f "$out/responder" || rc=1
grep -a '^PYVERBS .*FAIL' "$out/a.log" "$out/b.log" >&2 || true
fail=$(pair_grep_count '^PYVERBS [a-z_]+ FAIL' "$out/b.log")
grep -aq '^PYVERBS RESULT PASS' "$out/b.log" || [ "$fail" -gt 0 ] || fail=1
pair_verdict pyverbs $rc "$(pair_grep_count '^PYVERBS [a-z_]+ PASS' "$out/b.log")" "$fail"

#!/usr/bin/env bash
# Kernel verbs in one VM (the debug kernel by default): tools/kverbs/
# sroce_kverbs.ko, a kernel consumer of ib_alloc_pd, ib_alloc_cq (DIRECT,
# SOFTIRQ, WORKQUEUE), RC QPs, ib_post_send/recv and ib_drain_qp, runs its
# loopback checks on stock rdma_rxe (the control, which must pass in full)
# and then on sroce loaded with kverbs=1 (tools/testvm/kverbs-guest.sh).
#   tools/testvm/kverbs-test.sh [normal|debug]
# Prints "kverbs: P passed, F failed" (", S skipped") over the sroce run's
# KVERBS lines; fails if any failed, if the rxe control did not report
# RESULT PASS, or if sroce reported no RESULT.
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
rc=0
"$here/run-pair.sh" -1 -A "$here/kverbs-guest.sh" -o "$out" -k "$flavour" -s "${ko_args[@]}" \
	-P "kverbs=1" -t 600 -f "$kvdir/sroce_kverbs.ko" || rc=1
log=$out/a.log
touch "$log"
tr -d '\r' <"$log" | grep -a '^KVERBS ' >"$out/kverbs-lines.txt" || true
grep -a '^KVERBS rxe0 .* FAIL' "$out/kverbs-lines.txt" | sed 's/^/kverbs-test: rxe control: /' >&2 || true
grep -a '^KVERBS sroce0 .* FAIL' "$out/kverbs-lines.txt" | head -n 40 >&2 || true
pass=$(pair_grep_count '^KVERBS sroce0 [a-z0-9_]+ PASS$' "$out/kverbs-lines.txt")
fail=$(pair_grep_count '^KVERBS sroce0 [a-z0-9_]+ FAIL' "$out/kverbs-lines.txt")
skip=$(pair_grep_count '^KVERBS sroce0 [a-z0-9_]+ SKIP' "$out/kverbs-lines.txt")
rxe=$(sed -n 's/^KVERBS rxe0 RESULT \([A-Z]*\).*/\1/p' "$out/kverbs-lines.txt" | tail -n1)
sroce=$(sed -n 's/^KVERBS sroce0 RESULT \([A-Z]*\).*/\1/p' "$out/kverbs-lines.txt" | tail -n1)
echo "kverbs-test: rxe control: $(grep -ac '^KVERBS rxe0 [a-z0-9_]* PASS$' "$out/kverbs-lines.txt") passed," \
	"$(grep -ac '^KVERBS rxe0 [a-z0-9_]* FAIL' "$out/kverbs-lines.txt") failed, RESULT ${rxe:-none}" >&2
[ "$rxe" = PASS ] || { echo "kverbs-test: the rxe control did not pass: the test itself is suspect" >&2; fail=$((fail + 1)); }
[ "$sroce" = PASS ] || { echo "kverbs-test: sroce reported RESULT ${sroce:-none}, not PASS" >&2; fail=$((fail + 1)); }
pair_verdict kverbs $rc "$pass" "$fail" "$skip"

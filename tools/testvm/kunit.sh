#!/usr/bin/env bash
# Run the KUnit suites in the test kernel under QEMU.
#
#   tools/testvm/kunit.sh normal|debug
#
# Builds (or reuses) the kernel, builds sroce.ko and sroce_kunit.ko
# against it, boots it (one VM: run-pair.sh -1, so that make test books
# the run into the kernel's shared boot), loads both modules, collects the
# suites' KTAP from the kernel log, and has the kernel tree's kunit.py
# parse it.
# Fails on any failed case, on any case of tools/case-manifest.c or of
# the loopback suite that did not run, and on any kernel report in the
# console.  Writes build/<flavour>/kunit.ktap and prints a KTAP document
# of its own checks (build/<flavour>/kunit-checks.ktap) and its count by
# tools/ktap.py, "kunit-<flavour>: P passed, F failed".
set -euo pipefail

flavour=${1:-debug}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/$flavour
mkdir -p "$out"
# Results of an earlier run must never count for this one.
rm -f "$out"/kunit.ktap "$out"/kunit-ok.txt "$out"/manifest.tsv "$out"/suites.ktap

kdir=$("$here/build-kernel.sh" "$flavour" | tail -n1)
# The modules: built (incrementally) in $SROCE_BUILD if set (make test:
# the tree check-stock-build built), else in $out.
mod=${SROCE_BUILD:-$out}
make -s -C "$top" module-for KDIR="$kdir" BUILD="$mod" >&2
src=$(readlink -f "$kdir/source")

# sroce.ko installed with the kernel's modules (modprobe resolves ib_core
# and the UDP tunnel), sroce_kunit.ko in /sroce.
rc=0
"$here/run-pair.sh" -1 -A "$here/kunit-guest.sh" -o "$out/kunit-vm" -k "$flavour" \
	-M "$mod/sroce.ko" -f "$mod/sroce_kunit.ko" -t 600 || rc=$?
# Booked into a shared boot: judged at the replay.
[ "${SROCE_GROUP_PHASE:-}" != book ] || exit 0
log=$out/kunit-vm/a.log
touch "$log"

# The suites' KTAP from the guest's kernel log: everything after the
# first suite header, under one top-level header for kunit.py.
sed -n '/SROCE-KTAP-BEGIN/,/SROCE-KTAP-END/p' "$log" | tr -d '\r' |
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | grep -av 'SROCE-KTAP-' |
	awk 'started || /^    KTAP version 1$/ { started = 1; print }' >"$out/suites.ktap"
nsuites=$(grep -acE '^(not )?ok [0-9]+ sroce_' "$out/suites.ktap" || true)
{ echo "KTAP version 1"; echo "1..$nsuites"; cat "$out/suites.ktap"; } >"$out/kunit.ktap"
parse_rc=0
python3 "$src/tools/testing/kunit/kunit.py" parse "$out/kunit.ktap" >"$out/kunit-parse.txt" 2>&1 ||
	parse_rc=$?
tail -n 5 "$out/kunit-parse.txt" >&2

# Every case in the tables must have run and passed.
gcc -std=gnu11 -Wall -Werror -I"$top/include" "$top/tools/case-manifest.c" -o "$out/case-manifest"
"$out/case-manifest" >"$out/manifest.tsv"
grep -aE '^ *ok [0-9]+ ' "$out/kunit.ktap" | sed -E 's/^ *ok [0-9]+ //' >"$out/kunit-ok.txt" || true
# This script's checks, in KTAP (guest-lib.sh's emitter) to $doc: each
# case of the manifests passed, each "not ok" of the run, the VM run and
# kunit.py's parse.  tools/ktap.py counts them at the end.
KTAP_ONLY=1 . "$here/guest-lib.sh"
KTAP_STATE=$out/kunit-checks.state
doc=$out/kunit-checks.ktap
ktap_begin >"$doc"
# case_ok SUITE NAME: the case passed (it has an "ok" line in the run).
case_ok() {
	if grep -qFx -- "$2" "$out/kunit-ok.txt"; then
		ktap_ok "$1: $2"
	else
		echo "kunit-$flavour: FAILED or MISSING: $1: $2" >&2
		ktap_fail "$1: $2 (failed or missing)"
	fi >>"$doc"
}
while IFS=$'\t' read -r suite name _rules; do
	case_ok "$suite" "$name"
done <"$out/manifest.tsv"
# The suites that are not case tables (kunit/{compat,queue,cq,timers,stats}_kunit.c):
# every KUNIT_CASE of theirs must have run and passed too.
for suite in compat queue cq timers stats; do
	for name in $(sed -n 's/^\tKUNIT_CASE(\([a-z0-9_]*\)),$/\1/p' "$top/kunit/${suite}_kunit.c"); do
		case_ok "sroce_$suite" "$name"
	done
done
# The packet-path tables (kunit/{recv,wire,dma}_kunit.c): every
# parametrised case and every row named in a table ("\t{ .name = ...");
# the wire round trip's rows come from the opcode lists (case-manifest.c).
for file in recv wire dma; do
	src_file=$top/kunit/${file}_kunit.c
	for name in $(sed -n 's/^\tKUNIT_CASE_PARAM(\([a-z0-9_]*\),.*/\1/p' "$src_file"); do
		case_ok "kunit/${file}_kunit.c" "$name"
	done
	while IFS= read -r name; do
		case_ok "kunit/${file}_kunit.c" "$name"
	done < <(sed -n 's/^\t{ \.name = "\([^"]*\)".*/\1/p' "$src_file")
done
# The loopback suite (kunit/loopback_kunit.c): every link profile of
# kunit/cases/loopback.h with each of its fixed seeds.
cat >"$out/loop-manifest.c" <<'EOF'
#include <stdio.h>
#include "loopback.h"
#define SROCE_LOOP_PROFILE(name, ...) #name,
static const char *const names[] = { SROCE_LOOP_PROFILE_LIST };
int main(void)
{
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (unsigned int seed = 1; seed <= SROCE_LOOP_KUNIT_SEEDS; seed++)
			printf(SROCE_LOOP_DESC_FMT "\n", names[i], seed);
	return 0;
}
EOF
gcc -std=gnu11 -Wall -Werror -I"$top/include" -I"$top/kunit/cases" "$out/loop-manifest.c" \
	-o "$out/loop-manifest"
while IFS= read -r name; do
	case_ok sroce_loopback "$name"
done < <("$out/loop-manifest")
# Every "not ok" of the run is a failure of its own.
grep -aE '^ *not ok |# .*(Expected|step)' "$out/kunit.ktap" | head -n 40 >&2 || true
grep -aE '^ *not ok ' "$out/kunit.ktap" | sed -E 's/^ *not ok [0-9]+ //' |
	while IFS= read -r l; do ktap_fail "KUnit: not ok: $l"; done >>"$doc" || true
[ $rc -eq 0 ] || echo "kunit-$flavour: VM run failed (rc=$rc), see $log" >&2
[ $parse_rc -eq 0 ] || echo "kunit-$flavour: kunit.py parse failed, see $out/kunit-parse.txt" >&2
{
	ktap_check $rc "the VM run ended cleanly (run-pair.sh)"
	ktap_check $parse_rc "kunit.py parses the run's KTAP"
	ktap_end || true
} >>"$doc"
cat "$doc"
python3 "$top/tools/ktap.py" count --name "kunit-$flavour" "$doc"

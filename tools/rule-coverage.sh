#!/usr/bin/env bash
# Spec rule -> KUnit cases that ran and passed in the kernel.
#
#   tools/rule-coverage.sh MANIFEST.tsv KUNIT-OK.txt [SPEC.md]
#
# MANIFEST.tsv: tools/case-manifest.c output (suite, case, rule tags);
# KUNIT-OK.txt: the names of the cases that passed in a kernel run
# (written by tools/testvm/kunit.sh).  Lists every rule of
# kunit/spec-rules.txt with its cases; fails if a rule has none, or if the
# spec (default ../shared/spec/response-generation.md, when present)
# names a tag that spec-rules.txt lacks.  Prints a KTAP document, one
# result per rule (and one failed result per tag the spec names that
# spec-rules.txt lacks), then its count by tools/ktap.py, "rule-coverage:
# P passed, F failed".
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
manifest=$1 ok=$2
spec=${3:-$top/../shared/spec/response-generation.md}
rules=$top/kunit/spec-rules.txt
[ -s "$manifest" ] && [ -s "$ok" ] || { echo "rule-coverage: run the KUnit suites first" >&2; exit 1; }

KTAP_ONLY=1 . "$top/tools/testvm/guest-lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
KTAP_STATE=$work/state
doc=$work/rules.ktap
ktap_begin >"$doc"	# the plan at the end
if [ -f "$spec" ]; then
	for tag in $(grep -oE '\b[Co]9-[0-9]+(\.[0-9]+)*(\.a[0-9])?' "$spec" | sort -u); do
		if ! cut -f1 "$rules" | grep -qxF "$tag"; then
			echo "rule-coverage: spec tag $tag is missing from kunit/spec-rules.txt" >&2
			ktap_fail "$tag: named by the spec, missing from kunit/spec-rules.txt" >>"$doc"
		fi
	done
fi
while IFS=$'\t' read -r tag what; do
	case $tag in '#'*|'') continue ;; esac
	tests=()
	while IFS=$'\t' read -r suite name tags; do
		for t in $tags; do
			if [ "$t" = "$tag" ] && grep -qFx -- "$name" "$ok"; then
				tests+=("$suite: $name")
			fi
		done
	done <"$manifest"
	if [ ${#tests[@]} -eq 0 ]; then
		echo "$tag  ($what)"
		echo "    GAP: no KUnit case that ran and passed"
		ktap_fail "$tag: no KUnit case that ran and passed" >>"$doc"
	else
		echo "$tag  ($what)"
		printf '    %s\n' "${tests[@]}"
		ktap_ok "$tag: ${#tests[@]} KUnit cases" >>"$doc"
	fi
done <"$rules"
ktap_end >>"$doc" || true
cat "$doc"
python3 "$top/tools/ktap.py" count --name rule-coverage "$doc"

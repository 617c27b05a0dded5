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
# names a tag that spec-rules.txt lacks.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
manifest=$1 ok=$2
spec=${3:-$top/../shared/spec/response-generation.md}
rules=$top/kunit/spec-rules.txt
[ -s "$manifest" ] && [ -s "$ok" ] || { echo "rule-coverage: run the KUnit suites first" >&2; exit 1; }

gaps=0 covered=0
if [ -f "$spec" ]; then
	for tag in $(grep -oE '\b[Co]9-[0-9]+(\.[0-9]+)*(\.a[0-9])?' "$spec" | sort -u); do
		if ! cut -f1 "$rules" | grep -qxF "$tag"; then
			echo "rule-coverage: spec tag $tag is missing from kunit/spec-rules.txt" >&2
			gaps=$((gaps + 1))
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
		gaps=$((gaps + 1))
	else
		covered=$((covered + 1))
		echo "$tag  ($what)"
		printf '    %s\n' "${tests[@]}"
	fi
done <"$rules"
echo "rule-coverage: $covered rules covered, $gaps gaps"
[ $gaps -eq 0 ]

#!/usr/bin/env bash
# Userspace runs of the core.
#
#   tools/utest/run.sh            GoogleTest (ASan+UBSan) with g++, and the
#                                 core compiled with clang++ too
#   tools/utest/run.sh bench      Google Benchmark + callgrind instruction
#                                 counts per decision, with their budgets
#                                 (bench-budgets.txt) -> build/bench.txt
#   tools/utest/run.sh bench-check  instruction counts only: fails when a
#                                 row exceeds its budget; self-tests that
#                                 the check fails as it should
#   tools/utest/run.sh fuzz SECS  libFuzzer on the core's entry points
#
# The test, bench-check and fuzz modes print KTAP (the tests' one format,
# tools/ktap.py) and its count, "utest: P passed, F failed", "bench: ...",
# "fuzz: ...".  SROCE_BENCH_BUDGETS: another budgets file.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mode=${1:-test}
"$top/tools/deps.sh" build-essential cmake googletest libgtest-dev libbenchmark-dev \
	clang libclang-rt-14-dev valgrind ccache
# The compilers through ccache (CMake reads these), its cache beside the
# kernels', with paths relative to the tree: a fresh clone gets the
# objects of an earlier one back (make test builds four configurations).
export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
export CCACHE_DIR=${SROCE_CACHE:-$HOME/.cache/sroce}/ccache CCACHE_BASEDIR=$top \
	CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=2G

budgets=${SROCE_BENCH_BUDGETS:-$here/bench-budgets.txt}
# The KTAP emitter (ktap_begin, ktap_ok ...), and ktap_count NAME FILE:
# print the document FILE and tools/ktap.py's count of it.
KTAP_ONLY=1 . "$top/tools/testvm/guest-lib.sh"
ktap_count() {
	cat "$2"
	python3 "$top/tools/ktap.py" count --name "$1" "$2"
}
units=100000 # per callgrind run

# The release build of sroce_bench: no sanitizers, the core at -O2.
bench_build() {
	b=$top/build/utest-rel
	cmake -S "$here" -B "$b" -DCMAKE_BUILD_TYPE=Release -DSROCE_SANITIZE=OFF >/dev/null
	cmake --build "$b" -j"$(nproc)" --target sroce_bench >/dev/null
}

# The rows of a budgets file: name benchmark toggles budget unit label...
bench_rows() { grep -vE '^[[:space:]]*(#|$)' "$1" || true; }

# bench_ran PATTERN: one of the function names on stdin matches PATTERN,
# a glob as callgrind's --toggle-collect takes it.
bench_ran() {
	local fn
	while IFS= read -r fn; do
		# shellcheck disable=SC2053 # a glob on purpose
		[[ $fn == $1 ]] && return 0
	done
	return 1
}

# bench_count NAME BENCHMARK TOGGLES: the instructions executed inside
# the toggle functions over $units units of BENCHMARK, on stdout.  Fails,
# saying why on stderr, if the workload does not run or a toggle function
# never ran (a misspelt toggle would otherwise count nothing, and pass).
bench_count() {
	local name=$1 bm=$2 toggles=$3 cg=$b/cg.$1 f ran ir
	local -a fns args=()
	IFS=, read -ra fns <<<"$toggles"
	for f in "${fns[@]}"; do args+=("--toggle-collect=$f"); done
	if ! valgrind --tool=callgrind --callgrind-out-file="$cg" "${args[@]}" \
		"$b/sroce_bench" --count "$bm" "$units" >"$cg.log" 2>&1; then
		echo "$name: sroce_bench --count $bm failed: $(grep -m1 -v '^==' "$cg.log")" >&2
		return 1
	fi
	# Every function with a cost: "IR (PCT)  FILE:FUNCTION [OBJECT]".
	ran=$(callgrind_annotate --threshold=100 "$cg" 2>/dev/null | awk '
		/^ *[0-9,]+ +\([ 0-9.]+%\) +/ && !/PROGRAM TOTALS/ {
			sub(/^ *[0-9,]+ +\([ 0-9.]+%\) +/, ""); sub(/ \[[^]]*\]$/, ""); sub(/^[^:]*:/, "")
			print }')
	for f in "${fns[@]}"; do
		if ! bench_ran "$f" <<<"$ran"; then
			echo "$name: toggle function $f never ran: nothing of it was counted" >&2
			return 1
		fi
	done
	ir=$(callgrind_annotate "$cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
	[ -n "$ir" ] || { echo "$name: no totals in $cg" >&2; return 1; }
	echo "$ir"
}

# bench_check FILE: one KTAP result per row, ok or not ok; sets checked and over (rows over budget or not measured).
bench_check() {
	local name bm toggles budget unit label ir per
	checked=0 over=0
	while read -r name bm toggles budget unit label; do
		checked=$((checked + 1))
		if ! [[ $budget =~ ^[1-9][0-9]*$ ]] || [ -z "$label" ]; then
			ktap_fail "$name: malformed row (budget '$budget', label '$label')"
			over=$((over + 1))
			continue
		fi
		if ! ir=$(bench_count "$name" "$bm" "$toggles" 2>&1); then
			ktap_fail "$ir"
			over=$((over + 1))
			continue
		fi
		per=$(awk -v ir="$ir" -v n="$units" 'BEGIN { printf "%.1f", ir / n }')
		if [ "$ir" -le $((budget * units)) ]; then
			ktap_ok "$name ($label): $per instructions per ${unit//_/ }, budget $budget"
		else
			ktap_fail "$name ($label): $per instructions per ${unit//_/ }, over its budget of $budget"
			over=$((over + 1))
		fi
	done < <(bench_rows "$1")
	if [ "$checked" -eq 0 ]; then
		ktap_fail "no rows in $1"
		over=1
	fi
}

# The check must fail: a budgets file with one bad row, and the message
# bench_check must give for it.
bench_selftest() {
	local what=$1 row=$2 expect=$3 out
	printf '%s\n' "$row" >"$tmp/budgets"
	KTAP_STATE=$tmp/selftest.state bench_check "$tmp/budgets" >"$tmp/out"
	out=$(cat "$tmp/out")
	if [ "$over" -gt 0 ] && grep -qE "$expect" <<<"$out"; then
		ktap_ok "self-test: $what fails the check"
		return 0
	fi
	ktap_fail "self-test: $what did not fail the check with '$expect'"
	ktap_diag "$out"
	return 1
}

case $mode in
test)
	b=$top/build/utest
	cmake -S "$here" -B "$b" -DCMAKE_BUILD_TYPE=Debug -DSROCE_SANITIZE=ON >/dev/null
	cmake --build "$b" -j"$(nproc)" >/dev/null
	# The same core sources must also compile unchanged with clang++.
	cb=$top/build/utest-clang
	CXX=clang++ CC=clang cmake -S "$here" -B "$cb" -DCMAKE_BUILD_TYPE=Debug \
		-DSROCE_SANITIZE=ON >/dev/null
	cmake --build "$cb" -j"$(nproc)" --target sroce_core >/dev/null
	rc=0
	rm -f "$b/results.xml"
	"$b/sroce_utest" --gtest_brief=1 --gtest_output="xml:$b/results.xml" >"$b/utest.log" 2>&1 || rc=$?
	tail -n 5 "$b/utest.log"
	# One KTAP result per test case, and one for the binary's exit.
	python3 "$here/gtest_ktap.py" "$b/results.xml" "$rc" >"$b/utest.ktap"
	ktap_count utest "$b/utest.ktap"
	;;
bench)
	bench_build
	rows=$(bench_rows "$budgets")
	[ -n "$rows" ] || { echo "bench: no rows in $budgets" >&2; exit 1; }
	filter=$(awk '{ printf "%s%s", (NR > 1 ? "|" : ""), $2 }' <<<"$rows")
	"$b/sroce_bench" --benchmark_min_time=0.3 --benchmark_filter="^($filter)\$" \
		--benchmark_out="$b/bench-ns.csv" --benchmark_out_format=csv | tee "$b/bench-ns.txt"
	out=$top/build/bench.txt
	{
		echo "| workload | unit | ns/unit | instructions/unit | budget |"
		echo "|---|---|---|---|---|"
		while read -r name bm toggles budget unit label; do
			if ! ir=$(bench_count "$name" "$bm" "$toggles"); then
				echo "| $label | ${unit//_/ } | | FAILED | $budget |"
				continue
			fi
			# CSV: name,iterations,real_time,cpu_time,time_unit,...
			ns=$(awk -F, -v bm="\"$bm\"" '$1 == bm {
				m = $5 == "us" ? 1e3 : $5 == "ms" ? 1e6 : $5 == "s" ? 1e9 : 1
				printf "%.1f", $4 * m }' "$b/bench-ns.csv")
			per=$(awk -v ir="$ir" -v n="$units" 'BEGIN { printf "%.1f", ir / n }')
			limit=$budget
			[ "$ir" -le $((budget * units)) ] || limit="$budget (exceeded)"
			echo "| $label | ${unit//_/ } | $ns | $per | $limit |"
		done <<<"$rows"
	} | tee "$out"
	# The table is complete either way; a row over budget fails the run.
	! grep -qE 'exceeded|FAILED' "$out"
	;;
bench-check)
	bench_build
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	KTAP_STATE=$tmp/state
	ktap_begin >"$tmp/bench.ktap"	# the plan at the end
	bench_check "$budgets" >>"$tmp/bench.ktap"
	# Self-tests, on the first row of the budgets file: the check must
	# fail a row over its budget, a toggle function that never runs, a
	# workload sroce_bench does not have and a malformed budget.
	read -r name bm toggles budget unit label < <(bench_rows "$budgets")
	name=selftest-$name # its own callgrind files: cg.NAME stay the real rows'
	for t in "over budget|$name $bm $toggles 1 $unit $label|over its budget of 1" \
		"toggle never run|$name $bm sroce_no_such_function 1000000 $unit $label|never ran" \
		"unknown workload|$name BM_NoSuchWorkload $toggles 1000000 $unit $label|unknown workload" \
		"malformed budget|$name $bm $toggles 10x $unit $label|malformed row"; do
		IFS='|' read -r what row expect <<<"$t"
		bench_selftest "$what" "$row" "$expect" >>"$tmp/bench.ktap" || true
	done
	ktap_end >>"$tmp/bench.ktap" || true
	ktap_count bench "$tmp/bench.ktap"
	;;
fuzz)
	secs=${2:-60}
	b=$top/build/utest-fuzz
	CXX=clang++ CC=clang cmake -S "$here" -B "$b" -DCMAKE_BUILD_TYPE=Debug >/dev/null
	cmake --build "$b" -j"$(nproc)" --target sroce_fuzz >/dev/null
	mkdir -p "$b/corpus"
	# A unit that runs 60 s is a hang (a unit takes microseconds; this
	# stage runs at the lowest priority beside VMs, so not less).
	# fuzz-regress: the inputs that found a defect, each run once first
	# (nak-acks-every-started-wqe spun 193 s: a NAK whose implied ACK
	# completed every WQE started, then "retries exhausted" failed one
	# never posted and flushed 2^32 slots).
	# Crash and slow-unit files go to the build tree, not the caller's directory.
	rrc=0 rc=0
	"$b/sroce_fuzz" -timeout=60 -artifact_prefix="$b/regress-" "$here"/fuzz-regress/* \
		>"$b/regress.log" 2>&1 || rrc=$?
	"$b/sroce_fuzz" -max_total_time="$secs" -max_len=512 -timeout=60 -print_final_stats=1 \
		-artifact_prefix="$b/" "$b/corpus" || rc=$?
	KTAP_STATE=$b/fuzz.state
	{
		ktap_begin 2
		ktap_check $rrc "libFuzzer's regression inputs (tools/utest/fuzz-regress): no crash, leak or timeout"
		ktap_check $rc "libFuzzer, $secs s on the core's entry points: no crash, leak or timeout (60 s a unit)"
	} >"$b/fuzz.ktap"
	ktap_count fuzz "$b/fuzz.ktap"
	;;
*)
	sed -n '2,17p' "$0" >&2
	exit 2
	;;
esac

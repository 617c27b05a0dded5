#!/usr/bin/env bash
# Userspace runs of the core.
#
#   tools/utest/run.sh            GoogleTest (ASan+UBSan) with g++, and the
#                                 core compiled with clang++ too
#   tools/utest/run.sh bench      Google Benchmark + callgrind instruction
#                                 counts per decision -> build/bench.txt
#   tools/utest/run.sh fuzz SECS  libFuzzer on the core's entry points
#
# Prints "utest: P passed, F failed" for the test mode.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mode=${1:-test}
"$top/tools/deps.sh" build-essential cmake googletest libgtest-dev libbenchmark-dev \
	clang libclang-rt-14-dev valgrind

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
	"$b/sroce_utest" --gtest_brief=1 --gtest_output="xml:$b/results.xml" >"$b/utest.log" 2>&1 || rc=$?
	tail -n 5 "$b/utest.log"
	pass=$(grep -c '<testcase .*result="completed"' "$b/results.xml" || true)
	fail=$(grep -c '<failure' "$b/results.xml" || true)
	[ $rc -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
	echo "utest: $((pass - fail)) passed, $fail failed"
	[ "$fail" -eq 0 ]
	;;
bench)
	b=$top/build/utest-rel
	cmake -S "$here" -B "$b" -DCMAKE_BUILD_TYPE=Release -DSROCE_SANITIZE=OFF >/dev/null
	cmake --build "$b" -j"$(nproc)" --target sroce_bench >/dev/null
	"$b/sroce_bench" --benchmark_min_time=0.3 | tee "$b/bench-ns.txt"
	n=100000
	out=$top/build/bench.txt
	{
		echo "| workload | ns/decision | instructions/decision |"
		echo "|---|---|---|"
		for w in send:BM_InOrderSend write:BM_InOrderWrite read:BM_InOrderRead dup:BM_DuplicateSend; do
			name=${w%%:*} bm=${w#*:}
			valgrind --tool=callgrind --callgrind-out-file="$b/cg.$name" \
				--toggle-collect=sroce_resp_rx --toggle-collect=sroce_resp_executed \
				"$b/sroce_bench" --count "$name" "$n" >/dev/null 2>&1
			ir=$(callgrind_annotate "$b/cg.$name" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",","",$1); print $1}')
			ns=$(awk -v bm="$bm" '$1 == bm {print $2}' "$b/bench-ns.txt")
			echo "| $bm | $ns | $((ir / n)) |"
		done
	} | tee "$out"
	;;
fuzz)
	secs=${2:-60}
	b=$top/build/utest-fuzz
	CXX=clang++ CC=clang cmake -S "$here" -B "$b" -DCMAKE_BUILD_TYPE=Debug >/dev/null
	cmake --build "$b" -j"$(nproc)" --target sroce_fuzz >/dev/null
	mkdir -p "$b/corpus"
	"$b/sroce_fuzz" -max_total_time="$secs" -max_len=512 -print_final_stats=1 "$b/corpus"
	;;
*)
	sed -n '2,12p' "$0" >&2
	exit 2
	;;
esac

#!/usr/bin/env bash
# make test: everything CI runs, on a fresh Debian 12 machine.
#
# Installs its packages, builds or reuses the cached test kernels, fetches
# or reuses Debian's stock kernels and headers, builds the module, then
# runs each stage below.  Every stage ends with a line
# "<stage>: P passed, F failed"; the run ends with the total, one line,
# and exits non-zero if anything failed.  Logs: build/logs/<stage>.log.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
logs=$top/build/logs
mkdir -p "$logs"
total_pass=0 total_fail=0
failed_stages=()

stage() {
	local name=$1 line p f rc
	shift
	echo "== $name" >&2
	local t0=$SECONDS
	"$@" >"$logs/$name.log" 2>&1
	rc=$?
	line=$(grep -E '^[a-z0-9_-]+: [0-9]+ passed, [0-9]+ failed' "$logs/$name.log" | tail -n1)
	if [ -n "$line" ]; then
		p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
		f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	else
		p=$((rc == 0)) f=$((rc != 0))
	fi
	[ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	printf '   %-14s %4d passed, %d failed  (%ds)\n' "$name" "$p" "$f" $((SECONDS - t0)) >&2
	if [ "$f" -ne 0 ]; then
		failed_stages+=("$name")
		tail -n 25 "$logs/$name.log" | sed 's/^/   | /' >&2
	fi
}

# CI keeps only the tail of the output: name the failures again there, with
# each failing stage's FAIL lines.
failure_summary() {
	local name
	[ ${#failed_stages[@]} -gt 0 ] || return 0
	echo "== failed stages: ${failed_stages[*]}" >&2
	for name in "${failed_stages[@]}"; do
		grep -E 'FAIL|not ok|Error|error:' "$logs/$name.log" | grep -v -E '^ *ok ' | head -n 12 |
			cut -c1-300 | sed "s/^/   $name | /" >&2
	done
}

echo "== deps" >&2
make -s deps >"$logs/deps.log" 2>&1 || { cat "$logs/deps.log" >&2; echo "0 passed, 1 failed"; exit 1; }

stage utest tools/utest/run.sh
stage fuzz tools/utest/run.sh fuzz "${FUZZ_SECONDS:-30}"
stage bench tools/utest/run.sh bench-check
stage console-check tools/testvm/check-console-selftest.sh
stage stock-build tools/check-stock-build.sh
stage kunit-normal tools/testvm/kunit.sh normal
stage kunit-debug tools/testvm/kunit.sh debug
stage guards tools/check-guards.sh
stage style make -s style KDIR="$(tools/testvm/build-kernel.sh normal 2>/dev/null | tail -n1)"
stage device tools/testvm/device-test.sh debug
stage integrity tools/testvm/integrity-test.sh debug
stage integrity-paged tools/testvm/integrity-test.sh debug sroce paged
stage errors tools/testvm/errors-test.sh debug
# Kernel verbs (sroce loaded with kverbs=1): tools/kverbs/sroce_kverbs.ko,
# a kernel consumer, runs RC loopback checks in each CQ poll context on
# stock rxe (the control) and then on sroce.
stage kverbs tools/testvm/kverbs-test.sh debug
# A kernel consumer connecting through rdma_cm across two VMs
# (tools/kverbs/sroce_kcm.ko): RC SEND/WRITE/READ and UD datagrams, sroce
# at both ends (IPv4, IPv6), against stock rxe both ways, rxe-rxe the control.
stage kcm tools/testvm/kcm-test.sh debug
# Debian's pyverbs: sroce as the responder (client on rxe), both ends on
# sroce, and sroce as the requester (server on rxe), in one boot.
stage pyverbs tools/testvm/pyverbs-test.sh debug
# RC traffic in the four pairings: ibv_rc_pingpong, the perftest RC tools
# and the integrity tool, sroce->sroce, sroce->rxe, rxe->sroce and
# loopback on one sroce device, on a clean link (with UD: ibv_ud_pingpong,
# perftest -c UD; and rdma_cm: rping, ucmatose, udaddy, rdma_server/client,
# perftest -R), and with sroce as the
# requester through netem (1% loss; 5% loss, duplication and reordering),
# with the capture's go-back-N, ATOMIC ACK, retransmission and
# loss-episode checks.
stage rc tools/testvm/rc-test.sh debug --quick --pairs sroce-sroce,sroce-rxe,rxe-sroce,loop-sroce \
	--lossy-pairs sroce-sroce,sroce-rxe
# sroce as the requester: its timers, errors and hostile send rings,
# against stock rxe and against sroce (tools/integrity, client on sroce).
stage req-errors tools/testvm/req-errors-test.sh debug
# rdma-core's own suite on sroce, stock rxe on the same kernel the control,
# compared test by test.  ATOMIC_WRITE errors on both (librxe 44 posts it,
# neither 6.1's rxe nor sroce has it yet): a known gap, reported apart.
stage rdma-core tools/testvm/rdma-core-test.sh debug --known-error test_qp_ex_rc_atomic_write
stage perftest-debug tools/compare.sh -n 1 -k debug -r sroce -f tools/ackrate/perftest-debug.txt \
	-o build/perftest-debug
stage compare-smoke tools/compare.sh -s
# Debian's stock kernels, unpacked from the registry's linux-image
# packages: VM A runs the kernel's own rdma_rxe, VM B the sroce.ko that
# DKMS built and installed from the sroce-dkms package (the dkms stage).
stage dkms tools/dkms-test.sh
while read -r name kver _; do
	ko=$top/build/dkms/$kver/sroce.ko
	stage "device-$name" env SROCE_KO="$ko" tools/testvm/device-test.sh "$name"
	stage "integrity-$name" env SROCE_KO="$ko" tools/testvm/integrity-test.sh "$name"
	stage "perftest-$name" tools/compare.sh -n 1 -k "$name" -r sroce -M "$ko" \
		-f tools/ackrate/perftest-debug.txt -o "build/perftest-$name"
done < <(tools/stock-kernels.sh)
stage rule-coverage tools/rule-coverage.sh build/debug/manifest.tsv build/debug/kunit-ok.txt

failure_summary
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]

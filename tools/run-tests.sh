#!/usr/bin/env bash
# make test: everything CI runs, on a fresh Debian 12 machine.
#
# Installs its packages, builds or reuses the cached debug test kernel,
# fetches or reuses Debian's stock kernels and headers, builds each module
# once per kernel, then runs the stages of the table below in order.
# Every stage prints KTAP (tools/ktap.py counts each stage's log: see
# stage()) and ends with a line "<stage>: P passed, F failed"; the run ends
# with a table of the time each stage and step took, then the total, one
# line, and exits non-zero if anything failed.  Logs: build/logs/<stage>.log.
#
#   tools/run-tests.sh [--only REGEX] [--list]
#
#   --only   run only the stages whose names match REGEX (with the steps
#            they need); --list prints the expanded table and exits
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
logs=$top/build/logs
only= list=0
while [ $# -gt 0 ]; do
	case $1 in
	--only) only=$2; shift ;;
	--list) list=1 ;;
	*) sed -n '2,15p' "$0" >&2; exit 2 ;;
	esac
	shift
done

# The stage table: one row a stage, in the order they run in their chain
# (below).
#
#   STAGE  KERNEL  BOOT  COMMAND
#
# KERNEL: what the stage's modules are built for and its VMs boot: "-"
#   (none), "debug" (the KASAN + lockdep + kmemleak + KUnit test kernel),
#   or "stock": one row per Debian stock kernel (tools/stock-kernels.sh),
#   with {k} in STAGE and COMMAND its name and {ko} the sroce.ko that DKMS
#   built for it (the dkms stage).
# BOOT: "-" no VM, or one boot of its own; "pair": the stage's VM runs are
#   booked into the KERNEL's shared pair boot (tools/testvm/group.py):
#   the first such stage of a kernel books them all, the pair boots once,
#   and each stage then judges its own slice of it (run-pair.sh);
#   "pair:NAME": the same in a second shared boot of that kernel, NAME,
#   which runs first in the stock chain, beside the first one, while dkms
#   builds the Debian kernels' modules (see the chains below); "host":
#   no VM at all: the host stages run in the background at the lowest CPU
#   priority (nice 19), beside the VM stages (see the chains below).  The
#   stock kernels' stages wait for dkms, which builds their sroce.ko.
#
# The debug kernel's sroce.ko and sroce_kunit.ko are built once, at W=1
# (build/debug, incremental), before the first stage of the debug kernel
# needs them; the stages find them through $SROCE_KO and $SROCE_BUILD.
table() {
	cat <<'EOF'
dkms             -      host  tools/dkms-test.sh
utest            -      host  tools/utest/run.sh
fuzz             -      host  tools/utest/run.sh fuzz ${FUZZ_SECONDS:-30}
bench            -      host  tools/utest/run.sh bench-check
console-check    -      host  tools/testvm/check-console-selftest.sh
group-check      -      host  tools/deps.sh tshark && python3 tools/testvm/group_test.py
vm-check         -      host  tools/deps.sh cpio kmod && python3 tools/testvm/vm_test.py
stalls-check     -      host  python3 tools/ackrate/stalls_test.py
report-check     -      host  python3 tools/ackrate/report_test.py
rc-plan-check    -      host  python3 tools/testvm/rc_plan_test.py
rc-verdict-check -      host  python3 tools/ackrate/rc_verdict_test.py
pcapslice-check  -      host  tools/deps.sh tshark && python3 tools/testvm/pcapslice_test.py
ktap-check       -      host  python3 tools/ktap_test.py
stock-build      -      host  tools/check-stock-build.sh
guards           debug  host  tools/check-guards.sh
style            -      host  make -s style
kunit-debug      debug  pair  tools/testvm/kunit.sh debug
group-selftest   debug  pair  tools/testvm/group-selftest.sh debug
stall-selftest   debug  pair  tools/testvm/stall-selftest.sh debug
device           debug  pair  tools/testvm/device-test.sh debug
integrity-paged  debug  pair  tools/testvm/integrity-test.sh debug sroce paged
errors           debug  pair  tools/testvm/errors-test.sh debug
kverbs           debug  pair  tools/testvm/kverbs-test.sh debug
kcm              debug  pair  tools/testvm/kcm-test.sh debug
pyverbs          debug  pair  tools/testvm/pyverbs-test.sh debug
rdma-core        debug  pair  tools/testvm/rdma-core-test.sh debug --known-error test_qp_ex_rc_atomic_write
perftest-debug   debug  pair  tools/compare.sh -n 1 -k debug -r sroce -f tools/ackrate/perftest-debug.txt -o build/perftest-debug
rc               debug  pair  tools/testvm/rc-test.sh debug --quick --pairs sroce-sroce --lossy-pairs sroce-sroce,sroce-rxe
req-errors       debug  pair:late tools/testvm/req-errors-test.sh debug
compare-smoke    deb6.1 pair  tools/compare.sh -s -k deb6.1 -M {ko:deb6.1} -o build/compare-smoke
device-{k}       stock  pair  env SROCE_KO={ko} tools/testvm/device-test.sh {k}
integrity-{k}    stock  pair  env SROCE_KO={ko} tools/testvm/integrity-test.sh {k}
perftest-{k}     stock  pair  tools/compare.sh -n 1 -k {k} -r sroce -M {ko} -f tools/ackrate/perftest-debug.txt -o build/perftest-{k}
rc-deb6.12       deb6.12 pair env SROCE_KO={ko:deb6.12} tools/testvm/rc-test.sh deb6.12 --quick --pairs sroce-rxe,rxe-sroce,loop-sroce
rule-coverage    -      -     tools/rule-coverage.sh build/debug/manifest.tsv build/debug/kunit-ok.txt
EOF
}
# rc is the debug kernel's last pair stage: its clean rounds allow no
# retransmission at all (67 ms QP timeout), and by then the Debian kernels'
# boots that run beside this one are over (a warm run with rc third saw one
# timeout retransmission beside them).  req-errors has a boot of the
# debug kernel of its own ("late"), first in the stock chain, beside the
# first boot's early stages: its timing checks bound from below (a timer
# waited at least its period), or from above by counts that a slow VM
# only lowers, so two busy pairs at once do not move them.  (With
# rdma-core there too, DKMS, starved by four VMs, became the critical
# path: 1502 s against 1253.)
# What the stages do, and which checks moved where when stages were
# merged, is in README.md ("The tests").

mkdir -p "$logs"
total_pass=0 total_fail=0
failed_stages=()
times=()

# Timing rows: "NAME SECONDS PASSED FAILED [IN-BOOT]" (- for steps, which
# count no checks; IN-BOOT: what a stage's runs took in its shared boot).
timed() { times+=("$1 $2 $3 $4 ${5:-}"); }
declare -A inboot=()

stage() {
	local name=$1 line p f rc t0=$SECONDS
	shift
	echo "== $name" >&2
	"$@" >"$logs/$name.log" 2>&1
	rc=$?
	# The stage's KTAP, counted by tools/ktap.py (with its reasons for
	# failures that are no result, e.g. a truncated document, in
	# NAME.count.log).  Every stage prints KTAP: one that prints none
	# fails, whatever its exit status.
	line=$(python3 tools/ktap.py count --name "$name" "$logs/$name.log" \
		2>"$logs/$name.count.log")
	p=$(sed -nE 's/.*: ([0-9]+) passed.*/\1/p' <<<"$line")
	f=$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$line")
	[ -n "$p" ] && [ -n "$f" ] || p=0 f=1
	[ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	printf '   %-18s %4d passed, %d failed  (%ds)\n' "$name" "$p" "$f" $((SECONDS - t0)) >&2
	timed "$name" $((SECONDS - t0)) "$p" "$f" "${inboot[$name]:-}"
	if [ "$f" -ne 0 ]; then
		failed_stages+=("$name")
		tail -n 25 "$logs/$name.log" | sed 's/^/   | /' >&2
		grep -v ': counted by its ' "$logs/$name.count.log" | head -n 10 | sed 's/^/   | /' >&2
	fi
}

# step NAME COMMAND...: a build or a boot the stages need.  It counts no
# check: a step that fails is reported, and the stages that need what it
# makes fail on their own.
step() {
	local name=$1 rc t0=$SECONDS
	shift
	echo "== $name" >&2
	"$@" >"$logs/$name.log" 2>&1
	rc=$?
	printf '   %-18s %s  (%ds)\n' "$name" "$([ $rc -eq 0 ] && echo done || echo "FAILED (rc $rc)")" \
		$((SECONDS - t0)) >&2
	timed "$name" $((SECONDS - t0)) - -
	[ $rc -eq 0 ] || tail -n 15 "$logs/$name.log" | sed 's/^/   | /' >&2
	return $rc
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

time_table() {
	local r name s p f b total=0
	echo "== time per stage and step (s; a boot step's stages show what their runs took in it)" >&2
	for r in "${times[@]}"; do
		read -r name s p f b <<<"$r"
		total=$((total + s))
		if [ "$p" = - ]; then
			printf '   %-22s %5d\n' "$name" "$s" >&2
		elif [ -n "$b" ]; then
			printf '   %-22s %5d   %4d passed, %d failed   (in the boot: %d)\n' "$name" "$s" "$p" "$f" "$b" >&2
		else
			printf '   %-22s %5d   %4d passed, %d failed\n' "$name" "$s" "$p" "$f" >&2
		fi
	done
	printf '   %-22s %5d   (%dm%02ds; the (bg) stages ran beside the others)\n' sum "$total" \
		$((total / 60)) $((total % 60)) >&2
}

# The table, with the stock rows expanded: "STAGE KERNEL BOOT COMMAND".
stock=$(tools/stock-kernels.sh 2>/dev/null | awk '{ print $1, $2 }')
ko_of() { echo "$top/build/dkms/$(awk -v n="$1" '$1 == n { print $2 }' <<<"$stock")/sroce.ko"; }
rows=() pending=()
flush_stock() {	# consecutive stock rows: all of them for one kernel, then the next
	local k p
	while read -r k _; do
		for p in "${pending[@]}"; do
			p=${p//\{k\}/$k}
			rows+=("${p//\{ko\}/$(ko_of "$k")}")
		done
	done <<<"$stock"
	pending=()
}
while read -r name kernel boot cmd; do
	[ -n "$name" ] || continue
	if [ "$kernel" = stock ]; then
		pending+=("$name {k} $boot $cmd")
		continue
	fi
	[ ${#pending[@]} -eq 0 ] || flush_stock
	r="$name $kernel $boot $cmd"
	while [[ $r =~ \{ko:([a-z0-9.]+)\} ]]; do r=${r//"${BASH_REMATCH[0]}"/$(ko_of "${BASH_REMATCH[1]}")}; done
	rows+=("$r")
done < <(table)
[ ${#pending[@]} -eq 0 ] || flush_stock
if [ -n "$only" ]; then
	# A stage of a stock kernel loads the sroce.ko that dkms built: dkms
	# runs too.
	keep=() stock=0
	for r in "${rows[@]}"; do [[ ${r%% *} =~ $only ]] && [[ $r == *"/build/dkms/"* ]] && stock=1; done
	for r in "${rows[@]}"; do
		[[ ${r%% *} =~ $only ]] || { [ $stock = 1 ] && [ "${r%% *}" = dkms ]; } && keep+=("$r")
	done
	rows=("${keep[@]}")
fi
if [ $list = 1 ]; then printf '%s\n' "${rows[@]}"; exit 0; fi

t_start=$SECONDS
# The kernel API probes of each kernel tree run once, not once a build
# (drivers/sroce/compat/probe.sh; DKMS's builds see it too).
export SROCE_PROBE_CACHE=${SROCE_CACHE:-$HOME/.cache/sroce}/probes
echo "== deps" >&2
make -s deps >"$logs/deps.log" 2>&1 || { cat "$logs/deps.log" >&2; echo "0 passed, 1 failed"; exit 1; }

# debug_modules: the debug kernel's modules, once, before the first stage
# that needs them: the main chain builds them, another chain waits for
# that (modules_done).
modules_done=$logs/.debug-modules-built
debug_modules() {
	export SROCE_BUILD=$top/build/debug
	export SROCE_KO=$SROCE_BUILD/sroce.ko
	if [ "$1" != "$modules_chain" ]; then
		wait_for "$modules_done"
		return
	fi
	kdebug=$(tools/testvm/build-kernel.sh debug 2>/dev/null | tail -n1)
	step build-debug make -s module-for KDIR="$kdebug" BUILD="$SROCE_BUILD"
	touch "$modules_done"
}

# The rows run in four chains at once:
#   host   dkms first, at once (it builds the Debian kernels' sroce.ko),
#          then, once the debug kernel is there, the other host stages
#          but the builds; all at nice 19;
#   builds once the debug kernel is there, the host stages that build
#          sroce against the kernels (stock-build, guards) and style, at
#          nice 19 too: in one host chain they came after everything and
#          ran on one core once the debug boot was over (2 minutes);
#   stock  each Debian kernel's stages: its shared pair boot, once dkms
#          has its modules (build/dkms/.ready) and the debug kernel is
#          built (a cold build takes both cores), beside the debug
#          kernel's boot, whose guests leave about a third of each core
#          idle (they wait on each other, and on their tools' start);
#          before them, the debug kernel's second shared boot (pair:NAME
#          rows), beside its first, while the stock chain would only wait
#          for dkms;
#   main   the debug kernel (a step), its modules, KUnit and shared pair
#          boot, and the stages of no kernel (rule-coverage, last).
# The VMs of both boots keep the CPU whenever they want it; the timing
# checks that a busy host could disturb (perftest's, compare's) measure
# each VM's stalls and run a disturbed run again.
stock_rows=() host_rows=() build_rows=() main_rows=() late_rows=()
for r in "${rows[@]}"; do
	read -r name kernel boot _ <<<"$r"
	if [ "$boot" = host ]; then
		case $name in
		stock-build | guards | style) build_rows+=("$r") ;;
		*) host_rows+=("$r") ;;
		esac
	elif [ "$kernel" != - ] && [ "$kernel" != debug ]; then stock_rows+=("$r")
	elif [[ $boot == pair:* ]]; then late_rows+=("$r")
	else main_rows+=("$r"); fi
done
stock_rows=(${late_rows[@]+"${late_rows[@]}"} ${stock_rows[@]+"${stock_rows[@]}"})
# The chain that builds the debug kernel's modules: main, unless none of
# its rows is the debug kernel's (--only).
modules_chain=stock
for r in "${main_rows[@]}"; do [ "$(awk '{ print $2 }' <<<"$r")" != debug ] || modules_chain=main; done
# Markers between the chains, none left from an earlier run.
kernel_done=$logs/.kernel-debug-ended dkms_done=$logs/.dkms-ended
rm -f "$kernel_done" "$dkms_done" "$modules_done" "$top/build/dkms/.ready"
# wait_for FILE...: until one of the FILEs is there.
wait_for() {
	local f
	while :; do
		for f in "$@"; do [ -e "$f" ] && return 0; done
		sleep 2
	done
}

# A host stage's command, at the lowest priority: nice 19 in a session of
# its own whose autogroup is niced too.  With the scheduler's autogroups
# (Debian's default) nice only ranks processes within their session, and
# each QEMU runs in a session of its own: a niced build in the runner's
# session still took as much CPU as a whole VM (rc's checks ran 35%
# slower beside check-stock-build and dkms).
# shellcheck disable=SC2016
lowest='echo 19 >/proc/self/autogroup 2>/dev/null; exec nice -n 19 bash -c "$1"'

# run_rows CHAIN ROW...: the rows, in order.  A host row runs at nice 19;
# the first pair row of a shared boot (a kernel's "pair", or its
# "pair:NAME") books the runs of every row of that boot among ROWs, boots
# it, and each row then judges its own slice.
declare -A booked=()
run_rows() {
	local r q name kernel boot cmd qn qk qb qc gdir gkey lo hi last cname=$1
	shift
	for r in "$@"; do
		read -r name kernel boot cmd <<<"$r"
		if [ "$boot" = host ]; then
			[ "$name" = dkms ] || wait_for "$kernel_done"
			stage "$name" setsid -w bash -c "$lowest" sroce-host "$cmd"
			[ "$name" != dkms ] || touch "$dkms_done"
			continue
		fi
		# A Debian kernel's stages load what dkms built, and do not boot
		# beside a cold build of the debug kernel: it takes both cores,
		# and it is on the critical path (the debug boot waits for it).
		case $kernel in
		-) ;;
		debug) [ "$cname" = main ] || wait_for "$kernel_done" ;;
		*) wait_for "$top/build/dkms/.ready" "$dkms_done"; wait_for "$kernel_done" ;;
		esac
		[ "$kernel" != debug ] || [ -n "${SROCE_KO:-}" ] || debug_modules "$cname"
		case $boot in
		pair) gkey=$kernel ;;
		pair:*) gkey=$kernel-${boot#pair:} ;;
		*) stage "$name" bash -c "$cmd"; continue ;;
		esac
		gdir=$top/build/group/$gkey
		if [ -z "${booked[$gkey]:-}" ]; then
			booked[$gkey]=1
			rm -rf "$gdir"
			mkdir -p "$gdir"
			# Book every run of this boot's stages, in table order.
			declare -A first=()
			for q in "$@"; do
				read -r qn qk qb qc <<<"$q"
				[ "$qk" = "$kernel" ] && [ "$qb" = "$boot" ] || continue
				first[$qn]=$(find "$gdir" -mindepth 1 -maxdepth 1 -type d | wc -l)
				SROCE_GROUP=$gdir SROCE_GROUP_PHASE=book bash -c "$qc" >"$logs/$qn.book.log" 2>&1
				last=$(find "$gdir" -mindepth 1 -maxdepth 1 -type d | wc -l)
				[ "$last" -gt "${first[$qn]}" ] || echo "   $qn: booked no run (see $logs/$qn.book.log)" >&2
				first[$qn]="${first[$qn]} $last"
			done
			step "boot-$gkey" python3 tools/testvm/group.py "$gdir"
			# What each stage's runs took in the boot (group.py's times.txt).
			for qn in "${!first[@]}"; do
				read -r lo hi <<<"${first[$qn]}"
				inboot[$qn]=$(awk -v lo="$lo" -v hi="$hi" '$1 + 0 >= lo && $1 + 0 < hi { t += $2 }
					END { print t + 0 }' "$gdir/times.txt" 2>/dev/null)
			done
			unset first
		fi
		stage "$name" env SROCE_GROUP="$gdir" SROCE_GROUP_PHASE=replay bash -c "$cmd"
	done
}

# chain NAME ROW...: run_rows in the background; the chain's counts and
# times come back through $logs/.chain-NAME-* (chain_wait).
chains=()
chain() {
	local cname=$1
	shift
	[ $# -gt 0 ] || return 0
	rm -f "$logs/.chain-$cname-times" "$logs/.chain-$cname-totals"
	(
		total_pass=0 total_fail=0 failed_stages=() times=()
		run_rows "$cname" "$@"
		printf '%s\n' "${times[@]}" >"$logs/.chain-$cname-times"
		echo "$total_pass $total_fail ${failed_stages[*]}" >"$logs/.chain-$cname-totals"
	) &
	chains+=("$cname:$!")
}
chain_wait() {
	local c p f rest
	for c in "${chains[@]}"; do
		wait "${c#*:}"
		read -r p f rest <"$logs/.chain-${c%%:*}-totals" || { p=0 f=1 rest="chain-${c%%:*}"; }
		total_pass=$((total_pass + p))
		total_fail=$((total_fail + f))
		# shellcheck disable=SC2206
		failed_stages+=($rest)
		mapfile -t -O "${#times[@]}" times < <(sed 's/^\([^ ]*\)/\1(bg)/' "$logs/.chain-${c%%:*}-times")
	done
	chains=()
}

chain host "${host_rows[@]}"
chain builds "${build_rows[@]}"
chain stock "${stock_rows[@]}"
# The debug kernel, as a step of its own (check-stock-build and every
# debug stage need it).
if printf '%s\n' "${rows[@]}" | awk '$2 == "debug" || $1 == "stock-build" { f = 1 } END { exit !f }'; then
	step kernel-debug tools/testvm/build-kernel.sh debug
fi
touch "$kernel_done"
run_rows main "${main_rows[@]}"
chain_wait
time_table
echo "== wall time $((SECONDS - t_start)) s ($(((SECONDS - t_start) / 60))m$(printf %02d $(((SECONDS - t_start) % 60)))s)" >&2
failure_summary
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]

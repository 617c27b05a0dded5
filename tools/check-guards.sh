#!/usr/bin/env bash
# Prove that the freestanding-C++ guards fail the build.  Each probe is
# one C++ source built as a core object of a scratch module and must fail
# with the expected message; a control probe (a plain function) must
# build, or the scratch build itself is broken and the failures prove
# nothing.
#
# Every guard acts on a single core object (drivers/sroce/core/
# Kbuild.include): the C++ flags taken from the kernel's C flags minus the
# C-only ones (a C-only flag reaching g++ fails the compile), enforce.h's
# poisoned identifiers, and, on the finished object, the checks for C++
# runtime imports and for constructor sections and static constructors.
# So each probe builds only its object, as a kbuild single target
# (make -C KDIR M=SCRATCH drivers/sroce/core/probe.o), in a scratch
# directory holding symlinks to the real drivers/sroce/core and a Kbuild
# that includes the project's own Kbuild with the core's object list
# replaced by the probe: the probe gets exactly the rule, flags and guards
# of a core object.  The probes run in parallel.
#   tools/check-guards.sh [KDIR]     default: the debug test kernel
# Prints "check-guards: FAIL: ..." and the tail of its build log on
# stderr for each failure, then a KTAP document of the probes' verdicts and
# its count, "check-guards: P passed, F failed".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:-$("$top/tools/testvm/build-kernel.sh" debug | tail -n1)}
[ -f "$kdir/Makefile" ] || { echo "check-guards: FAIL: no kernel tree in '$kdir'" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

names=() expects=() codes=()
# probe NAME EXPECT CODE: CODE must fail to build, printing a line that
# matches the extended regular expression EXPECT; an empty EXPECT makes
# the probe a control, which must build.
probe() { names+=("$1"); expects+=("$2"); codes+=("$3"); }

probe "control: a plain function builds" "" '
int sroce_guard_control(int x) { return x + 1; }
#include "enforce.h"'
probe "static constructor" "static constructor|constructor/unwind" '
struct S { S(); int v; };
int f();
S::S() : v(f()) {}
S s;'
probe "operator new" "imports the C[+][+] runtime" '
struct T { int v; };
T* make_t() { return new T; }'
probe "thread-safe local static" "imports the C[+][+] runtime" '
int f();
int g() { static int x = f(); return x; }'
probe "pure virtual" "imports the C[+][+] runtime" '
struct B { virtual int f() = 0; virtual int g(); };
int B::g() { return 0; }'
probe "poisoned std" 'poisoned "std"' '
#include "enforce.h"
namespace std { int x; }'
probe "poisoned throw" 'poisoned "throw"' '
#include "enforce.h"
void f() { throw 1; }'
probe "C-only flag reaching g++" "C-only kernel flag" '
// probe: a pragma to force the diagnostic
#pragma GCC diagnostic warning "-Wstrict-prototypes"
int x;'

# scratch DIR CODE: a module directory whose only core object is CODE.
# Its Kbuild sets sroce-cxx-objs with "override" and then includes the
# project's Kbuild, whose own assignment of the list is thereby ignored:
# the rest (the module the object belongs to, its flags, and the C++ rule
# and guards of core/Kbuild.include) is the project's, unchanged.
scratch() {
	mkdir -p "$1/drivers/sroce"
	cp -as "$top/drivers/sroce/core" "$1/drivers/sroce/"
	printf '%s\n' "$2" >"$1/drivers/sroce/core/probe.cc"
	printf '%s\n' \
		"# check-guards scratch module: the project's Kbuild, its C++ core" \
		"# replaced by one probe object." \
		"override sroce-cxx-objs := drivers/sroce/core/probe.o" \
		"include $top/Kbuild" >"$1/Kbuild"
}

pids=()
for i in "${!names[@]}"; do
	scratch "$work/$i" "${codes[$i]}"
	# Outside any enclosing make: its -s or V=1 would hide the CXXCHK line.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL LC_ALL=C \
		make -C "$kdir" M="$work/$i" drivers/sroce/core/probe.o >"$work/$i/log" 2>&1 &
	pids+=($!)
done

# The probes' verdicts, in KTAP (tools/testvm/guest-lib.sh's emitter; the
# reasons for a failure on stderr), counted by tools/ktap.py.
KTAP_ONLY=1 . "$top/tools/testvm/guest-lib.sh"
KTAP_STATE=$work/ktap.state
ktap_begin ${#names[@]} >"$work/guards.ktap"
for i in "${!names[@]}"; do
	name=${names[$i]} expect=${expects[$i]} log=$work/$i/log obj=$work/$i/drivers/sroce/core/probe.o
	built=1
	wait "${pids[$i]}" || built=0
	if [ -z "$expect" ]; then
		# The control: it built, through the C++ rule and its guard.
		if [ $built = 1 ] && grep -q "CXXCHK .*/probe.o" "$log" &&
			nm "$obj" | grep -q ' T .*sroce_guard_control'; then
			ktap_ok "$name" >>"$work/guards.ktap"
			continue
		fi
		why="the scratch build does not build a core object"
	elif [ $built = 1 ]; then
		why="built"
	elif ! grep -qE "$expect" "$log"; then
		why="failed without '$expect'"
	else
		ktap_ok "$name" >>"$work/guards.ktap"
		continue
	fi
	echo "check-guards: FAIL: $name: $why:" >&2
	tail -n 5 "$log" >&2
	ktap_fail "$name: $why" >>"$work/guards.ktap"
done
cat "$work/guards.ktap"
python3 "$top/tools/ktap.py" count --name check-guards "$work/guards.ktap"

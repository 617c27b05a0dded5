#!/usr/bin/env bash
# Prove that the freestanding-C++ guards fail the build.  Each probe adds
# one forbidden construct to the core in a scratch copy of the tree and
# builds it against the test kernel; the build must fail, with the
# expected message.
#   tools/check-guards.sh [KDIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:-$("$top/tools/testvm/build-kernel.sh" normal | tail -n1)}

probe() {
	local name=$1 expect=$2 code=$3 dir
	dir=$(mktemp -d)
	cp -r "$top"/{Kbuild,drivers,include,kunit} "$dir/"
	printf '%s\n' "$code" >"$dir/drivers/sroce/core/probe.cc"
	sed -i 's|drivers/sroce/core/abi.o|drivers/sroce/core/abi.o drivers/sroce/core/probe.o|' "$dir/Kbuild"
	# The kernel API probes, as the Makefile runs them before kbuild.
	"$dir/drivers/sroce/compat/probe.sh" "$kdir" "$dir/drivers/sroce/compat/config.h" 2>/dev/null
	if make -C "$kdir" M="$dir" -j"$(nproc)" modules >"$dir/log" 2>&1; then
		echo "check-guards: FAIL: $name built" >&2
		rm -rf "$dir"
		return 1
	fi
	if ! grep -qE "$expect" "$dir/log"; then
		echo "check-guards: FAIL: $name failed without '$expect':" >&2
		tail -n 5 "$dir/log" >&2
		rm -rf "$dir"
		return 1
	fi
	echo "check-guards: ok: $name"
	rm -rf "$dir"
}

fails=0
probe "static constructor" "static constructor|constructor/unwind" '
struct S { S(); int v; };
int f();
S::S() : v(f()) {}
S s;' || fails=$((fails + 1))
probe "operator new" "imports the C[+][+] runtime" '
struct T { int v; };
T* make_t() { return new T; }' || fails=$((fails + 1))
probe "thread-safe local static" "imports the C[+][+] runtime" '
int f();
int g() { static int x = f(); return x; }' || fails=$((fails + 1))
probe "pure virtual" "imports the C[+][+] runtime" '
struct B { virtual int f() = 0; virtual int g(); };
int B::g() { return 0; }' || fails=$((fails + 1))
probe "poisoned std" "poisoned" '
#include "enforce.h"
namespace std { int x; }' || fails=$((fails + 1))
probe "poisoned throw" "poisoned" '
#include "enforce.h"
void f() { throw 1; }' || fails=$((fails + 1))
probe "C-only flag reaching g++" "C-only kernel flag" '
// probe: a pragma to force the diagnostic
#pragma GCC diagnostic warning "-Wstrict-prototypes"
int x;' || fails=$((fails + 1))
echo "check-guards: $((7 - fails)) passed, $fails failed"
[ $fails -eq 0 ]

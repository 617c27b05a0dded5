# Sourced by the two-VM test wrappers (device, integrity, errors, pyverbs).
# They set `top` first.

# pair_setup NAME FLAVOUR [RESPONDER]: sets flavour (and resp) and a fresh
# output directory $out = build/NAME-FLAVOUR[-RESPONDER]; with a
# responder, $out/responder names it for the guests (-f "$out/responder").
pair_setup() {
	flavour=$2
	resp=${3:-}
	out=$top/build/$1-$flavour${resp:+-$resp}
	rm -rf "$out"
	mkdir -p "$out"
	[ -z "$resp" ] || echo "$resp" >"$out/responder"
}

# pair_grep_count REGEX FILE...: lines matching REGEX (0 if none).
pair_grep_count() {
	local re=$1
	shift
	cat "$@" 2>/dev/null | grep -aEc "$re" || true
}

# pair_verdict NAME RC PASS FAIL: print "NAME: P passed, F failed" and
# succeed only if all passed.  A failed VM run (RC != 0) with no failed
# check still counts as one failure, and so does a run with no passes.
pair_verdict() {
	local name=$1 rc=$2 pass=$3 fail=$4
	[ "$rc" -eq 0 ] || [ "$fail" -gt 0 ] || fail=1
	[ "$pass" -gt 0 ] || fail=$((fail + 1))
	echo "$name: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

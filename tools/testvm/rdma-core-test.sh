#!/usr/bin/env bash
# rdma-core's own test suite (Debian's python3-pyverbs ships it in
# /usr/share/doc/rdma-core/tests), unchanged, on one sroce device, with
# stock rxe on the same kernel as the control: one VM (run-pair.sh -1),
# one boot, `run_tests.py -v --dev DEV --gid IDX` first on rxe0, then
# (rdma_rxe unloaded) on sroce0; tools/testvm/rdma-core-guest.sh.
#
#   tools/testvm/rdma-core-test.sh [normal|debug|deb6.1|deb6.12] [--strict] [--known-error TEST]...
#                                  [-- RUN_TESTS_ARGS...]
#   SROCE_KO=path/sroce.ko tools/testvm/rdma-core-test.sh ...
#
# RUN_TESTS_ARGS (e.g. a test name such as tests.test_qp.QPTest.test_modify_qp)
# go to both runs, for running one test alone.  The VM image is
# mkinitramfs.sh's "pyverbs" one: python3-pyverbs carries the suite; the
# guest copies it to /tmp and gunzips its *.py.gz.
#
# The two runs are compared test by test, not by totals (some negative
# tests pass whenever a verb fails at all): build/rdma-core-FLAVOUR/
# {rxe,sroce}.results hold "STATUS TEST" per test (ok, FAIL, ERROR, skip,
# or MISSING for a test the run never reached); the table of tests whose
# status differs (or that ERROR on sroce) is printed, with sroce's skip
# reason or exception.  Checks:
#   - every test that passes on rxe passes on sroce, one check each; one
#     that sroce skips for a feature it does not have yet (raw packet
#     QPs; read off the skip reason or the test's source) is
#     "deferred" and counted as skipped, not failed, unless --strict;
#   - no test ERRORs on sroce: one failed check per such test (those that
#     ERROR on rxe too, e.g. ATOMIC_WRITE on 6.1, are listed apart);
#   - each run finishes (a run that does not is one more failure).
# Tests that pass on sroce but not on rxe are reported, not counted.
# The checks are KTAP ($out/checks.ktap, a subtest of the wrapper's
# document, with "# SKIP" for the deferred tests); the last line is its
# count, "rdma-core-FLAVOUR: P passed, F failed[, S skipped]".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"

usage() { sed -n '2,33p' "$0" >&2; exit 2; }
flavour=debug strict=0 known=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	normal | debug | deb6.1 | deb6.12) flavour=$1 ;;
	--strict) strict=1 ;;
	--known-error) known=$known,$2; shift ;;
	--) shift; args=("$@"); break ;;
	*) usage ;;
	esac
	shift
done
pair_setup rdma-core "$flavour"

# The budget of one run_tests.py run in the guest (s), and of the VM.
if [ "$flavour" = debug ]; then per=900; else per=420; fi
[ ${#args[@]} -eq 0 ] || per=300
printf '%s\n' rxe sroce >"$out/rdma-core-providers"
echo "$per" >"$out/rdma-core-timeout"
files=(-f "$out/rdma-core-providers" -f "$out/rdma-core-timeout")
if [ ${#args[@]} -gt 0 ]; then
	echo "${args[*]}" >"$out/rdma-core-args"
	files+=(-f "$out/rdma-core-args")
fi

t0=$SECONDS
rc=0
"$here/run-pair.sh" -1 -A "$here/rdma-core-guest.sh" -o "$out" -k "$flavour" -s "${ko_args[@]}" \
	-t $((2 * per + 240)) -i pyverbs "${files[@]}" || rc=1
echo "rdma-core: VM run took $((SECONDS - t0)) s" >&2
tr -d '\r' <"$out/a.log" >"$out/a.log.txt"

python3 - "$out" "$strict" "$known" <<'PY'
import ast, collections, gzip, os, re, sys
out, strict = sys.argv[1], sys.argv[2] == "1"
# --known-error NAME: a test that ERRORs on rxe too, listed by the caller as
# a known gap: reported on its own line, not counted.  Any other ERROR is.
known_errors = {t for t in sys.argv[3].split(",") if t}
log = open(f"{out}/a.log.txt", errors="replace").read().splitlines()
provs = ("rxe", "sroce")
STATUS = re.compile(r"(?:^|\.\.\. )(ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$")
HEAD = re.compile(r"^(\w+) \(([\w.]+)\)")
SUMMARY = re.compile(r"^(FAIL|ERROR): (\w+) \(([\w.]+)\)")
short = {"ok": "ok", "FAIL": "FAIL", "ERROR": "ERROR", "expected failure": "xfail",
         "unexpected success": "FAIL"}

def parse(prov):
    """run_tests.py's stderr for PROV: {test id: status}, [ordered ids], totals,
    finished, exit status, duration, {id: skip reason}, {id: FAIL/ERROR's exception}."""
    err = [l.split(" | ", 1)[1] if " | " in l else ""
           for l in log if l.startswith(f"RDMACORE-ERR {prov} |")]
    res, order, pending, reason, exc = {}, [], None, {}, {}
    totals, finished, failing = None, False, None
    for l in err:
        m = SUMMARY.match(l)
        if m:   # the summary section: definitive for FAIL/ERROR
            tid = m.group(3) if m.group(3).endswith("." + m.group(2)) else f"{m.group(3)}.{m.group(2)}"
            if tid not in res:
                order.append(tid)
            res[tid] = m.group(1)
            failing, pending = tid, None
            continue
        if failing:   # its traceback: the last line before the next rule is the exception
            if re.match(r"^(-{20,}|={20,})$", l):
                failing = None if failing in exc else failing
            elif l.strip() and not l.startswith(" ") and not l.startswith("Traceback"):
                exc[failing] = l.strip()
            continue
        m = HEAD.match(l)
        if m:
            tid = m.group(2)
            if not tid.endswith("." + m.group(1)):   # Python < 3.11 prints the class only
                tid = f"{tid}.{m.group(1)}"
            if pending and pending not in res:
                res[pending] = "MISSING"
            pending = tid
            if tid not in order:
                order.append(tid)
        s = STATUS.search(l)
        if s and pending:
            st = s.group(1)
            res[pending] = "skip" if st.startswith("skipped") else short[st]
            if st.startswith("skipped"):
                reason[pending] = st[len("skipped "):].strip("'\"")
            pending = None
        if re.match(r"^Ran \d+ tests? in", l):
            finished = True
        m = re.match(r"^(OK|FAILED)(?: \((.*)\))?$", l)
        if m:
            totals = l
    if pending and pending not in res:
        res[pending] = "MISSING"
    rcs = [l.split()[2] for l in log if l.startswith(f"RDMACORE-RC {prov} ")]
    tm = [l.split() for l in log if l.startswith(f"RDMACORE-TIME {prov} ")]
    secs = f"{float(tm[0][3]) - float(tm[0][2]):.0f} s" if tm else "?"
    return res, order, totals, finished, (rcs[0] if rcs else None), secs, reason, exc

runs = {p: parse(p) for p in provs}
sr_reason, sr_error = runs["sroce"][6], runs["sroce"][7]
for p in provs:
    res, order, totals, finished, rc, secs = runs[p][:6]
    with open(f"{out}/{p}.results", "w") as f:
        for t in order:
            f.write(f"{res[t]} {t}\n")
    c = collections.Counter(res.values())
    print(f"rdma-core: {p}: {c['ok']} passed, {c['FAIL']} failed, {c['ERROR']} errors, "
          f"{c['skip']} skipped" + (f", {c['MISSING']} not reached" if c['MISSING'] else "")
          + (f", {c['xfail']} expected failures" if c['xfail'] else "")
          + f" ({len(res)} tests; unittest: {totals or 'no totals'}; exit {rc}; {secs})")

rx, sr = runs["rxe"][0], runs["sroce"][0]
allt = list(dict.fromkeys(runs["rxe"][1] + runs["sroce"][1]))
# A test that passes on rxe and is skipped on sroce for a feature sroce
# does not have yet (raw packet QPs) is deferred, not
# failed (unless --strict); UD, UC, address handles and memory windows are not.  The feature is read
# off sroce's skip reason, else off the test method's source (e.g. a
# QP-ex test that creates its QPs with qp_type='ud_send').
DEFER = [("raw packet QP", r"Raw Packet|IBV_QPT_RAW_PACKET")]
TESTS = "/usr/share/doc/rdma-core/tests"

def method_source(tid):
    parts = tid.split(".")
    if len(parts) != 4:
        return ""
    _, mod, cls, meth = parts
    for fn, op in ((f"{TESTS}/{mod}.py", open), (f"{TESTS}/{mod}.py.gz", gzip.open)):
        if os.path.exists(fn):
            src = op(fn, "rt").read()
            break
    else:
        return ""
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for fd in node.body:
                if isinstance(fd, ast.FunctionDef) and fd.name == meth:
                    return ast.get_source_segment(src, fd) or ""
    return ""

def deferred_feature(tid):
    for text in (sr_reason.get(tid, ""), method_source(tid)):
        for feat, pat in DEFER:
            if re.search(pat, text):
                return feat
    return None

# Per test: its verdict (FAIL, DEFERRED <feature>, or "-": not a check)
# and a note.
p = f = 0
checks = []  # the KTAP results, in order: (ok, description, directive)
verdict, note = {}, {}
deferred = collections.defaultdict(list)
for t in allt:
    a, b = rx.get(t, "MISSING"), sr.get(t, "MISSING")
    note[t] = sr_reason.get(t) or sr_error.get(t) or ""
    if a == "ok" and b == "ok":
        p += 1
        verdict[t] = "pass"
        checks.append((True, t, ""))
    elif a == "ok":
        feat = deferred_feature(t) if b == "skip" else None
        if feat and not strict:
            deferred[feat].append(t)
            verdict[t] = f"deferred ({feat})"
            checks.append((True, t, f"SKIP deferred: sroce has no {feat} yet"))
        else:
            f += 1
            verdict[t] = "FAIL"
            checks.append((False, t, f"passes on rxe, {b} on sroce"))
    elif b == "ERROR" and a == "ERROR" and t.rsplit(".", 1)[-1] in known_errors:
        verdict[t] = "known gap (ERROR on both)"
    elif b == "ERROR":
        f += 1
        verdict[t] = "FAIL (ERROR)"
        checks.append((False, t, f"ERROR on sroce, {a} on rxe"))
    elif b == "ok":
        verdict[t] = "better on sroce"
    else:
        verdict[t] = "-"
diff = [t for t in allt if rx.get(t, "MISSING") != sr.get(t, "MISSING") or sr.get(t) == "ERROR"]
if diff:
    w = max(len(t) for t in diff)
    print(f"rdma-core: tests whose status differs, or that ERROR on sroce ({len(diff)}):")
    print(f"  {'test':<{w}}  {'rxe':<7} {'sroce':<7} {'verdict':<20} sroce's reason")
    for t in diff:
        print(f"  {t:<{w}}  {rx.get(t, 'MISSING'):<7} {sr.get(t, 'MISSING'):<7} {verdict[t]:<20} {note[t]}")
else:
    print("rdma-core: no test's status differs")
for t in allt:
    if verdict[t].startswith("FAIL"):
        why = (f"ERROR on sroce, {rx.get(t, 'MISSING')} on rxe" if sr.get(t) == "ERROR"
               else f"passes on rxe, {sr.get(t, 'MISSING')} on sroce")
        print(f"rdma-core-check: FAIL {t}: {why}" + (f": {note[t]}" if note[t] else ""))
both = [t for t in allt if rx.get(t) == "ERROR" and sr.get(t) == "ERROR"]
if both:
    print(f"rdma-core: ERROR on both providers (counted as sroce failures unless --known-error): "
          + ", ".join(f"{t} ({sr_error.get(t, '?')})" for t in both))
ndef = sum(len(v) for v in deferred.values())
if ndef:
    print(f"rdma-core: {ndef} tests pass on rxe but are skipped on sroce for a feature it "
          f"does not have yet, counted as skipped: "
          + "; ".join(f"{k} {len(v)}" for k, v in sorted(deferred.items())))
better = [t for t in allt if verdict[t] == "better on sroce"]
print(f"rdma-core: pass on sroce but not on rxe: "
      + (", ".join(f"{t} (rxe {rx.get(t, 'MISSING')})" for t in better) if better else "none"))
for pv in provs:
    if not runs[pv][3]:
        f += 1
        print(f"rdma-core-check: FAIL the {pv} run did not finish (exit {runs[pv][4]})")
    checks.append((runs[pv][3], f"the {pv} run finished", f"exit {runs[pv][4]}"))
# A run that finished with no test result parsed (an import error, an
# empty suite) must not pass on the two checks above alone.
checks.append((bool(rx) and bool(sr), "test results found on both providers",
               f"rxe {len(rx)}, sroce {len(sr)}"))
# The checks as KTAP (tools/ktap.py counts them), for the wrapper's document.
with open(f"{out}/checks.ktap", "w") as fh:
    fh.write(f"KTAP version 1\n1..{len(checks)}\n")
    for i, (ok, t, why) in enumerate(checks, 1):
        fh.write(f"{'ok' if ok else 'not ok'} {i} {t}" + (f" # {why}" if why else "") + "\n")
PY
pair_ktap_begin "rdma-core-$flavour"
pair_ktap_guest "rxe against sroce" "$out/checks.ktap"
pair_ktap_end "rdma-core-$flavour" $rc

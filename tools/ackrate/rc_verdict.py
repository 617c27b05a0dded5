#!/usr/bin/env python3
"""The verdicts of the rc test (tools/testvm/rc-test.sh), as a KTAP document.

    rc_verdict.py OUT --name NAME [--two-vm] [--vm-rc RC] [--retransmits-report]

OUT holds a run of rc-test.sh: plan.txt, rc-rounds, a.log (and b.log for
two-VM pairings), link.pcap.  One result per check of the plan: it passes
when both its client and its server printed "RC-RESULT ID client|server 0"
(the client in a.log, the server in b.log; loopback: both in a.log).
With --two-vm and a capture, the capture checks (analyze.py counts the
frames of each two-VM RC check; capture_verdicts() says what is checked);
then the self-tests of analyze.py and trace_episodes.py.  Prints one KTAP
version 1 document (the capture's counts as "# rc-capture:" diagnostic
lines) and then "NAME: P passed, F failed"; a VM run that failed (--vm-rc,
non-zero) with no failed check, and a run with no passing check, are one
more failed result each.  Exits 1 if any result failed.
Writes a.log.txt, b.log.txt (the consoles without CRs),
capture-workloads.txt, capture.json, capture.err and capture.txt to OUT.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import stalls as ST  # noqa: E402
import trace_episodes as TE  # noqa: E402

# Workloads where VM B sends requests too: analyze.py takes them for
# responses, so its invariants do not apply there.
TWO_WAY = ("ibv_rc_pingpong", "ib_send_lat", "ib_write_lat")
TR_KEYS = ("naks", "unseen", "by_nak", "left_to_timer", "not_acted", "duplicate", "dropped")
FIELDS = ("id", "round", "pair", "kind", "tool", "size", "iters", "timeout", "label")
# The capture checks are about the RC requests and responses of one
# connection per check: not the UD, UC and CM checks.
NOT_CAPTURED = re.compile(r"(^|/)(ibv_ud_pingpong|ibv_uc_pingpong|ud|uc|cm)(/|$)")


def read_plan(lines):
    """Plan lines -> dicts of FIELDS and "options" (a string)."""
    plan = []
    for ln in lines:
        f = ln.split()
        if len(f) < len(FIELDS):
            continue
        c = dict(zip(FIELDS, f))
        c["options"] = " ".join(f[len(FIELDS):])
        plan.append(c)
    return plan


def results(lines, side):
    """RC-RESULT lines of one side -> {id: (rc, seconds)}, the first of each."""
    out = {}
    for ln in lines:
        f = ln.split()
        if len(f) >= 4 and f[0] == "RC-RESULT" and f[2] == side:
            out.setdefault(f[1], (f[3], f[4] if len(f) > 4 else ""))
    return out


def reruns(lines):
    """RC-RERUN lines (a check the client ran again, rc-guest.sh's
    again()) -> {id: (runs, reason)}: the check ran that many times."""
    out = {}
    for ln in lines:
        f = ln.split()
        if len(f) >= 3 and f[0] == "RC-RERUN":
            out[f[1]] = (out.get(f[1], (1, ""))[0] + 1, f[2])
    return out


def check_results(plan, a_lines, b_lines):
    """One (passed, text) per check of the plan; a check run again says so."""
    client = results(a_lines, "client")
    server = {"a": results(a_lines, "server"), "b": results(b_lines, "server")}
    again = reruns(a_lines)
    out = []
    for c in plan:
        name = f"{c['round']} {c['pair']} {c['label'].replace('/', ' ')}"
        cr, secs = client.get(c["id"], ("", ""))
        sr, _ = server["a" if c["pair"].startswith("loop-") else "b"].get(c["id"], ("", ""))
        runs, why = again.get(c["id"], (1, ""))
        twice = f", run {runs} times: {why}" if runs > 1 else ""
        if cr == "0" and sr == "0":
            out.append((True, f"{name} ({secs} s{twice})"))
        else:
            out.append((False, f"{name} (client {cr or 'no result'}, server {sr or 'no result'}{twice})"))
    return out


RC_CHECK = re.compile(r"^RC-CHECK (\S+)")


def check_stalls(lines):
    """SROCE-STALL lines of one console (tools/testvm/stallmon.c, which
    rc-guest.sh runs) -> {id: longest stall in ms}: a stall belongs to the
    check whose "RC-CHECK ID" line came last before it (stalls.py)."""
    return ST.longest_per(lines, RC_CHECK, after=False)


def run_stalls(a_lines, b_lines):
    """{id: (longest stall in ms, side)} over both VMs' consoles."""
    out = {}
    for side, lines in (("a", a_lines), ("b", b_lines)):
        for cid, ms in check_stalls(lines).items():
            if ms > out.get(cid, (0, ""))[0]:
                out[cid] = (ms, side)
    return out


def capture_workloads(plan):
    """analyze.py's workloads: the two-VM RC checks, with their control port."""
    return [f"{c['id']}/{c['round']}/{c['pair']}/{c['label']} {c['tool']} {c['size']} "
            f"{0 if c['iters'] == '-' else c['iters']} {21000 + int(c['id'])}"
            for c in plan if not c["pair"].startswith("loop-") and not NOT_CAPTURED.search(c["label"])]


def checked_rounds(rounds_lines):
    """The rounds whose frames keep their order on the wire: the clean and
    the loss-only ones.  A round whose netem delays, reorders or duplicates
    frames moves them (e.g. a NAK that VM B sent in time appears after the
    missing packet's late copy)."""
    out = []
    for ln in rounds_lines:
        f = ln.split()
        if len(f) >= 2 and (f[1] == "-" or (f[1] == "loss" and len(f) == 3)):
            out.append(f[0])
    return out


def new_group():
    return {"req": 0, "dup": 0, "stalled_dup": 0, "stalled": [], "viol": 0, "first": None, "atomics": 0, "atomic_acks": 0,
            "ep": 0, "announced": 0, "by_nak": 0, "by_timer": 0, "announced_by_timer": 0,
            "resend_lost": 0, "ignored": 0, "nak_counts": {}, "tr_missing": 0,
            "b_timer": 0, "b_nak": 0, "b_early": 0, "early_first": None,
            **{"tr_" + k: 0 for k in TR_KEYS}}


def capture_verdicts(res, checked, report, traces, stalls=None):
    """analyze.py's workloads (res) -> [(verdict, text)] in order: verdict
    None for an "rc-capture:" line that is information only, True or False
    for a capture check.

    checked: the rounds whose order on the wire is checked; report: the
    clean link's retransmissions are reported, not checked; traces:
    trace_episodes.parse() of VM A's console; stalls: run_stalls() of the
    consoles (a check where a VM stood still)."""
    out = []
    groups = {}
    for r in res:
        cid, rnd, pair, label = r["workload"].split("/", 3)
        naks = sum(r["naks_by_code"].values())
        v = r["violations"]
        two_way = label.split("/")[0] in TWO_WAY
        note = ""
        if v:
            why = ("not checked (B sends too), " if two_way else
                   "not checked (netem reorders), " if rnd not in checked else "")
            note = f"; {why}violations: {'; '.join(v[:3])}"
        out.append((None, f"rc-capture: {rnd} {pair} {label.replace('/', ' ')}: "
                          f"{r['request_packets']} request packets, "
                          f"{r['duplicate_requests']} retransmitted PSNs, {naks} NAKs, "
                          f"{r['rnr_naks']} RNR NAKs, {r['acks']} ACKs, "
                          f"{r['atomic_acks']} ATOMIC ACKs{note}"))
        out += depth_verdicts(rnd, pair, label, r)
        g = groups.setdefault((rnd, pair), new_group())
        g["req"] += r["request_packets"]
        g["dup"] += r["duplicate_requests"]
        for k in ("timer", "nak", "early"):
            g["b_" + k] += r["rexmit_bursts_" + k]
        ms, side = (stalls or {}).get(cid, (0, ""))
        if r["duplicate_requests"] and stalled_timeouts(r, ms):
            # Every burst came after a timeout, in a check where a VM
            # stood still for most of it: the ACK could not come in time.
            g["stalled_dup"] += r["duplicate_requests"]
            g["stalled"].append(f"{label.replace('/', ' ')}: VM {side.upper()} stood still {ms} ms")
        if r["rexmit_early"] and not g["early_first"]:
            g["early_first"] = f"{label}: {r['rexmit_early'][0]}"
        if label.split("/")[0] in ("ib_atomic_bw", "ib_atomic_lat"):
            g["atomics"] += r["request_packets"]
            g["atomic_acks"] += r["atomic_acks"]
        if two_way:
            continue
        for k, rk in (("ep", "loss_episodes"), ("announced", "episodes_announced"),
                      ("by_nak", "episodes_by_nak"), ("by_timer", "episodes_by_timer"),
                      ("announced_by_timer", "announced_by_timer"),
                      ("resend_lost", "resend_lost"), ("ignored", "nak_ignored")):
            g[k] += r[rk]
        for k, n in r["naks_per_episode"].items():
            g["nak_counts"][k] = g["nak_counts"].get(k, 0) + n
        if rnd != "clean" and pair.startswith("sroce-"):
            tr = traces.get(cid)
            if tr is None or not tr["total"] or tr["overrun"] or tr["unavailable"]:
                g["tr_missing"] += 1
            else:
                m = TE.match(tr["events"], r.get("seq_naks", []))
                for k in TR_KEYS:
                    g["tr_" + k] += m[k]
        g["viol"] += len(v)
        if v and not g["first"]:
            g["first"] = f"{label}: {v[0]}"
    for (rnd, pair), g in groups.items():
        out += round_verdicts(rnd, pair, g, rnd in checked, report)
    return out


def stalled_timeouts(r, stall_ms):
    """Whether a workload's retransmissions are all timeout bursts (nothing
    newly acknowledged for 0.9 of the ACK timeout before each: analyze.py)
    in a check where a VM stood still at least that long, so that its
    responder could not answer, or its requester not take the answer,
    before the timer ran out: a busy host, not the requester."""
    return (r["rexmit_bursts_nak"] == 0 and r["rexmit_bursts_early"] == 0 and
            r["rexmit_bursts_timer"] > 0 and stall_ms >= 0.9 * ST.QP_TIMEOUT_MS)


def depth_verdicts(rnd, pair, label, r):
    """A check run with an initiator depth (a label part "oN": perftest
    -o N sets max_rd_atomic N): with sroce as the requester, exactly N READs
    were outstanding at once on the wire, never more (stock rxe rounds the
    depth up to a power of two) and the depth used; with stock rxe as the
    requester the count is information only."""
    depth = next((int(p[1:]) for p in label.split("/") if re.fullmatch(r"o[0-9]+", p)), None)
    if depth is None:
        return []
    seen = r.get("max_reads_outstanding", 0)
    text = (f"{rnd} {pair} capture IBA 9.7.6.1 initiator depth {depth} ({label.replace('/', ' ')}: "
            f"at most {seen} READs outstanding)")
    if pair.startswith("sroce-"):
        return [(seen == depth, text)]
    return [(None, f"rc-capture: {text} (information only: the requester is stock rxe)")]


def round_verdicts(rnd, pair, g, checked, report):
    """The verdicts of one round and pairing (g: its counts)."""
    out = []
    sroce_req = pair.startswith("sroce-")
    if checked:
        ok = g["viol"] == 0 and g["req"] > 0
        why = g["first"] or ("no request packets captured" if not g["req"] else "")
        out.append((ok, f"{rnd} {pair} capture go-back-N invariants "
                        f"({g['req']} request packets{'; ' + why if why else ''})"))
    else:
        out.append((None, f"rc-capture: {rnd} {pair}: {g['viol']} go-back-N invariant violations "
                          f"on the one-way workloads (information only: this round's netem "
                          f"delays, reorders or duplicates frames before the capture)"))
    if rnd != "clean":
        # Loss episodes of the one-way workloads (analyze.py): how many a
        # sequence NAK announced, NAKs per announced episode, and whether
        # the NAK or only the retransmit timer recovered each.
        naks = ", ".join(f"{n} with {k} NAK{'s' if k != '1' else ''}"
                         for k, n in sorted(g["nak_counts"].items()))
        desc = (f"{g['ep']} loss episodes, {g['announced']} announced by a NAK ({naks or 'none'}); "
                f"by the wire's clock: recovered within half the timeout of the NAK {g['by_nak']}, "
                f"later {g['by_timer']} ({g['announced_by_timer']} of them announced, "
                f"{g['resend_lost']} whose retransmission was lost again), new data sent more "
                f"than 25 ms after the NAK {g['ignored']}")
        trd = (f"by the requester's trace: {g['tr_naks']} sequence NAKs to it, {g['tr_by_nak']} gone "
               f"back on, {g['tr_left_to_timer']} left to the timer, {g['tr_unseen']} never "
               f"reaching the completer, {g['tr_not_acted']} not followed by the go-back, "
               f"{g['tr_duplicate']} duplicates, {g['tr_dropped']} dropped; "
               f"{g['tr_missing']} checks without a whole trace")
        if checked and sroce_req:
            # The NAK count per episode, from the wire; from the
            # requester's own trace, in the order its QP task decided:
            # every sequence NAK reached the completer, each was followed
            # by the go-back from its PSN, and none found the retransmit
            # timer gone back already.  The wire's clock (how soon after
            # the NAK) depends on how the host schedules the VMs: reported.
            ok = (g["ep"] > 0 and set(g["nak_counts"]) <= {"1"} and g["tr_missing"] == 0 and
                  g["tr_naks"] > 0 and g["tr_unseen"] == 0 and g["tr_not_acted"] == 0 and
                  g["tr_left_to_timer"] == 0)
            out.append((ok, f"{rnd} {pair} capture one NAK per loss episode, every NAK acted on, "
                            f"none left to the timer ({trd}; {desc})"))
        else:
            why = "the requester is stock rxe" if not sroce_req else "this round's netem reorders"
            extra = f"{trd}; " if sroce_req else ""
            out.append((None, f"rc-capture: {rnd} {pair}: {extra}{desc} (information only: {why})"))
    if rnd == "clean" and g["atomics"]:
        out.append((g["atomics"] == g["atomic_acks"],
                    f"{rnd} {pair} capture one ATOMIC ACK per ATOMIC ({g['atomic_acks']} ATOMIC "
                    f"ACKs for {g['atomics']} ATOMIC requests of ib_atomic_bw/_lat)"))
    bursts = (f"{g['dup']} retransmitted PSNs of {g['req']} request packets, in "
              f"{g['b_timer']} bursts after a timeout, {g['b_nak']} after a NAK, "
              f"{g['b_early']} with neither")
    if rnd == "clean" and sroce_req and report:
        out.append((None, f"rc-capture: {rnd} {pair}: {bursts} (reported, not checked: "
                          f"--retransmits=report)"))
    elif rnd == "clean" and sroce_req:
        # On a clean link nothing is lost, so nothing may be resent: not
        # after a NAK, not after progress (a stale expiry, an ignored ACK),
        # and not after a timeout either, which on a clean link means the
        # requester let packets wait unrequested (before the AckReq on a
        # pass's last packet, 16 packets of ib_write_bw -q 4 waited out the
        # 67 ms timer behind the other QPs' passes on the debug kernel).
        # Unless a VM stood still for the timeout in that check
        # (stalled_timeouts()): those are counted and named, not failed.
        why = f"; first early: {g['early_first']}" if g["early_first"] else ""
        if g["stalled"]:
            why += (f"; {g['stalled_dup']} of them after timeouts while a VM stood still "
                    f"(not counted: {', '.join(g['stalled'][:3])})")
        out.append((g["dup"] - g["stalled_dup"] == 0 and g["req"] > 0,
                    f"{rnd} {pair} capture no retransmitted PSN ({bursts}{why})"))
    else:
        why = "the requester is stock rxe" if rnd == "clean" else "a lossy link"
        out.append((None, f"rc-capture: {rnd} {pair}: {g['dup']} retransmitted PSNs in all "
                          f"(information only: {why})"))
    return out


def capture_txt(verdicts):
    """capture.txt: the capture's lines, a check's as "RC-CAPTURE-CHECK PASS|FAIL ..."."""
    return "".join((t if v is None else f"RC-CAPTURE-CHECK {'PASS' if v else 'FAIL'} {t}") + "\n"
                   for v, t in verdicts)


def read_lines(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def uncr(path):
    """PATH.txt: the console PATH without its CRs; its lines ([] if none)."""
    try:
        with open(path, "rb") as f:
            data = f.read().replace(b"\r", b"")
    except OSError:
        return read_lines(path + ".txt")
    with open(path + ".txt", "wb") as f:
        f.write(data)
    return data.decode(errors="replace").splitlines()


def capture(out, plan, a_lines, report, b_lines=()):
    """The capture checks of a run: [(verdict, text)] as capture_verdicts()."""
    with open(os.path.join(out, "capture-workloads.txt"), "w") as f:
        f.write("".join(w + "\n" for w in capture_workloads(plan)))
    cj = os.path.join(out, "capture.json")
    if os.path.exists(cj):
        os.remove(cj)	# a rerun must not judge a stale one
    with open(os.path.join(out, "capture.err"), "w") as err:
        subprocess.run([sys.executable, os.path.join(HERE, "analyze.py"),
                        os.path.join(out, "link.pcap"), os.path.join(out, "capture-workloads.txt"),
                        "--json", cj], stdout=subprocess.DEVNULL, stderr=err)
    if not os.path.exists(cj) or not os.path.getsize(cj):
        last = (read_lines(os.path.join(out, "capture.err")) or [""])[-1]
        return [(False, f"capture analysis ({last})")]
    with open(cj) as f:
        res = json.load(f)
    checked = checked_rounds(read_lines(os.path.join(out, "rc-rounds")))
    v = capture_verdicts(res, checked, report, TE.parse(a_lines), run_stalls(a_lines, b_lines))
    with open(os.path.join(out, "capture.txt"), "w") as f:
        f.write(capture_txt(v))
    # The information first, then the checks.
    return [x for x in v if x[0] is None] + [x for x in v if x[0] is not None]


def self_tests(out):
    """The checkers on made-up input: analyze.py's sequence NAK rule on
    frames, the trace matcher behind the loss-episode check on traces."""
    res = []
    for py, what in (("analyze", "capture checker"), ("trace_episodes", "trace matcher")):
        log = os.path.join(out, f"{py}-selftest.txt")
        with open(log, "w") as f:
            rc = subprocess.run([sys.executable, os.path.join(HERE, py + ".py"), "--self-test"],
                                stdout=f, stderr=subprocess.STDOUT).returncode
        if rc == 0:
            res.append((True, f"{what} self-test"))
        else:
            bad = [ln for ln in read_lines(log) if "FAIL" in ln][:3]
            res.append((False, f"{what} self-test: {''.join(b + ' ' for b in bad)}"))
    return res


def judge(out, two_vm, report):
    """Every verdict of the run in OUT, in order: [(verdict, text)]."""
    plan = read_plan(read_lines(os.path.join(out, "plan.txt")))
    a_lines = uncr(os.path.join(out, "a.log"))
    b_lines = uncr(os.path.join(out, "b.log"))
    v = check_results(plan, a_lines, b_lines)
    pcap = os.path.join(out, "link.pcap")
    if two_vm and os.path.exists(pcap) and os.path.getsize(pcap):
        v += capture(out, plan, a_lines, report, b_lines)
    elif two_vm:
        # No capture (its run's barrier not found, or the link not
        # captured): every capture check would silently go.
        v.append((False, "capture of the link (link.pcap missing or empty: no capture check ran)"))
    v += self_tests(out)
    # What went wrong in the guests' setup, and the failed tools' output.
    notes = [ln for ln in a_lines + (b_lines if two_vm else []) if re.match(r"RC-NETEM .*FAIL|# ", ln)]
    for ln in notes[:60]:
        # A failed tool's own KTAP, quoted here, must not read as a
        # document of this stage's (tools/ktap.py finds "KTAP version"
        # after any prefix).
        print(ln.replace("KTAP version", "KTAP-version"), file=sys.stderr)
    return v


def ktap(verdicts, name, vm_rc):
    """The KTAP document of the verdicts and the final line; the number
    failed.  The run's own failures (see the module's doc) are results too."""
    checks = [x for x in verdicts if x[0] is not None]
    passed = sum(1 for ok, _ in checks if ok)
    failed = len(checks) - passed
    extra = []
    if vm_rc != 0 and failed == 0:
        extra.append(f"VM run failed (exit status {vm_rc}) with no check failing")
    if passed == 0:
        extra.append("no check passed")
    failed += len(extra)
    lines = ["KTAP version 1", f"1..{len(checks) + len(extra)}"]
    n = 0
    for ok, text in verdicts + [(False, t) for t in extra]:
        text = text.replace("#", "No.")	# a '#' would start a directive
        if ok is None:
            lines.append(f"# {text}")
            continue
        n += 1
        lines.append(f"{'ok' if ok else 'not ok'} {n} {text}")
    lines.append(f"{name}: {passed} passed, {failed} failed")
    return lines, failed


def main(argv):
    ap = argparse.ArgumentParser(description="The rc test's verdicts, as KTAP.")
    ap.add_argument("out")
    ap.add_argument("--name", required=True)
    ap.add_argument("--two-vm", action="store_true")
    ap.add_argument("--vm-rc", type=int, default=0)
    ap.add_argument("--retransmits-report", action="store_true")
    a = ap.parse_args(argv)
    lines, failed = ktap(judge(a.out, a.two_vm, a.retransmits_report), a.name, a.vm_rc)
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

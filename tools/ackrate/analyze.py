#!/usr/bin/env python3
"""Count a two-VM RDMA capture per workload and check it.

    analyze.py PCAP WORKLOADS [--requester 10.0.0.1] [--json OUT.json]

The capture (QEMU filter-dump on the requester's link) is decoded with
tshark's InfiniBand dissector (UDP 4791).  Frames are split into workloads
by the perftest TCP port of each workload (the RDMA traffic of a workload
lies between its first and last TCP frame).  Per workload it counts
request packets, AckReq'd requests, ACKs, NAKs by code, RNR NAKs, READ
response packets, ATOMIC ACKs and duplicate requests, and checks the
Lumina go-back-N invariants on every queue pair:
  - ACK PSNs never move backwards;
  - at most one NAK in flight (a second NAK needs the first one's PSN
    to have been resent in between);
  - a sequence NAK's PSN is the first missing PSN, or the PSN of a gap
    the requester filled just before (a "crossing" NAK: the responder
    sent it before the retransmission reached it; allowed when the fill
    came less than the ACK timeout before the NAK and no ACK had yet
    covered the PSN);
  - every AckReq'd request PSN is covered by a later ACK/response;
  - no ACK overtakes a pending READ response.
It also follows each loss episode of the request stream: a gap in the
PSNs the requester sends for the first time opens one (its missing PSN:
the first not seen), the missing PSN's retransmission closes it.  Per
episode it counts the sequence NAKs naming a PSN of it, and how it was
recovered: "nak" when a sequence NAK announced it and the retransmission
followed that NAK within half the local ACK timeout (--timeout-ms, the
67.1 ms perftest and ibv_rc_pingpong set), sooner than any retransmit
timer could have fired since; "timer" otherwise (announced or not: a
tail loss, or a NAK lost on the way, leaves only the timer; so does a
retransmission after the NAK whose first packet was lost again:
"resend_lost", not counted in "announced_by_timer").  An episode whose
requester sent new data more than 25 ms after the NAK reached the wire,
before going back, is "nak_ignored": the requester ran but did not act on
the NAK (a host that deschedules the requester VM delays its go-back
without that, and the episode then only counts as recovered late, by
the timer's clock).  Episodes
are only meaningful where the link does not reorder.
Retransmissions come in bursts (retransmitted requests in a row); the
first of each burst says what let it go: "nak" when a NAK came within half
the timeout before it, "timer" when nothing acknowledged anything new for
0.9 of the timeout before it (less the last 25 ms, where a response may
have crossed it), "early" otherwise: a requester that retransmits with
neither a NAK nor a timeout behind it (a driver that acts on a stale
expiry, or one that ignores an ACK it got).
Prints one JSON object per workload (or writes them to --json).

    analyze.py --self-test

checks the invariant checks on made-up frames, each outcome both ways.
"""
import argparse
import collections
import json
import subprocess
import sys

MASK = 0xFFFFFF
# A response this close before a retransmission may have crossed it: the
# requester could not have acted on it yet (under TCG a response waits in
# the guest for the requester's current pass, up to 16 transmits of ~1 ms,
# and longer when the host is loaded).
CROSSING_S = 0.025
PMTU = 1024  # the path MTU of every run (rxe's and sroce's on a 1500-byte link)
REQUEST_OPS = set(range(0x00, 0x0D)) | {0x13, 0x14, 0x16, 0x17}
READ_RESP = {0x0D, 0x0E, 0x0F, 0x10}
FIELDS = ["frame.number", "frame.time_relative", "ip.src", "ipv6.src", "tcp.srcport", "tcp.dstport", "udp.dstport",
          "infiniband.bth.opcode", "infiniband.bth.a", "infiniband.bth.psn",
          "infiniband.bth.destqp", "infiniband.aeth.syndrome", "infiniband.reth.dmalen"]


def diff(a, b):
    d = (a - b) & MASK
    return d - (MASK + 1) if d >= 0x800000 else d


def in_span(spans, psn):
    """PSN lies inside one of SPANS ((first, last) PSN ranges)."""
    return any(0 <= diff(psn, f) <= diff(last, f) for f, last in spans)


def to_int(s):
    if s in ("", None):
        return None
    s = s.split(",")[0]
    return int(s, 16) if s.startswith("0x") else int(s)


def frames(pcap):
    out = subprocess.run(["tshark", "-r", pcap, "-n", "-T", "fields", "-E", "separator=\t"] +
                         sum((["-e", f] for f in FIELDS), []),
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        v = line.split("\t")
        v += [""] * (len(FIELDS) - len(v))
        yield dict(zip(FIELDS, v))


class Qp:
    """One queue pair's request stream and its responses."""

    def __init__(self):
        self.next_psn = None      # first PSN not seen yet (requests)
        self.seen = set()
        self.last_ack = None
        self.nak_outstanding = None
        self.owed = []            # AckReq'd PSNs not yet covered
        self.reads = []           # (first, last) READ response PSN ranges pending
        self.read_spans = []      # (first, last) of every READ request sent
        self.max_reads = 0        # the most READs ever pending at once
        self.episode = None       # the open loss episode: {"missing", "naks", "t_nak"}
        self.progress = []        # times of responses that acknowledged something new
        self.t_nak = None         # time of the last NAK
        self.in_burst = False     # the last request sent was a retransmission
        self.hi = None            # the highest request PSN sent
        self.filled = {}          # PSN -> time: a gap on the wire, filled then


def analyze(pcap, workloads, requester, pmtu, timeout_s=0.0671):
    return analyze_rows(list(frames(pcap)), workloads, requester, pmtu, timeout_s)


def analyze_rows(rows, workloads, requester, pmtu, timeout_s=0.0671):
    windows = []
    for wl in workloads:
        nums = [to_int(r["frame.number"]) for r in rows
                if str(wl["port"]) in (r["tcp.srcport"], r["tcp.dstport"])]
        windows.append((min(nums), max(nums)) if nums else (0, -1))
    results = []
    for wl, (lo, hi) in zip(workloads, windows):
        c = collections.Counter()
        naks = collections.Counter()
        violations = []
        episodes = []             # closed: {"naks": N, "by": "nak"|"timer"}
        seq_naks = []             # [requester QPN, PSN] of each sequence NAK
        early = []                # the first "early" retransmission bursts
        qps = collections.defaultdict(Qp)
        # Responses name the requester's QPN: map it to the responder's via PSNs.
        req_psns = collections.defaultdict(set)
        ib = [r for r in rows if lo <= to_int(r["frame.number"]) <= hi and r["infiniband.bth.opcode"]]
        for r in ib:
            if (r["ip.src"] or r["ipv6.src"]) in requester and \
                    to_int(r["infiniband.bth.opcode"]) in REQUEST_OPS:
                req_psns[to_int(r["infiniband.bth.destqp"])].add(to_int(r["infiniband.bth.psn"]))
        resp_map = {}
        for r in ib:
            op = to_int(r["infiniband.bth.opcode"])
            psn = to_int(r["infiniband.bth.psn"])
            dqp = to_int(r["infiniband.bth.destqp"])
            if (r["ip.src"] or r["ipv6.src"]) in requester:
                if op not in REQUEST_OPS:
                    continue
                q = qps[dqp]
                c["requests"] += 1
                ack = r["infiniband.bth.a"] in ("1", "True")
                if ack:
                    c["ackreq"] += 1
                t = float(r["frame.time_relative"] or 0)
                ep = q.episode
                if ep is not None and psn == ep["missing"]:
                    by = "nak" if ep["t_nak"] is not None and t - ep["t_nak"] < timeout_s / 2 else "timer"
                    episodes.append({"naks": ep["naks"], "by": by, "announced": ep["t_nak"] is not None,
                                     "resend_lost": ep["resend_lost"], "ignored": ep["ignored"]})
                    q.episode = None
                elif ep is not None and ep["t_nak"] is not None and psn in q.seen \
                        and 0 < diff(psn, ep["missing"]) < 0x800000:
                    # The go-back-N after the NAK is on the wire, but not its
                    # first packet: that copy was lost too, and only the
                    # timer is left (the responder NAKs once per episode).
                    ep["resend_lost"] = True
                elif ep is None and q.next_psn is not None and 0 < diff(psn, q.next_psn) < 0x800000 \
                        and psn not in q.seen:
                    q.episode = {"missing": q.next_psn, "naks": 0, "t_nak": None, "resend_lost": False,
                                 "ignored": False, "went_back": False}
                behind = q.hi is not None and diff(psn, q.hi) <= 0
                if ep is not None and ep["t_nak"] is not None:
                    if behind:
                        ep["went_back"] = True
                    elif not ep["went_back"] and t > ep["t_nak"] + CROSSING_S:
                        # New data well after the NAK arrived, and no go-back
                        # yet: the requester was running but had not acted
                        # on the NAK.
                        ep["ignored"] = True
                # A READ asked again from a response PSN inside an earlier
                # READ (after a gap in its responses the requester resends
                # it from the first PSN it did not get: sroce's
                # comp_drop_read_gap) is a retransmission too, though no
                # request had that PSN.
                first_copy = psn not in q.seen and not (op == 0x0C and in_span(q.read_spans, psn))
                if not first_copy:
                    c["duplicates"] += 1
                if behind:
                    # A retransmission (or the first copy on the wire of one
                    # lost before it) of a PSN already passed.
                    if not q.in_burst:
                        # The first retransmission of a burst: what let it go?
                        q.in_burst = True
                        recent = [p for p in q.progress if t - 0.9 * timeout_s < p < t - CROSSING_S]
                        if q.t_nak is not None and t - q.t_nak < timeout_s / 2:
                            c["bursts_nak"] += 1
                        elif recent:
                            c["bursts_early"] += 1
                            if len(early) < 5:
                                early.append(f"PSN {psn:#x} resent {1000 * (t - recent[-1]):.1f} ms "
                                             f"after progress")
                        else:
                            c["bursts_timer"] += 1
                else:
                    q.in_burst = False
                    q.hi = psn
                q.seen.add(psn)
                if q.nak_outstanding is not None and psn == q.nak_outstanding:
                    q.nak_outstanding = None
                if q.next_psn is None or diff(psn, q.next_psn) == 0:
                    if behind and first_copy:
                        # The first copy of a PSN the wire had a gap at
                        # (later PSNs went before it): the responder may
                        # have NAKed it before this one reached it.
                        q.filled[psn] = t
                    n = 1
                    if op == 0x0C:
                        ln = to_int(r["infiniband.reth.dmalen"]) or 0
                        n = max(1, (ln + pmtu - 1) // pmtu)
                        q.reads.append((psn, (psn + n - 1) & MASK))
                        q.read_spans.append((psn, (psn + n - 1) & MASK))
                        q.max_reads = max(q.max_reads, len(q.reads))
                    q.next_psn = (psn + n) & MASK
                if ack and op not in (0x0C, 0x13, 0x14):
                    q.owed.append(psn)
                continue
            # A response: find its queue pair.
            if dqp not in resp_map:
                resp_map[dqp] = next((k for k, s in req_psns.items() if psn in s
                                      or any(diff(psn, p) >= 0 and diff(psn, p) < 4096 for p in s)),
                                     None)
            q = qps[resp_map[dqp]]
            syn = to_int(r["infiniband.aeth.syndrome"])
            covered = psn
            if op == 0x11:
                kind = (syn >> 5) & 3
                if kind == 0:
                    c["acks"] += 1
                    if q.last_ack is not None and diff(psn, q.last_ack) < 0:
                        violations.append(f"ACK PSN moved backwards: {q.last_ack:#x} -> {psn:#x}")
                    if q.last_ack is None or diff(psn, q.last_ack) > 0:
                        q.progress.append(float(r["frame.time_relative"] or 0))
                    q.last_ack = psn
                    if any(diff(psn, first) >= 0 for first, _ in q.reads):
                        violations.append(f"ACK {psn:#x} overtook a pending READ response")
                elif kind == 1:
                    c["rnr_naks"] += 1
                    covered = (psn - 1) & MASK
                elif kind == 3:
                    code = syn & 0x1F
                    naks[code] += 1
                    if code == 0:
                        seq_naks.append([dqp, psn])
                    covered = (psn - 1) & MASK
                    if q.nak_outstanding is not None:
                        violations.append(f"second NAK {psn:#x} while NAK {q.nak_outstanding:#x} in flight")
                    q.nak_outstanding = psn
                    q.t_nak = float(r["frame.time_relative"] or 0)
                    ep = q.episode
                    if code == 0 and ep is not None and diff(psn, ep["missing"]) >= 0:
                        ep["naks"] += 1
                        if ep["t_nak"] is None:
                            ep["t_nak"] = float(r["frame.time_relative"] or 0)
                    # The first missing PSN: nothing at or after it has been
                    # executed in order, and everything before it was seen.
                    t_now = float(r["frame.time_relative"] or 0)
                    crossing = code == 0 and q.next_psn is not None and diff(psn, q.next_psn) < 0 \
                        and psn in q.filled and t_now - q.filled[psn] < timeout_s \
                        and (q.last_ack is None or diff(q.last_ack, psn) < 0)
                    if crossing:
                        c["crossing_naks"] += 1
                    elif code == 0 and q.next_psn is not None and diff(psn, q.next_psn) != 0:
                        violations.append(f"sequence NAK {psn:#x} is not the first missing PSN "
                                          f"({q.next_psn:#x})")
            elif op in READ_RESP:
                c["read_resp"] += 1
                q.progress.append(float(r["frame.time_relative"] or 0))
                if op in (0x0F, 0x10):
                    q.reads = [(f, l) for f, l in q.reads if l != psn]
            elif op == 0x12:
                c["atomic_acks"] += 1
                q.progress.append(float(r["frame.time_relative"] or 0))
            q.owed = [p for p in q.owed if diff(covered, p) < 0]
        for key, q in qps.items():
            if q.owed:
                violations.append(f"QP {key}: {len(q.owed)} AckReq'd PSNs never covered (first {q.owed[0]:#x})")
        c["naks"] = sum(naks.values())
        res = {
            "workload": wl["name"],
            "request_packets": c["requests"], "ackreq": c["ackreq"], "acks": c["acks"],
            "naks_by_code": {str(k): v for k, v in sorted(naks.items())}, "rnr_naks": c["rnr_naks"],
            "read_resp_packets": c["read_resp"], "atomic_acks": c["atomic_acks"],
            # The initiator depth on the wire: the most READ requests a QP
            # had outstanding at once (sent, their last response not yet).
            "max_reads_outstanding": max((q.max_reads for q in qps.values()), default=0),
            "duplicate_requests": c["duplicates"], "crossing_naks": c["crossing_naks"],
            "acks_per_100_requests": round(100.0 * c["acks"] / c["requests"], 2) if c["requests"] else None,
            "violations": violations[:20],
            "seq_naks": seq_naks,
            "rexmit_bursts_timer": c["bursts_timer"], "rexmit_bursts_nak": c["bursts_nak"],
            "rexmit_bursts_early": c["bursts_early"], "rexmit_early": early,
            "loss_episodes": len(episodes),
            "episodes_announced": sum(e["announced"] for e in episodes),
            "episodes_by_nak": sum(e["by"] == "nak" for e in episodes),
            "episodes_by_timer": sum(e["by"] == "timer" for e in episodes),
            "announced_by_timer": sum(e["announced"] and e["by"] == "timer" and not e["resend_lost"]
                                      for e in episodes),
            "resend_lost": sum(e["resend_lost"] for e in episodes),
            "nak_ignored": sum(e["ignored"] for e in episodes),
            "naks_per_episode": dict(sorted(collections.Counter(
                str(e["naks"]) for e in episodes if e["announced"]).items())),
            "unclosed_episodes": sum(q.episode is not None for q in qps.values()),
        }
        results.append(res)
    return results


def read_workloads(path):
    wls = []
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        wls.append({"name": f[0], "tool": f[1], "size": f[2], "iters": int(f[3]), "port": int(f[4])})
    return wls


def self_test():
    """The sequence NAK check on made-up frames: a NAK for the first missing
    PSN, a NAK that crossed the retransmission filling its gap, and the
    NAKs that are violations (a PSN the wire never had a gap at, a crossing
    one after an ACK covered it, one long after the fill)."""
    ok = True
    wl = [{"name": "w", "tool": "t", "size": "0", "iters": 0, "port": 9}]
    req, resp = "10.0.0.1", "10.0.0.2"

    def run(name, events, want):
        nonlocal ok
        rows = [dict.fromkeys(FIELDS, "")]
        rows[0].update({"frame.number": "1", "tcp.srcport": "9"})
        for i, (t, kind, psn) in enumerate(events):
            r = dict.fromkeys(FIELDS, "")
            r.update({"frame.number": str(i + 2), "frame.time_relative": str(t),
                      "infiniband.bth.psn": str(psn)})
            if kind == "req":
                r.update({"ip.src": req, "infiniband.bth.opcode": "10", "infiniband.bth.destqp": "17"})
            elif kind == "read":       # a one-packet READ request
                r.update({"ip.src": req, "infiniband.bth.opcode": "12", "infiniband.bth.destqp": "17",
                          "infiniband.reth.dmalen": "64"})
            elif kind == "read4k":     # a four-packet READ request (PMTU 1024)
                r.update({"ip.src": req, "infiniband.bth.opcode": "12", "infiniband.bth.destqp": "17",
                          "infiniband.reth.dmalen": "4096"})
            elif kind == "rresp":      # its READ response Only
                r.update({"ip.src": resp, "infiniband.bth.opcode": "16", "infiniband.bth.destqp": "5",
                          "infiniband.aeth.syndrome": "31"})
            else:
                r.update({"ip.src": resp, "infiniband.bth.opcode": "17", "infiniband.bth.destqp": "5",
                          "infiniband.aeth.syndrome": "96" if kind == "nak" else "31"})
            rows.append(r)
        last = dict.fromkeys(FIELDS, "")
        last.update({"frame.number": str(len(rows) + 1), "tcp.dstport": "9"})
        rows.append(last)
        res = analyze_rows(rows, wl, {req}, 1024)[0]
        v = res["violations"]
        if isinstance(want, dict):
            got = {k: res[k] for k in want}
            if got != want:
                ok = False
                print(f"analyze self-test FAIL {name}: {got}, expected {want}")
        elif isinstance(want, int) and not isinstance(want, bool):
            if res["max_reads_outstanding"] != want:
                ok = False
                print(f"analyze self-test FAIL {name}: {res['max_reads_outstanding']} READs "
                      f"outstanding at most, expected {want}")
        elif bool(v) != want:
            ok = False
            print(f"analyze self-test FAIL {name}: violations {v}, expected {'some' if want else 'none'}")

    gap = [(0.000, "req", 1), (0.001, "req", 3), (0.002, "req", 4)]
    run("NAK names the first missing PSN", gap + [(0.004, "nak", 2)], False)
    run("NAK names a PSN past the first missing one", gap + [(0.004, "nak", 3)], True)
    fill = gap + [(0.070, "req", 2), (0.071, "req", 3), (0.072, "req", 4)]
    run("NAK crossed the retransmission filling its gap", fill + [(0.080, "nak", 2)], False)
    run("crossing NAK after an ACK covered its PSN", fill + [(0.075, "ack", 3), (0.080, "nak", 2)], True)
    run("NAK a whole ACK timeout after the fill", fill + [(0.200, "nak", 2)], True)
    run("NAK for a PSN the wire never had a gap at",
        [(0.000, "req", 1), (0.001, "req", 2), (0.002, "req", 3), (0.004, "nak", 2)], True)
    # The initiator depth on the wire (an int: the most READs outstanding).
    reads = [(0.000, "read", 1), (0.001, "read", 2), (0.002, "read", 3), (0.004, "rresp", 1),
             (0.005, "read", 4), (0.006, "rresp", 2), (0.007, "rresp", 3), (0.008, "rresp", 4)]
    run("three READs outstanding at most", reads, 3)
    run("a fourth READ before the first response", reads[:3] + [(0.003, "read", 4)] + reads[3:4], 4)
    # A READ asked again from the PSN its responses skipped (3 of 1-4), and
    # again from its first PSN: both retransmissions; a new READ right after
    # the span is not.
    gapped = [(0.000, "read4k", 1), (0.004, "rresp", 1), (0.005, "rresp", 2), (0.006, "rresp", 4),
              (0.007, "read", 3)]
    run("a READ asked again from a gap in its responses is a retransmission", gapped,
        {"duplicate_requests": 1, "request_packets": 2})
    run("and from its first PSN", gapped + [(0.090, "read4k", 1)],
        {"duplicate_requests": 2, "request_packets": 3})
    run("a READ after the span is new", [(0.000, "read4k", 1), (0.001, "read", 5)],
        {"duplicate_requests": 0, "request_packets": 2})
    return ok


def main():
    if sys.argv[1:] == ["--self-test"]:
        good = self_test()
        print(f"analyze self-test: {'PASS' if good else 'FAIL'}")
        return 0 if good else 1
    ap = argparse.ArgumentParser()
    ap.add_argument("pcap")
    ap.add_argument("workloads")
    ap.add_argument("--requester", default="10.0.0.1,fd00::1")
    ap.add_argument("--pmtu", type=int, default=PMTU)
    ap.add_argument("--timeout-ms", type=float, default=67.1)
    ap.add_argument("--json")
    a = ap.parse_args()
    res = analyze(a.pcap, read_workloads(a.workloads), set(a.requester.split(",")), a.pmtu,
                  a.timeout_ms / 1000)
    text = json.dumps(res, indent=1)
    if a.json:
        open(a.json, "w").write(text)
    else:
        print(text)
    return 1 if any(r["violations"] for r in res) else 0


if __name__ == "__main__":
    sys.exit(main())

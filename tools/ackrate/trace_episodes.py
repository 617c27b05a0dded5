#!/usr/bin/env python3
"""Match the sequence NAKs of a capture with the requester's own decisions.

    trace_episodes.py --self-test

rc-guest.sh prints, per check on a lossy round, VM A's completer and
requester decisions from the sroce tracepoints as "RC-TRACE ID ..." lines
(see there).  The capture (analyze.py's "seq_naks") says which sequence
NAKs reached VM A.  Per check, match() counts:
  - naks: sequence NAKs on the wire to the requester;
  - unseen: of those, NAKs the completer never took or dropped (lost in
    VM A, or the requester ignored them);
  - by_nak: NAKs the completer went back on (rule 9.7.5.1.5-seq-nak);
  - left_to_timer: NAKs the completer dropped as stale because the
    retransmit timer had already gone back to their PSN: an episode the
    NAK announced, recovered by the timer (IBA 9.7.5.1.5 asks for the
    go-back on the NAK);
  - not_acted: accepted NAKs after which the requester's next packet was
    not a retransmission from the NAK's PSN (or past it, where an ACK in
    between acknowledged more);
  - duplicate: further NAKs for a point already retried by a NAK.
This reads the order in which the QP task made its decisions, not the
wire's clock, so it does not depend on how the host schedules the VMs.
"""
import collections
import sys

MASK = 0xFFFFFF
SEQ_NAK_RULE = "9.7.5.1.5-seq-nak"
ACCEPT = "3"   # enum sroce_sq_action SROCE_SQ_ACCEPT


def parse(lines):
    """RC-TRACE lines -> {check id: {"events": [...], "total", "overrun", "unavailable"}}.

    "total" is the guest's count of sroce events in the trace (0 when the
    guest printed none: no trace at all).
    """
    out = collections.defaultdict(lambda: {"events": [], "total": 0, "overrun": 0, "unavailable": ""})
    for ln in lines:
        f = ln.split()
        if len(f) < 3 or f[0] != "RC-TRACE":
            continue
        t = out[f[1]]
        if f[2] == "overrun":
            t["overrun"] += int(f[3]) if len(f) > 3 and f[3].isdigit() else 1
        elif f[2] == "events":
            t["total"] = int(f[3]) if len(f) > 3 and f[3].isdigit() else 0
        elif f[2] == "unavailable":
            t["unavailable"] = " ".join(f[3:])
        else:
            t["events"].append(f[2:])
    return out


def match(events, seq_naks):
    """Count how the requester handled each sequence NAK on the wire.

    events: RC-TRACE fields after the ID, in order; seq_naks: [qpn, psn]
    pairs (ints) of the capture's sequence NAKs to the requester.
    """
    c = collections.Counter()
    # Per QP: the go-back points of the timer, in trace order, and what
    # happened to each NAK the completer saw.
    seen = collections.defaultdict(list)      # (qpn, psn) -> ["accept"|"stale"|"drop", timer_first]
    timer_points = collections.defaultdict(set)
    retried_by_nak = set()
    pending = {}                              # qpn -> NAK psn whose go-back is still to come
    for ev in events:
        kind = ev[0]
        if kind == "N" and len(ev) >= 7:
            q, psn, syn, action, drop, rule = int(ev[1], 16), int(ev[2], 16), int(ev[3], 16), ev[4], ev[5], ev[6]
            if (syn >> 5) & 3 != 3 or (syn & 0x1F) != 0:
                # An RNR or fatal NAK: the next packet answers to it instead.
                if action == ACCEPT:
                    pending.pop(q, None)
                continue
            if action == ACCEPT and rule == SEQ_NAK_RULE:
                seen[(q, psn)].append("accept")
                retried_by_nak.add((q, psn))
                pending[q] = psn
            elif drop == "stale_nak":
                if (q, psn) in timer_points[q] and (q, psn) not in retried_by_nak:
                    seen[(q, psn)].append("timer")
                else:
                    seen[(q, psn)].append("stale")
            else:
                seen[(q, psn)].append("drop")
        elif kind == "T" and len(ev) >= 6:
            q, what, acked, action = int(ev[1], 16), ev[2], int(ev[3], 16), ev[4]
            if what == "rexmit" and action == ACCEPT:
                timer_points[q].add((q, (acked + 1) & MASK))
                pending.pop(q, None)
        elif kind == "P" and len(ev) >= 4:
            q, psn, retry = int(ev[1], 16), int(ev[2], 16), ev[3]
            if q in pending:
                # The go-back: a retransmission from the NAK's PSN, or past
                # it where an ACK between acknowledged more (a duplicated
                # request on a reordering link).
                if retry != "1" or ((psn - pending[q]) & MASK) >= 0x800000:
                    c["not_acted"] += 1
                del pending[q]
    for q, psn in seq_naks:
        c["naks"] += 1
        s = seen.get((q, psn))
        if not s:
            c["unseen"] += 1
            continue
        what = s.pop(0)
        if what == "accept":
            c["by_nak"] += 1
        elif what == "timer":
            c["left_to_timer"] += 1
        elif what == "stale":
            c["duplicate"] += 1
        else:
            c["dropped"] += 1
    return c


def self_test():
    """The matcher on made-up traces, each outcome both ways."""
    ok = True

    def expect(name, got, want):
        nonlocal ok
        bad = {k: (got.get(k, 0), v) for k, v in want.items() if got.get(k, 0) != v}
        if bad:
            ok = False
            print(f"trace_episodes self-test FAIL {name}: {bad}")

    nak = lambda psn, action="3", drop="none", rule=SEQ_NAK_RULE: \
        ["N", "0x11", hex(psn), "0x60", action, drop, rule]
    # A NAK the completer went back on, then the retransmission from it.
    expect("by nak", match([nak(0x10), ["P", "0x11", "0x10", "1"]], [[0x11, 0x10]]),
           {"naks": 1, "by_nak": 1, "unseen": 0, "not_acted": 0, "left_to_timer": 0})
    # The next packet after the NAK is new data, or a resend from before it.
    expect("not acted", match([nak(0x10), ["P", "0x11", "0x14", "0"]], [[0x11, 0x10]]),
           {"by_nak": 1, "not_acted": 1})
    expect("not acted, behind", match([nak(0x10), ["P", "0x11", "0xe", "1"]], [[0x11, 0x10]]),
           {"by_nak": 1, "not_acted": 1})
    # Past the NAK's PSN, as a retransmission: an ACK in between took more.
    expect("acted, past", match([nak(0x10), ["P", "0x11", "0x12", "1"]], [[0x11, 0x10]]),
           {"by_nak": 1, "not_acted": 0})
    # The timer went back to 0x10 first; the NAK came after and was stale.
    expect("left to the timer",
           match([["T", "0x11", "rexmit", "0xf", "3", "9.7.6.1-timeout"], ["P", "0x11", "0x10", "1"],
                  nak(0x10, "5", "stale_nak")], [[0x11, 0x10]]),
           {"left_to_timer": 1, "by_nak": 0, "duplicate": 0, "not_acted": 0})
    # A second NAK for a point the first one already retried.
    expect("duplicate", match([nak(0x10), ["P", "0x11", "0x10", "1"], nak(0x10, "5", "stale_nak")],
                              [[0x11, 0x10], [0x11, 0x10]]),
           {"by_nak": 1, "duplicate": 1, "left_to_timer": 0})
    # A NAK on the wire that the trace never shows.
    expect("unseen", match([nak(0x20), ["P", "0x11", "0x20", "1"]], [[0x11, 0x10], [0x11, 0x20]]),
           {"naks": 2, "unseen": 1, "by_nak": 1})
    # Another QP's timer does not make this QP's NAK late.
    expect("other qp",
           match([["T", "0x12", "rexmit", "0xf", "3", "9.7.6.1-timeout"], nak(0x10, "5", "stale_nak")],
                 [[0x11, 0x10]]),
           {"left_to_timer": 0, "duplicate": 1})
    # An RNR NAK is not a sequence NAK.
    expect("rnr", match([["N", "0x11", "0x10", "0x2e", "3", "none", "9.7.5.1.5-rnr-nak"],
                         ["P", "0x11", "0x12", "1"]], []),
           {"naks": 0, "not_acted": 0})
    # Wrapped PSNs: the timer's acked 0xffffff goes back to 0.
    expect("wrap", match([["T", "0x11", "rexmit", "0xffffff", "3", "9.7.6.1-timeout"],
                          nak(0, "5", "stale_nak")], [[0x11, 0]]),
           {"left_to_timer": 1})
    parsed = parse(["RC-TRACE 7 N 0x11 0x10 0x60 3 none " + SEQ_NAK_RULE, "RC-TRACE 7 overrun 3",
                    "RC-TRACE 8 unavailable sroce_comp_timer", "RC-TRACE 7 events 40", "noise"])
    expect("parse", {"events": len(parsed["7"]["events"]), "overrun": parsed["7"]["overrun"],
                     "unavailable": int(bool(parsed["8"]["unavailable"])), "total": parsed["7"]["total"],
                     "total8": parsed["8"]["total"]},
           {"events": 1, "overrun": 3, "unavailable": 1, "total": 40, "total8": 0})
    return ok


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        good = self_test()
        print(f"trace_episodes self-test: {'PASS' if good else 'FAIL'}")
        sys.exit(0 if good else 1)
    print(__doc__, file=sys.stderr)
    sys.exit(2)

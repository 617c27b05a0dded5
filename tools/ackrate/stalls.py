#!/usr/bin/env python3
"""How long each VM of a perftest run stood still, per workload.

    stalls.py RUNDIR        writes RUNDIR/stalls.json, prints a summary line

RUNDIR is a perftest-pair.sh output: a.log and b.log, the consoles, hold
the SROCE-STALL lines of tools/testvm/stallmon.c ("SROCE-STALL <ms late>
at <s>") among each workload's "SROCE-STATS-BEGIN <workload>" blocks,
which perftest-guest.sh prints after the workload: a stall belongs to the
first workload whose block follows it.

stalls.json: {"a": {workload: longest stall in ms}, "b": {...},
"monitored": [sides whose stallmon reported its summary]}.  A run is
disturbed where a VM stood still at least as long as the QP's local ACK
timeout (perftest's default, 67 ms): the requester's retransmit timer can
then expire through no fault of either provider's, and a slow responder
look like a silent one.  make compare reruns such a run; report.py does
not count what such a stall explains (a failed run, retransmissions the
capture cannot justify, more ACKs than rxe's) as a defect, and still fails
broken invariants and counters that disagree with the capture.
"""
import json
import os
import re
import sys

QP_TIMEOUT_MS = 4.096e-6 * 2 ** 14 * 1000     # perftest's default -u 14: 67.1 ms
STALL = re.compile(r"^SROCE-STALL ([0-9]+) at ")
BLOCK = re.compile(r"^SROCE-STATS-BEGIN (\S+)")


def longest_per(lines, marker, after):
    """{label: longest stall (ms)} of one console.  MARKER: a regex whose
    group 1 is a label.  AFTER: the marker line follows its part (a stall
    belongs to the next marker; stalls after the last one go to "end"),
    else it begins it (a stall belongs to the last marker before it;
    stalls before the first belong to none).  stallmon prints a stall
    when its VM runs again, after it."""
    out, pending, cur = {}, 0, None
    for line in lines:
        line = line.rstrip("\r\n")
        m = STALL.match(line)
        if m:
            ms = int(m.group(1))
            if after:
                pending = max(pending, ms)
            elif cur is not None:
                out[cur] = max(out.get(cur, 0), ms)
            continue
        m = marker.match(line)
        if not m:
            continue
        if not after:
            cur = m.group(1)
        elif pending:
            out[m.group(1)] = max(out.get(m.group(1), 0), pending)
        pending = 0
    if pending:
        out["end"] = max(out.get("end", 0), pending)
    return out


def per_workload(lines):
    """{workload: longest stall (ms)} of one console: perftest-guest.sh's
    block follows its workload.  Stalls after the last workload's block,
    when every workload is done, go to "end"."""
    return longest_per(lines, BLOCK, after=True)


def analyse(rundir):
    res = {"a": {}, "b": {}, "monitored": []}
    for side in ("a", "b"):
        path = os.path.join(rundir, f"{side}.log")
        if not os.path.exists(path):
            continue
        with open(path, errors="replace") as f:
            lines = f.readlines()
        res[side] = per_workload(lines)
        if any(line.startswith("SROCE-STALL-SUMMARY") for line in lines):
            res["monitored"].append(side)
    return res


def disturbed(stalls, workload=None, limit=QP_TIMEOUT_MS):
    """The stalls (side, ms) at least LIMIT long, of WORKLOAD or of the run."""
    found = []
    for side in ("a", "b"):
        for wl, ms in (stalls or {}).get(side, {}).items():
            if ms >= limit and (workload is None or wl == workload):
                found.append((side, ms))
    return found


def load(rundir):
    try:
        with open(os.path.join(rundir, "stalls.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rundir = sys.argv[1]
    res = analyse(rundir)
    with open(os.path.join(rundir, "stalls.json"), "w") as f:
        json.dump(res, f, indent=1)
    bad = disturbed(res)
    if bad:
        side, ms = max(bad, key=lambda x: x[1])
        print(f"disturbed: VM {side.upper()} stood still {ms} ms "
              f"(QP timeout {QP_TIMEOUT_MS:.0f} ms)")
    else:
        print(f"undisturbed (monitored: {','.join(res['monitored']) or 'none'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

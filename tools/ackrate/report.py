#!/usr/bin/env python3
"""Render the ACK-rate comparison.

    report.py OUTDIR RESPONDER...

Reads OUTDIR/<responder>/{counts.json,results.txt} for each responder,
writes OUTDIR/results.json, OUTDIR/table.md, OUTDIR/acks.png and
OUTDIR/bandwidth.png, and prints the table.  A responder whose run is
missing is reported as such, never invented.
"""
import json
import os
import sys


def counter_deltas(path):
    """Per-workload deltas of the responder's rdma counters (stats-b.txt)."""
    blocks, name = [], None
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return {}
    for line in lines:
        f = line.split()
        if line.startswith("SROCE-STATS-BEGIN"):
            name = f[1] if len(f) > 1 else None
        elif line.startswith("link ") and name:
            blocks.append((name, {f[i]: int(f[i + 1]) for i in range(2, len(f) - 1, 2)}))
            name = None
    out = {}
    for (_, prev), (n, cur) in zip(blocks, blocks[1:]):
        out[n] = {k: v - prev.get(k, 0) for k, v in cur.items()}
    return out


def check_counters(row, delta):
    """sroce's own counters must agree exactly with the capture."""
    want = {"resp_ack": row["acks"], "resp_rnr_nak": row["rnr_naks"],
            "resp_nak": sum(row["naks_by_code"].values()), "resp_atomic_ack": row["atomic_acks"],
            "read": row["read_resp_packets"]}
    got = dict(delta)
    got["read"] = sum(delta.get(k, 0) for k in
                      ("resp_read_first", "resp_read_middle", "resp_read_last", "resp_read_only"))
    bad = [f"{k} {got.get(k)}!={v}" for k, v in want.items() if got.get(k) != v]
    return "agree" if not bad else "MISMATCH " + ", ".join(bad)


def load(outdir, resp):
    d = os.path.join(outdir, resp)
    try:
        counts = {r["workload"]: r for r in json.load(open(os.path.join(d, "counts.json")))}
    except OSError:
        return None
    bw = {}
    try:
        for line in open(os.path.join(d, "results.txt")):
            f = line.split()
            # SROCE-WL name bytes iterations peak avg msgrate
            if len(f) >= 6:
                bw[f[1]] = float(f[5])
    except OSError:
        pass
    deltas = counter_deltas(os.path.join(d, "stats-b.txt")) if resp == "sroce" else {}
    for name, r in counts.items():
        r["bw_avg_MBps"] = bw.get(name)
        if name in deltas:
            dl = deltas[name]
            r["counters"] = check_counters(r, dl)
            if dl.get("rx_batches"):
                r["avg_rx_batch"] = round(dl["rx_batch_packets"] / dl["rx_batches"], 2)
    return counts


def main():
    outdir, resps = sys.argv[1], sys.argv[2:]
    data = {r: load(outdir, r) for r in resps}
    names = []
    for r in resps:
        for n in (data[r] or {}):
            if n not in names:
                names.append(n)
    json.dump({"responders": resps, "results": data}, open(os.path.join(outdir, "results.json"), "w"),
              indent=1)
    hdr = ["workload", "responder", "req pkts", "AckReq", "ACKs", "NAKs", "RNR", "READ resp",
           "ATOMIC ACK", "dups", "ACKs/100 req", "BW MB/s", "ACK ratio", "BW ratio", "invariants",
           "sroce counters", "avg RX batch"]
    lines = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for n in names:
        base = (data.get("rxe") or {}).get(n)
        for r in resps:
            row = (data[r] or {}).get(n)
            if row is None:
                lines.append(f"| {n} | {r} | not run |" + " |" * (len(hdr) - 3))
                continue
            naks = sum(row["naks_by_code"].values())
            ratio_ack = ratio_bw = ""
            if base and r != "rxe":
                ratio_ack = f"{row['acks'] / base['acks']:.3f}" if base["acks"] else ""
                if base.get("bw_avg_MBps") and row.get("bw_avg_MBps") is not None:
                    ratio_bw = f"{row['bw_avg_MBps'] / base['bw_avg_MBps']:.3f}"
            inv = "ok" if not row["violations"] else "; ".join(row["violations"][:2])
            if os.path.exists(os.path.join(outdir, r, "failed")):
                inv = "RUN FAILED; " + inv
            bw = "" if row.get("bw_avg_MBps") is None else f"{row['bw_avg_MBps']:.2f}"
            lines.append(f"| {n} | {r} | {row['request_packets']} | {row['ackreq']} | {row['acks']} | "
                         f"{naks} | {row['rnr_naks']} | {row['read_resp_packets']} | {row['atomic_acks']} | "
                         f"{row['duplicate_requests']} | {row['acks_per_100_requests']} | {bw} | "
                         f"{ratio_ack} | {ratio_bw} | {inv} | {row.get('counters', '')} | "
                         f"{row.get('avg_rx_batch', '')} |")
    table = "\n".join(lines)
    # Checks that fail the run: a broken invariant, counters that disagree
    # with the capture, a retransmission, or sroce sending more ACKs than rxe.
    failures = []
    for n in names:
        base = (data.get("rxe") or {}).get(n)
        for r in resps:
            row = (data[r] or {}).get(n)
            if row is None:
                continue
            if row["violations"]:
                failures.append(f"{n}/{r}: invariants: {row['violations'][0]}")
            if row.get("counters", "agree") != "agree":
                failures.append(f"{n}/{r}: counters: {row['counters']}")
            if row["duplicate_requests"]:
                failures.append(f"{n}/{r}: {row['duplicate_requests']} retransmitted requests")
            if r == "sroce" and base and row["acks"] > base["acks"]:
                failures.append(f"{n}: sroce sent more ACKs ({row['acks']}) than rxe ({base['acks']})")
            if os.path.exists(os.path.join(outdir, r, "failed")):
                failures.append(f"{n}/{r}: run failed")
    open(os.path.join(outdir, "table.md"), "w").write(table + "\n")
    print(table)
    for f in failures:
        print("compare: FAIL:", f)
    print(f"compare: {len(names) * len(resps) - len(failures)} passed, {len(failures)} failed")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing, no charts", file=sys.stderr)
        return 1 if failures else 0
    for key, fname, title in (("acks_per_100_requests", "acks.png", "ACKs per 100 request packets"),
                              ("bw_avg_MBps", "bandwidth.png", "perftest BW average [MB/s]")):
        fig, ax = plt.subplots(figsize=(max(6, len(names) * 0.9), 4))
        width = 0.8 / max(1, len(resps))
        for i, r in enumerate(resps):
            vals = [((data[r] or {}).get(n) or {}).get(key) or 0 for n in names]
            ax.bar([x + i * width for x in range(len(names))], vals, width, label=r)
        ax.set_xticks([x + width * (len(resps) - 1) / 2 for x in range(len(names))])
        ax.set_xticklabels(names, rotation=45, ha="right")
        ax.set_title(title)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, fname), dpi=90)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

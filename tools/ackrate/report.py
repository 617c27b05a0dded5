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
    for name, r in counts.items():
        r["bw_avg_MBps"] = bw.get(name)
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
           "ATOMIC ACK", "dups", "ACKs/100 req", "BW MB/s", "ACK ratio", "BW ratio", "invariants"]
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
                         f"{ratio_ack} | {ratio_bw} | {inv} |")
    table = "\n".join(lines)
    open(os.path.join(outdir, "table.md"), "w").write(table + "\n")
    print(table)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing, no charts", file=sys.stderr)
        return 0
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
    return 0


if __name__ == "__main__":
    sys.exit(main())

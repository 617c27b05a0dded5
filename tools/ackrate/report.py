#!/usr/bin/env python3
"""Render make compare: sroce against stock rxe, as requester and responder.

    report.py OUTDIR ROUNDS PAIRING...

A pairing is X-Y[:PARAM=VALUE,...][#LABEL] (tools/compare.sh): VM A
(10.0.0.1, the perftest client, the requester) runs provider X, VM B
(10.0.0.2, the server, the responder) provider Y; PARAM=VALUE are sroce's
module parameters on B; #LABEL names a second run of a pairing
(rxe-rxe#2, the A/A control).  Reads OUTDIR/workloads.txt and
OUTDIR/round<k>/<pairing>/{counts.json,results.txt,stats-a.txt,
stats-b.txt} for k = 1..ROUNDS, writes OUTDIR/results.json, table.md,
targets.txt and the charts acks.png, bandwidth.png, latency.png and
cpu.png, and prints the table, the targets and the failures.  A pairing
whose run is missing is reported as such, never invented.

Per workload and pairing the table pools the packet counts of all rounds
(ACKs/100 is total ACKs over total request packets) and shows the median
of the rounds' bandwidths and latencies; TCG makes single runs vary by
tens of percent.  The targets compare sroce-sroce with rxe-rxe; where a
control rxe-rxe#LABEL ran, a shortfall no larger than the control's own
difference from rxe-rxe is "within A/A noise".  The checks that fail the
run (capture invariants, sroce's counters against the capture, a
retransmission by an sroce requester that the capture does not justify,
an sroce responder sending more ACKs than stock rxe's to the same
requester, per AckReq where the two runs' requests asked for different
numbers) hold for every round on its own.
"""
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyze  # noqa: E402
import stalls  # noqa: E402

COUNT_KEYS = ("request_packets", "ackreq", "acks", "rnr_naks", "read_resp_packets",
              "atomic_acks", "duplicate_requests")
BASE = "rxe-rxe"            # the reference pairing: stock rxe on both sides
HEAD = "sroce-sroce"        # the pairing the targets are about
ACK_TARGET = 1 / 32         # ACKs per request packet, saturated 64 B-1 KiB SEND/WRITE
USER_HZ = 100               # /proc/stat ticks per second
QP_TIMEOUT = 4.096e-6 * 2 ** 14  # s: perftest's default local ACK timeout (-u 14), sroce's
REQUEST_OPS = set(range(0x00, 0x0D)) | {0x13, 0x14, 0x16, 0x17}
MASK = 0xFFFFFF
REQ_COUNTERS = ("req_packets", "req_retransmits", "req_timeouts", "req_rnr_waits",
                "req_blocked_credits", "tx_errors", "comp_drop_duplicate")


def sides(pairing):
    """(requester provider, responder provider) of a pairing name; a bare
    responder (the old form, rxe, sroce:PARAM=...) has an rxe requester."""
    provs = pairing.split("#")[0].split(":")[0]
    req, _, resp = provs.rpartition("-")
    return req or "rxe", resp


def read_workloads(path):
    """name -> {tool, size, opts} of the workload file compare.sh wrote."""
    out = {}
    try:
        for line in open(path):
            f = line.split()
            if len(f) >= 5 and not f[0].startswith("#"):
                out[f[0]] = {"tool": f[1], "size": f[2], "port": f[4], "opts": f[5:]}
    except OSError:
        pass
    return out


def is_lat(wl):
    return wl.get("tool", "").endswith("_lat")


def is_slow_rx(wl):
    """A workload whose receiver posts few receives (--rx-depth)."""
    return any(o.startswith("--rx-depth") for o in wl.get("opts", []))


def is_small_stream(wl):
    """Saturated 64 B-1 KiB SEND/WRITE: the ACK and bandwidth target's set."""
    return (wl.get("tool") in ("ib_send_bw", "ib_write_bw") and wl.get("size", "").isdigit()
            and 64 <= int(wl["size"]) <= 1024 and not is_slow_rx(wl))


def stats_marks(path, key):
    """(workload, fields) of the first line starting with @key in each
    SROCE-STATS block of a VM's stats dump (stats-?.txt), in order: the
    state after "start" and after each workload."""
    marks, name = [], None
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return []
    for line in lines:
        f = line.split()
        if line.startswith("SROCE-STATS-BEGIN"):
            name = f[1] if len(f) > 1 else None
        elif f and f[0] == key and name:
            marks.append((name, f))
            name = None
    return marks


def counter_deltas(path):
    """Per-workload deltas of a VM's rdma counters:
    "link sroce0/1 name value name value ..."."""
    blocks = [(n, {f[i]: int(f[i + 1]) for i in range(2, len(f) - 1, 2)})
              for n, f in stats_marks(path, "link")]
    return {n: {k: v - prev.get(k, 0) for k, v in cur.items()}
            for (_, prev), (n, cur) in zip(blocks, blocks[1:])}


def cpu_deltas(path):
    """Per-workload busy ticks of a VM (its single vCPU), from the
    /proc/stat line "cpu user nice system idle iowait irq softirq steal":
    everything but idle and iowait."""
    marks = []
    for n, f in stats_marks(path, "cpu"):
        v = [int(x) for x in f[1:9]]
        marks.append((n, sum(v) - v[3] - (v[4] if len(v) > 4 else 0)))
    return {n: b - pb for (_, pb), (n, b) in zip(marks, marks[1:])}


def check_resp_counters(row, delta):
    """An sroce responder's counters against the capture (its responses)."""
    want = {"resp_ack": row["acks"], "resp_rnr_nak": row["rnr_naks"],
            "resp_nak": sum(row["naks_by_code"].values()), "resp_atomic_ack": row["atomic_acks"],
            "read": row["read_resp_packets"]}
    got = dict(delta)
    got["read"] = sum(delta.get(k, 0) for k in
                      ("resp_read_first", "resp_read_middle", "resp_read_last", "resp_read_only"))
    return [f"resp {k} {got.get(k)}!={v}" for k, v in want.items() if got.get(k) != v]


def check_req_counters(row, delta):
    """An sroce requester's counters against the capture (its requests):
    every request packet it built, less those the device failed to send
    (tx_errors: they never reached the link), and the retransmitted ones
    (a PSN sent before), of which at most tx_errors went missing."""
    lost = delta.get("tx_errors", 0)
    bad = []
    if delta.get("req_packets", 0) - lost != row["request_packets"]:
        bad.append(f"req req_packets {delta.get('req_packets')} - tx_errors {lost} != "
                   f"{row['request_packets']}")
    rt = delta.get("req_retransmits", 0)
    if not rt - lost <= row["duplicate_requests"] <= rt:
        bad.append(f"req req_retransmits {rt} (tx_errors {lost}) vs {row['duplicate_requests']}")
    return bad


def psn_near(a, b, span=4096):
    d = (a - b) & MASK
    return d < span or d > MASK + 1 - span


def classify_retransmits(pcap, ports):
    """classify_rows() of the capture PCAP; None if tshark cannot read it."""
    try:
        rows = list(analyze.frames(pcap))
    except (OSError, subprocess.CalledProcessError):
        return None
    return classify_rows(rows, ports)


def classify_rows(rows, ports, pmtu=analyze.PMTU):
    """The request packets VM A sent again, per workload (by its perftest
    TCP port, as analyze.py splits the capture), by what started their
    episode (the retransmissions of a QP until it sends a new PSN): "nak"
    if VM B had answered that QP with a NAK (RNR or sequence) since the
    first one's PSN was first sent; "gap" for a READ asked again from a
    PSN its responses skipped (B had sent a READ response past that PSN
    and none at it since A last asked: the requester goes back to the
    first response it did not get); "timer" if B had sent that QP nothing
    for at least 0.9 of the QP's local ACK timeout since then (the
    retransmit timer was right to fire: the responder was silent, e.g. its
    VM not scheduled); else "spurious".  A READ from a PSN inside an
    earlier READ's span is a retransmission, as analyze.py counts it.  A
    response belongs to the QP whose request PSNs it is near (PSN spaces
    are random 24-bit numbers).  ROWS: analyze.frames()' dicts."""
    win = {}
    for i, v in enumerate(rows):
        for port in (v["tcp.srcport"], v["tcp.dstport"]):
            if port in ports:
                lo, hi = win.get(ports[port], (i, i))
                win[ports[port]] = (min(lo, i), max(hi, i))

    num = analyze.to_int
    out = {}
    for name, (lo, hi) in win.items():
        c = {"nak": 0, "gap": 0, "timer": 0, "spurious": 0}
        first = {}           # (destqp, psn) -> time first sent
        last_sent = {}       # (destqp, psn) -> time last sent
        spans = {}           # destqp -> [(first, last, time sent)] of its READs
        resp = []            # (time, psn, nak?, READ response?) of B's responses
        episode = {}         # destqp -> the class of its open retransmission episode
        for v in rows[lo:hi + 1]:
            op = num(v["infiniband.bth.opcode"])
            if op is None:
                continue
            t, psn = float(v["frame.time_relative"] or 0), num(v["infiniband.bth.psn"])
            src = v["ip.src"] or v["ipv6.src"]
            if src in ("10.0.0.1", "fd00::1") and op in REQUEST_OPS:
                qp = num(v["infiniband.bth.destqp"])
                key = (qp, psn)
                # The READs whose span holds PSN: the last one asked for it.
                held = [ts for f, last, ts in spans.get(qp, [])
                        if 0 <= analyze.diff(psn, f) <= analyze.diff(last, f)] if op == 0x0C else []
                again = key in first or bool(held)
                prev = last_sent.get(key, held[-1] if held else t)
                last_sent[key] = t
                if op == 0x0C:
                    n = max(1, ((num(v["infiniband.reth.dmalen"]) or 0) + pmtu - 1) // pmtu)
                    spans.setdefault(qp, []).append((psn, (psn + n - 1) & MASK, t))
                if not again:
                    first[key] = t
                    episode.pop(qp, None)
                    continue
                first.setdefault(key, prev)
                if qp not in episode:
                    mine = [r for r in resp if r[0] >= first[key] and psn_near(r[1], psn)]
                    since = [r for r in resp if r[0] >= prev and psn_near(r[1], psn)]
                    last = max([first[key]] + [r[0] for r in mine])
                    gap = op == 0x0C and \
                        any(r[3] and 0 < analyze.diff(r[1], psn) < 4096 for r in since) and \
                        not any(r[3] and r[1] == psn for r in since)
                    episode[qp] = "nak" if any(r[2] for r in mine) else "gap" if gap else \
                        "timer" if t - last >= 0.9 * QP_TIMEOUT else "spurious"
                c[episode[qp]] += 1
            elif src in ("10.0.0.2", "fd00::2") and 0x0D <= op <= 0x12:
                syn = num(v["infiniband.aeth.syndrome"])
                resp.append((t, psn, op == 0x11 and syn is not None and (syn >> 5) & 3 in (1, 3),
                             op in analyze.READ_RESP))
        out[name] = c
    return out


def load(rdir, pairing, wls):
    """One round of one pairing: the capture's counts per workload, with
    perftest's result, both VMs' CPU and sroce's counter checks added."""
    d = os.path.join(rdir, pairing)
    try:
        counts = {r["workload"]: r for r in json.load(open(os.path.join(d, "counts.json")))}
    except (OSError, ValueError):
        return None
    perf = {}
    try:
        for line in open(os.path.join(d, "results.txt")):
            f = line.split()
            if len(f) >= 2:
                perf[f[1]] = f[2:]
    except OSError:
        pass
    req, resp = sides(pairing)
    cpu = {"a": cpu_deltas(os.path.join(d, "stats-a.txt")),
           "b": cpu_deltas(os.path.join(d, "stats-b.txt"))}
    ctr_a = counter_deltas(os.path.join(d, "stats-a.txt")) if req == "sroce" else {}
    ctr_b = counter_deltas(os.path.join(d, "stats-b.txt")) if resp == "sroce" else {}
    for name, r in counts.items():
        f = perf.get(name, [])
        try:
            if is_lat(wls.get(name, {})):
                # bytes iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
                if len(f) >= 8:
                    r["lat_p50_us"], r["lat_p99_us"] = float(f[4]), float(f[7])
            elif len(f) >= 4:
                # bytes iterations BW-peak BW-average MsgRate
                r["bw_avg_MBps"] = float(f[3])
                if len(f) >= 5:
                    r["msg_rate_Mpps"] = float(f[4])
        except ValueError:
            pass
        for side, key in (("a", "req_cpu_ticks"), ("b", "resp_cpu_ticks")):
            if name in cpu[side]:
                r[key] = cpu[side][name]
        bad, checked = [], False
        if name in ctr_b:
            dl = ctr_b[name]
            bad += check_resp_counters(r, dl)
            checked = True
            if dl.get("rx_batches"):
                r["rx_batches"], r["rx_batch_packets"] = dl["rx_batches"], dl["rx_batch_packets"]
        if name in ctr_a:
            dl = ctr_a[name]
            bad += check_req_counters(r, dl)
            checked = True
            for k in REQ_COUNTERS:
                if k in dl:
                    r[k] = dl[k]
        if checked:
            r["counters"] = "agree" if not bad else "MISMATCH " + ", ".join(bad)
    if req == "sroce" and any(r["duplicate_requests"] for r in counts.values()):
        ports = {str(w["port"]): n for n, w in wls.items() if "port" in w}
        kinds = classify_retransmits(os.path.join(d, "link.pcap"), ports) or {}
        for name, r in counts.items():
            if r["duplicate_requests"] and name in kinds:
                r["retransmits_by"] = kinds[name]
    return counts


def median_of(rows, key):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return (statistics.median(vals) if vals else None), vals


def pool(rounds):
    """One row from the rounds' rows of a workload (None: not run)."""
    rows = [r for r in rounds if r is not None]
    if not rows:
        return None
    out = {k: sum(r[k] for r in rows) for k in COUNT_KEYS}
    out["workload"] = rows[0]["workload"]
    out["rounds"] = len(rows)
    naks = {}
    for r in rows:
        for code, n in r["naks_by_code"].items():
            naks[code] = naks.get(code, 0) + n
    out["naks_by_code"] = naks
    req = out["request_packets"]
    out["acks_per_100_requests"] = round(100 * out["acks"] / req, 2) if req else 0.0
    out["violations"] = [v for r in rows for v in r["violations"]]
    for key in ("bw_avg_MBps", "msg_rate_Mpps", "lat_p50_us", "lat_p99_us"):
        out[key], out[key + "_rounds"] = median_of(rows, key)
    ctr = [r["counters"] for r in rows if "counters" in r]
    if ctr:
        out["counters"] = next((c for c in ctr if c != "agree"), "agree")
    for k in REQ_COUNTERS:
        if any(k in r for r in rows):
            out[k] = sum(r.get(k, 0) for r in rows)
    if any("retransmits_by" in r for r in rows):
        out["retransmits_by"] = {k: sum(r.get("retransmits_by", {}).get(k, 0) for r in rows)
                                 for k in ("nak", "gap", "timer", "spurious")}
    # Each VM's CPU time per request packet, over the rounds that have it.
    for key, name in (("req_cpu_ticks", "req_cpu_us_per_req"), ("resp_cpu_ticks", "resp_cpu_us_per_req")):
        have = [r for r in rows if key in r]
        pkts = sum(r["request_packets"] for r in have)
        if pkts:
            out[name] = round(sum(r[key] for r in have) * 1e6 / USER_HZ / pkts, 1)
    tot_b = sum(r.get("rx_batches", 0) for r in rows)
    if tot_b:
        out["avg_rx_batch"] = round(sum(r.get("rx_batch_packets", 0) for r in rows) / tot_b, 2)
    return out


def bw_ratio(row, base):
    """Bandwidth of @row over @base, from the median message rates (perftest
    prints them with 6 decimals; its MB/s has 2, which is 5% at 0.2 MB/s
    and 30% at 0.03); None when either is missing."""
    if not row or not base:
        return None
    if row.get("msg_rate_Mpps") and base.get("msg_rate_Mpps"):
        return row["msg_rate_Mpps"] / base["msg_rate_Mpps"]
    if row.get("bw_avg_MBps") is not None and base.get("bw_avg_MBps"):
        return row["bw_avg_MBps"] / base["bw_avg_MBps"]
    return None


def ack_rate(row):
    return row["acks"] / row["request_packets"] if row and row["request_packets"] else None


def more_acks(row, ref):
    """@row's ACKs exceed @ref's: as counts where both pooled the same
    rounds (the same messages; a requester's retransmissions, as after RNR
    NAKs, inflate the request packets, not the work), else per request
    packet."""
    if row.get("rounds", 1) == ref.get("rounds", 1):
        return row["acks"] > ref["acks"]
    return bool(ref["request_packets"]) and \
        row["acks"] * ref["request_packets"] > ref["acks"] * row["request_packets"]


def tx_drops_note(rows):
    """Where the requester's own transmits failed (tx_errors: the guest's
    qdisc or IP stack dropped them), what the capture, taken outside the
    guest, cannot show: the packets its go-backs resent were never on the
    wire."""
    drops = {n: r.get("tx_errors", 0) for n, r in rows.items() if r.get("tx_errors")}
    if not drops:
        return ""
    return ("; the requester's own transmits failed first (tx_errors: " +
            ", ".join(f"{n} {v}" for n, v in drops.items()) + ")")


def resp_more_acks(row, ref):
    """The responder of @row sent more ACKs than that of @ref for the same
    requester traffic: per AckReq'd request packet where the requests asked
    for different numbers of ACKs.  An sroce requester sets AckReq on the
    last packet posted so far, so how many it sets follows how fast the
    ACKs come back, and differs between two pairings' runs (write_64, 3
    rounds: 1660 AckReqs against sroce, 1130 against rxe).  Otherwise as
    more_acks()."""
    if row.get("ackreq") and ref.get("ackreq") and row["ackreq"] != ref["ackreq"]:
        return row["acks"] * ref["ackreq"] > ref["acks"] * row["ackreq"]
    return more_acks(row, ref)


def rnr_model_gap(row, violation):
    """analyze.py does not model RNR NAKs: the PSN an RNR NAK names was not
    executed, so the responder's next sequence NAK names it, not the first
    PSN never sent (its "first missing PSN").  Not a failure where the
    workload drew RNR NAKs."""
    return bool(row["rnr_naks"]) and violation.startswith("sequence NAK ") and \
        "is not the first missing PSN" in violation


def fmt(v, nd=2):
    return "" if v is None else f"{v:.{nd}f}"


class Verdict:
    """Misses of a target, each within the A/A control's noise or not."""

    def __init__(self):
        self.items, self.misses, self.noise = [], [], []

    def add(self, label, v, b, c, higher_better):
        """@v (sroce-sroce) against @b (rxe-rxe), with @c the control's
        value (rxe-rxe#2) or None."""
        if v is None or b is None:
            return
        self.items.append(label)
        worse = v < b if higher_better else v > b
        if not worse:
            return
        if c is not None and abs(v - b) <= abs(c - b):
            self.noise.append(label)
        else:
            self.misses.append(label)

    def word(self):
        if not self.items:
            return "NOT MEASURED"
        if self.misses:
            return "FAIL"
        return "within A/A noise" if self.noise else "PASS"

    def detail(self):
        out = [f"met on {len(self.items) - len(self.misses) - len(self.noise)} of {len(self.items)}"]
        if self.noise:
            out.append("short within A/A noise: " + ", ".join(self.noise))
        if self.misses:
            out.append("short beyond A/A noise: " + ", ".join(self.misses))
        return "; ".join(out)


def geomean(vals):
    vals = [v for v in vals if v]
    return statistics.geometric_mean(vals) if vals else None


def target_lines(data, names, wls, pairings):
    """The comparison's targets, as measured, each with a verdict (reported,
    not failed: TCG's timing is noisy, so bandwidth, latency and CPU are
    no test verdict)."""
    base, head = data.get(BASE), data.get(HEAD)
    ctrl_name = next((p for p in pairings if p.startswith(BASE + "#") and data.get(p)), None)
    ctrl = data.get(ctrl_name) if ctrl_name else None
    out = []

    def cval(n, key):
        return ((ctrl or {}).get(n) or {}).get(key)

    if not head:
        out.append(f"targets: not measured (no {HEAD} run)")
    small = [n for n in names if is_small_stream(wls.get(n, {}))]
    lat = [n for n in names if is_lat(wls.get(n, {}))]
    bw_all = [n for n in names if not is_lat(wls.get(n, {}))]
    slow = [n for n in names if is_slow_rx(wls.get(n, {}))]
    if head:
        vals = [(n, ack_rate(head.get(n))) for n in small if head.get(n)]
        vals = [(n, v) for n, v in vals if v is not None]
        if vals:
            miss = [n for n, v in vals if v > ACK_TARGET]
            out.append(f"target: {HEAD} <= 1/32 ACK per request packet, saturated 64 B-1 KiB "
                       f"SEND/WRITE: {'FAIL' if miss else 'PASS'}; " +
                       ", ".join(f"{n} {v:.3f} (avg RX batch {head[n].get('avg_rx_batch', '-')})"
                                 for n, v in vals))
    if head and base:
        more = []
        cmp = 0
        for n in names:
            v, b = head.get(n), base.get(n)
            if not v or not b:
                continue
            cmp += 1
            if more_acks(v, b):
                more.append(f"{n} {v['acks']} > {b['acks']}")
        if cmp:
            out.append(f"target: {HEAD} never more ACKs than {BASE}, any workload: "
                       f"{'FAIL; ' + ', '.join(more) if more else 'PASS'} ({cmp} workloads)")
        vd = Verdict()
        for n in small:
            r = bw_ratio(head.get(n), base.get(n))
            c = bw_ratio(ctrl.get(n), base.get(n)) if ctrl else None
            vd.add(f"{n} {fmt(r, 3)}", r, 1.0 if r is not None else None, c, True)
        if vd.items:
            out.append(f"target: {HEAD} bandwidth >= {BASE}, saturated 64 B-1 KiB SEND/WRITE "
                       f"(median message rate): {vd.word()}; {vd.detail()}")
        allr = [bw_ratio(head.get(n), base.get(n)) for n in bw_all]
        allr = [v for v in allr if v is not None]
        if allr:
            out.append(f"info: {HEAD} / {BASE} bandwidth on all {len(allr)} bandwidth workloads: "
                       f"{min(allr):.2f}-{max(allr):.2f}, geometric mean {geomean(allr):.2f}x")
        vd = Verdict()
        for n in lat:
            h, b = (head.get(n) or {}), (base.get(n) or {})
            vd.add(f"{n} {fmt(h.get('lat_p50_us'))} vs {fmt(b.get('lat_p50_us'))} us",
                   h.get("lat_p50_us"), b.get("lat_p50_us"), cval(n, "lat_p50_us"), False)
        if vd.items:
            p99 = ", ".join(f"{n} {fmt((head.get(n) or {}).get('lat_p99_us'))} vs "
                            f"{fmt((base.get(n) or {}).get('lat_p99_us'))}" for n in lat)
            out.append(f"target: {HEAD} latency p50 <= {BASE}: {vd.word()}; {vd.detail()} "
                       f"(p99 us, reported: {p99})")
        # CPU: the bandwidth workloads but the slow receiver's (whose
        # packets are mostly retransmissions); a latency run's CPU is
        # its poll loop waiting, a second measure of the latency.
        cpu_names = [n for n in bw_all if n not in slow]
        for key, side in (("req_cpu_us_per_req", "requester VM A"), ("resp_cpu_us_per_req", "responder VM B")):
            vd = Verdict()
            ratios = []
            for n in cpu_names:
                h, b = (head.get(n) or {}).get(key), (base.get(n) or {}).get(key)
                if h and b:
                    ratios.append(h / b)
                vd.add(f"{n} {fmt(h, 1)} vs {fmt(b, 1)}", h, b, cval(n, key), False)
            if vd.items:
                out.append(f"target: {HEAD} CPU per request packet, {side}, <= {BASE} (bandwidth "
                       f"workloads): {vd.word()}; "
                           f"{vd.detail()}; {HEAD} / {BASE} {min(ratios):.2f}-{max(ratios):.2f}, "
                           f"geometric mean {geomean(ratios):.2f}x")
    # Retransmissions: an sroce requester must send none on a clean link
    # (every workload but the slow receiver's, whose RNR NAKs ask for
    # them), with perftest's default timeout.
    for p in pairings:
        if not data.get(p):
            continue
        req, _ = sides(p)
        clean = [n for n in names if n not in slow and data[p].get(n)]
        dups = {n: data[p][n]["duplicate_requests"] for n in clean if data[p][n]["duplicate_requests"]}
        tmo = sum(data[p][n].get("req_timeouts", 0) for n in names if data[p].get(n))
        where = ", ".join(f"{n} {v}" for n, v in dups.items())
        if req == "sroce":
            ok = not dups and not tmo
            by = {k: sum(data[p][n].get("retransmits_by", {}).get(k, 0) for n in dups)
                  for k in ("nak", "gap", "timer", "spurious")}
            out.append(f"target: {p} no retransmission on a clean link (perftest's default timeout): "
                       f"{'PASS' if ok else 'FAIL'}; {sum(dups.values())} retransmitted request packets"
                       f"{' (' + where + ')' if where else ''}, {tmo} retransmit timer expiries"
                       + (f"; by the capture: {by['timer']} after the responder was silent for "
                          f">= 0.9 x {1000 * QP_TIMEOUT:.1f} ms, {by['nak']} after a NAK, "
                          f"{by['gap']} READs asked again after a gap in their responses, "
                          f"{by['spurious']} unjustified" if dups else "")
                       + tx_drops_note({n: data[p][n] for n in dups}))
        else:
            out.append(f"info: {p} (stock rxe requester, -u 20): {sum(dups.values())} retransmitted "
                       f"request packets on the clean-link workloads{' (' + where + ')' if where else ''}")
    for n in slow:
        rnr = {p: data[p][n]["rnr_naks"] for p in pairings if data.get(p) and data[p].get(n)}
        per = ", ".join(f"{p} {v} RNR NAKs / {data[p][n]['request_packets']} req pkts, "
                        f"{fmt(data[p][n].get('bw_avg_MBps'))} MB/s" for p, v in rnr.items())
        if HEAD in rnr and BASE in rnr:
            word = "PASS" if rnr[HEAD] < rnr[BASE] else "FAIL"
            out.append(f"target: {n} (slow receiver) {HEAD} fewer RNR NAKs than {BASE}: {word}; {per}")
        else:
            out.append(f"info: {n} (slow receiver): {per}")
    # Every other pairing against rxe-rxe, and the A/A control.
    if base:
        for p in pairings:
            if p == BASE or not data.get(p):
                continue
            bw = [bw_ratio(data[p].get(n), base.get(n)) for n in bw_all]
            bw = [v for v in bw if v is not None]
            acks = [(ack_rate(data[p].get(n)), ack_rate(base.get(n))) for n in small]
            acks = [a / b for a, b in acks if a is not None and b]
            p50 = [((data[p].get(n) or {}).get("lat_p50_us"), (base.get(n) or {}).get("lat_p50_us"))
                   for n in lat]
            p50 = [a / b for a, b in p50 if a and b]
            parts = []
            if acks:
                parts.append(f"ACKs per request (64 B-1 KiB SEND/WRITE) {min(acks):.2f}-{max(acks):.2f}")
            if bw:
                parts.append(f"bandwidth {min(bw):.2f}-{max(bw):.2f}, geometric mean {geomean(bw):.2f}x"
                             + (f", below 1.00 on {sum(v < 1 for v in bw)} of {len(bw)}"
                                if p == ctrl_name else ""))
            if p50:
                parts.append(f"latency p50 {min(p50):.2f}-{max(p50):.2f}")
            for key, side in (("req_cpu_us_per_req", "A"), ("resp_cpu_us_per_req", "B")):
                c = [((data[p].get(n) or {}).get(key), (base.get(n) or {}).get(key)) for n in names]
                c = [a / b for a, b in c if a and b]
                if c:
                    parts.append(f"CPU/req pkt {side} geometric mean {geomean(c):.2f}x")
            kind = "control" if p == ctrl_name else "pairing"
            out.append(f"{kind}: {p} / {BASE}: " + "; ".join(parts))
    return out


def ktap_results(failures, names, pairings, nrounds):
    """The checks as KTAP results, (ok, description, why): one per workload,
    pairing and round, failed by the FAILURES that name it ("<workload>/
    <pairing> round <k>: ..."); each failure that names no workload (a
    run failed, not run) one failed result of its own."""
    results, used = [], set()
    for k in range(1, nrounds + 1):
        for p in pairings:
            for n in names:
                where = f"{n}/{p} round {k}"
                mine = [f for f in failures if f.startswith(where + ":")]
                used.update(mine)
                results.append((not mine, where, "; ".join(f[len(where) + 2:] for f in mine)))
    for f in failures:
        if f not in used:
            where, _, why = f.partition(": ")
            results.append((False, where, why))
    return results


def ktap_document(results):
    """A KTAP document (version 1, tools/ktap.py counts it) of RESULTS."""
    yield "KTAP version 1"
    yield f"1..{len(results)}"
    for i, (ok, where, why) in enumerate(results, 1):
        desc = where.replace("#", "_")
        yield f"{'ok' if ok else 'not ok'} {i} {desc}" + (f" # {why}" if why else "")


def failures_of(outdir, per_round, names, pairings, wls, notes=None):
    """The checks that fail the run, each on every round on its own.  What
    a VM standing still for the QP's timeout explains (stalls.py: a failed
    run, unjustified retransmissions, more ACKs than rxe) is not a failure
    in a disturbed run: it goes to NOTES.  Broken invariants and counters
    that disagree with the capture fail whatever the stalls."""
    fails = []
    notes = [] if notes is None else notes
    for k, rd in enumerate(per_round, 1):
        for p in pairings:
            req, resp = sides(p)
            st = stalls.load(os.path.join(outdir, f"round{k}", p))
            run_stalls = stalls.disturbed(st)

            def excused(where, what, wl=None):
                hit = stalls.disturbed(st, wl) if wl else run_stalls
                if not hit:
                    return False
                side, ms = max(hit, key=lambda x: x[1])
                notes.append(f"{where}: disturbed (VM {side.upper()} stood still {ms} ms, QP "
                             f"timeout {stalls.QP_TIMEOUT_MS:.0f} ms): not counted: {what}")
                return True

            failed = os.path.exists(os.path.join(outdir, f"round{k}", p, "failed"))
            if failed and not excused(f"{p} round {k}", "run failed"):
                fails.append(f"{p} round {k}: run failed (see round{k}/{p}/a.log, b.log)")
            if rd[p] is None:
                fails.append(f"{p} round {k}: not run (no capture counts)")
                continue
            for n in names:
                row = (rd[p] or {}).get(n)
                where = f"{n}/{p} round {k}"
                if row is None:
                    fails.append(f"{where}: not run")
                    continue
                # The invariants are the responder's: stock rxe's own are
                # reported in the table, not failed.
                bad = [v for v in row["violations"] if not rnr_model_gap(row, v)]
                if bad and resp == "sroce":
                    fails.append(f"{where}: invariants: {bad[0]}")
                if row.get("counters", "agree") != "agree":
                    fails.append(f"{where}: counters: {row['counters']}")
                # An sroce requester's retransmission that the capture does
                # not justify (no NAK, the responder not silent for the QP's
                # timeout) fails; one after the responder was silent that
                # long is the timer doing its job, reported as a target.
                if req == "sroce" and row["duplicate_requests"]:
                    by = row.get("retransmits_by")
                    if (by is None or by["spurious"]) and \
                            excused(where, "retransmissions the capture does not justify", n):
                        pass
                    elif by is None:
                        fails.append(f"{where}: sroce requester retransmitted "
                                     f"{row['duplicate_requests']} request packets (not classified)")
                    elif by["spurious"]:
                        fails.append(f"{where}: sroce requester retransmitted {by['spurious']} request "
                                     "packets with no NAK and the responder not silent for the timeout"
                                     + tx_drops_note({n: row}))
                # An sroce responder against stock rxe's, same requester, same
                # round; not for a slow receiver, where sroce's ACKs carry the
                # credits of receives posted late and rxe's answer AckReq only.
                # Nor where the requester retransmitted more in this run:
                # each retransmission asks for its own ACK.  Per AckReq
                # where the two runs' requests asked for different numbers.
                if resp == "sroce" and not is_slow_rx(wls.get(n, {})):
                    ref = (rd.get(f"{req}-rxe") or {}).get(n)
                    if ref and row["duplicate_requests"] <= ref["duplicate_requests"] and \
                            resp_more_acks(row, ref) and \
                            not excused(where, "more ACKs than rxe's", n):
                        fails.append(f"{where}: sroce responder sent more ACKs ({row['acks']} for "
                                     f"{row['ackreq']} AckReqs) than rxe to the same requester "
                                     f"({ref['acks']} for {ref['ackreq']})")
    return sorted(set(fails), key=fails.index)


HDR = ["workload", "pairing (req-resp)", "req pkts", "AckReq", "ACKs", "NAKs", "RNR", "READ resp",
       "ATOMIC ACK", "dups", "ACKs/100 req", "BW MB/s (median)", "BW ratio", "p50 us", "p99 us",
       "req CPU us/req pkt", "resp CPU us/req pkt", "invariants", "sroce counters", "avg RX batch"]


def table_lines(outdir, nrounds, data, names, pairings):
    lines = ["| " + " | ".join(HDR) + " |", "|" + "---|" * len(HDR)]
    for n in names:
        base = (data.get(BASE) or {}).get(n)
        for p in pairings:
            row = (data[p] or {}).get(n)
            if row is None:
                lines.append(f"| {n} | {p} | not run |" + " |" * (len(HDR) - 3))
                continue
            ratio = "" if p == BASE else fmt(bw_ratio(row, base), 3)
            bad = [v for v in row["violations"] if not rnr_model_gap(row, v)]
            gap = len(row["violations"]) - len(bad)
            inv = "ok" if not bad else "; ".join(bad[:2])
            if gap:
                inv += " (seq NAKs after RNR NAKs: not modelled by analyze.py)"
            if any(os.path.exists(os.path.join(outdir, f"round{k}", p, "failed"))
                   for k in range(1, nrounds + 1)):
                inv = "RUN FAILED; " + inv
            cells = [n, p, row["request_packets"], row["ackreq"], row["acks"],
                     sum(row["naks_by_code"].values()), row["rnr_naks"], row["read_resp_packets"],
                     row["atomic_acks"], row["duplicate_requests"], row["acks_per_100_requests"],
                     fmt(row.get("bw_avg_MBps")), ratio, fmt(row.get("lat_p50_us")),
                     fmt(row.get("lat_p99_us")), row.get("req_cpu_us_per_req", ""),
                     row.get("resp_cpu_us_per_req", ""), inv, row.get("counters", ""),
                     row.get("avg_rx_batch", "")]
            lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return lines


def charts(outdir, nrounds, data, names, pairings, wls):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing, no charts", file=sys.stderr)
        return
    bw_names = [n for n in names if not is_lat(wls.get(n, {}))]
    lat_names = [n for n in names if is_lat(wls.get(n, {}))]
    plots = (
        ("acks.png", [("acks_per_100_requests", "ACKs per 100 request packets", False, names)]),
        ("bandwidth.png", [("bw_avg_MBps", f"perftest BW average [MB/s], median of {nrounds} "
                            "round(s) (log scale)", True, bw_names)]),
        ("latency.png", [("lat_p50_us", f"latency p50 (t_typical) [us], median of {nrounds} round(s)",
                          False, lat_names),
                         ("lat_p99_us", "latency p99 [us]", False, lat_names)]),
        ("cpu.png", [("req_cpu_us_per_req", "requester VM A CPU per request packet [us] (log scale)",
                      True, names),
                     ("resp_cpu_us_per_req", "responder VM B CPU per request packet [us] (log scale)",
                      True, names)]))
    for fname, panels in plots:
        panels = [pn for pn in panels if pn[3]]
        if not panels:
            continue
        width_n = max(len(pn[3]) for pn in panels)
        fig, axes = plt.subplots(len(panels), 1, squeeze=False,
                                 figsize=(max(6, width_n * 0.25 * len(pairings) + 2), 4 * len(panels)))
        for ax, (key, title, log, wl_names) in zip(axes[:, 0], panels):
            width = 0.8 / max(1, len(pairings))
            for i, p in enumerate(pairings):
                vals = [((data[p] or {}).get(n) or {}).get(key) or 0 for n in wl_names]
                ax.bar([x + i * width for x in range(len(wl_names))], vals, width, label=p)
            ax.set_xticks([x + width * (len(pairings) - 1) / 2 for x in range(len(wl_names))])
            ax.set_xticklabels(wl_names, rotation=45, ha="right")
            ax.set_title(title)
            if log:
                ax.set_yscale("log")
            ax.legend(fontsize="small")
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, fname), dpi=90)
        plt.close(fig)


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    outdir, nrounds, pairings = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    wls = read_workloads(os.path.join(outdir, "workloads.txt"))
    per_round = [{p: load(os.path.join(outdir, f"round{k}"), p, wls) for p in pairings}
                 for k in range(1, nrounds + 1)]
    names = list(wls)
    for rd in per_round:
        for p in pairings:
            names += [n for n in (rd[p] or {}) if n not in names]
    data = {}
    for p in pairings:
        runs = [rd[p] for rd in per_round]
        data[p] = None if all(x is None for x in runs) else \
            {n: pool([(x or {}).get(n) for x in runs]) for n in names}
        if data[p]:
            data[p] = {n: v for n, v in data[p].items() if v is not None}
    json.dump({"pairings": pairings, "base": BASE, "rounds": nrounds, "workloads": wls,
               "results": data, "per_round": per_round},
              open(os.path.join(outdir, "results.json"), "w"), indent=1)
    table = "\n".join(table_lines(outdir, nrounds, data, names, pairings))
    open(os.path.join(outdir, "table.md"), "w").write(table + "\n")
    print(table)
    targets = target_lines(data, names, wls, pairings)
    open(os.path.join(outdir, "targets.txt"), "w").write("\n".join(targets) + "\n")
    for t in targets:
        print(t)
    notes = []
    failures = failures_of(outdir, per_round, names, pairings, wls, notes)
    for n in notes:
        print("compare: note:", n)
    for f in failures:
        print("compare: FAIL:", f)
    results = ktap_results(failures, names, pairings, nrounds)
    for line in ktap_document(results):
        print(line)
    nfail = sum(1 for ok, _, _ in results if not ok)
    print(f"compare: {len(results) - nfail} passed, {nfail} failed")
    charts(outdir, nrounds, data, names, pairings, wls)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

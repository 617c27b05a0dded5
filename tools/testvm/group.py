#!/usr/bin/env python3
"""Boot the runs booked into a group once, and split the results per run.

    group.py DIR                 boot DIR's bookings, write every run's slices
    group.py --split DIR         only split DIR/a.log, b.log, link.pcap again

tools/testvm/run-pair.sh, with SROCE_GROUP=DIR and SROCE_GROUP_PHASE=book,
books a run instead of booting it: DIR/NN/{A,B} are the /sroce trees its
two VMs would have had (NN in booking order) and DIR/NN/meta its settings
(out, kernel, mods, rootfs, timeout, single, append_a/append_b).  Every
booking of a group must name the same kernel and the same modules.

This boots one VM pair for all of them.  Each VM's /sroce/run.sh is
tools/testvm/group-guest.sh, which runs the bookings in order, each in a
fresh state (providers unloaded, links deleted, eth0 back at MTU 1500) and
after a barrier with the other VM, and frames each with
"SROCE-SUITE-BEGIN NN t=S" / "SROCE-SUITE-END NN rc=R t=S" on the console
(S: the VM's uptime; DIR/times.txt gets how long each run took).  A
single-VM booking (run-pair.sh -1) runs on VM A; VM B only meets it at the
barriers.  The image is the largest any booking asked for (pyverbs >
full > base), the kernel command line the union of the bookings' module
parameters (a parameter given two values is refused), the budget the sum
of theirs.

Then each booking's OUTDIR gets what a boot of its own would have left:
a.log and b.log, its slice of each console (from the end of the previous
run to the end of its own; the first also holds the boot, the last the
power-off) ending in "SROCE-RESULT rc=R" when the run finished, and
link.pcap, the frames from its barrier (VM A's last SYN to port
19700 + NN) to the next one.  run-pair.sh with SROCE_GROUP_PHASE=replay
judges those.  A run that never ended (a hung guest, a panic) has no
result line, and fails there, as do the ones after it.

A kernel report before /init ran (seen under TCG: an early IRQ's KASAN
report) boots the pair once more, as run-pair.sh does (vmboot.boot_retrying).
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pcapslice  # noqa: E402
import vmboot  # noqa: E402
import vmimage  # noqa: E402

BARRIER_PORT = 19700
ROOTFS_ORDER = ["base", "full", "pyverbs"]


class GroupError(Exception):
    pass


def read_meta(path):
    meta = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" in line:
                k, v = line.split("=", 1)
                meta[k] = v
    return meta


def bookings(gdir):
    """The bookings of GDIR in order: (name, dir, meta)."""
    out = []
    for name in sorted(os.listdir(gdir)):
        d = os.path.join(gdir, name)
        if re.fullmatch(r"[0-9]{2}", name) and os.path.isdir(d):
            out.append((name, d, read_meta(os.path.join(d, "meta"))))
    return out


def merge_params(books, key):
    """The union of the bookings' PARAM=VALUE lists under KEY."""
    seen = {}
    for name, _, meta in books:
        for kv in meta.get(key, "").split():
            k, _, v = kv.partition("=")
            if seen.get(k, v) != v:
                raise GroupError(f"booking {name}: {k}={v}, but another booking has {k}={seen[k]}")
            seen[k] = v
    return " ".join(f"{k}={v}" for k, v in seen.items())


def plan(books):
    """The one boot the bookings share: kernel, mods, rootfs, budget, params."""
    if not books:
        raise GroupError("no bookings")
    first = books[0][2]
    for name, _, meta in books:
        for k in ("kernel", "mods"):
            if meta.get(k) != first.get(k):
                raise GroupError(f"booking {name} has {k}={meta.get(k)}, the first {first.get(k)}")
        if meta.get("rootfs") not in ROOTFS_ORDER:
            raise GroupError(f"booking {name}: unknown image {meta.get('rootfs')}")
    rootfs = max((m["rootfs"] for _, _, m in books), key=ROOTFS_ORDER.index)
    budget = sum(int(m["timeout"]) for _, _, m in books)
    return {
        "kernel": first["kernel"], "mods": first["mods"], "rootfs": rootfs,
        # The guest's own timeout is the budget less 30 s (vmboot.guest_budget); the
        # boot and the barriers get 120 s more.
        "timeout": budget + 120,
        "append_a": merge_params(books, "append_a"),
        "append_b": merge_params(books, "append_b"),
    }


def side_tree(books, side, work):
    """The /sroce tree of one VM of the group."""
    root = os.path.join(work, side)
    sroce = os.path.join(root, "sroce")
    os.makedirs(os.path.join(sroce, "suites"))
    with open(os.path.join(sroce, "role"), "w") as f:
        f.write(side + "\n")
    shutil.copy(os.path.join(HERE, "guest-lib.sh"), sroce)
    shutil.copy(os.path.join(HERE, "group-guest.sh"), os.path.join(sroce, "run.sh"))
    os.chmod(os.path.join(sroce, "run.sh"), 0o755)
    for name, d, meta in books:
        s = os.path.join(sroce, "suites", name)
        src = os.path.join(d, side)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(s, "tree"), symlinks=True)
        else:
            os.makedirs(s)
            open(os.path.join(s, "skip"), "w").close()
        with open(os.path.join(s, "budget"), "w") as f:
            f.write(f"{vmboot.guest_budget(int(meta['timeout']))}\n")
    return root


END_RX = re.compile(r"SROCE-SUITE-END ([0-9]{2}) rc=([0-9]+)")
TIME_RX = re.compile(r"SROCE-SUITE-(BEGIN|END) ([0-9]{2})(?: rc=[0-9]+)? t=([0-9.]+)")


def durations(log):
    """{name: seconds} each run took on one VM, from its markers' uptimes."""
    begin, out = {}, {}
    with open(log, "rb") as f:
        for raw in f:
            m = TIME_RX.search(raw.decode("utf-8", "replace"))
            if not m:
                continue
            if m.group(1) == "BEGIN":
                begin[m.group(2)] = float(m.group(3))
            elif m.group(2) in begin:
                out[m.group(2)] = float(m.group(3)) - begin[m.group(2)]
    return out


def split_console(log, names):
    """{name: (lines, rc or None)}: each booking's slice of the console LOG,
    from after the previous booking's end marker to its own."""
    return split_lines(vmboot.read_lines(log), names)


def split_lines(lines, names):
    """split_console's slices of a console's LINES."""
    ends = {}
    for i, line in enumerate(lines):
        m = END_RX.search(line)
        if m and m.group(1) in names and m.group(1) not in ends:
            ends[m.group(1)] = (i, int(m.group(2)))
    out = {}
    start = 0
    for k, name in enumerate(names):
        if name in ends:
            i, rc = ends[name]
            stop = i + 1 if k < len(names) - 1 else len(lines)
            out[name] = (lines[start:stop], rc)
            start = stop
        else:
            # Never ended: the rest of the console is its (and nobody's after).
            out[name] = (lines[start:], None)
            start = len(lines)
    return out


# The boot's closing kmemleak scan (group-guest.sh), one VM's.
LEAKSCAN_BEGIN = "SROCE-LEAKSCAN-BEGIN"
LEAKSCAN_END = "SROCE-LEAKSCAN-END"
LEAKSCAN_T_RX = re.compile(r"SROCE-LEAKSCAN t=([0-9.]+)-([0-9.]+) n=([0-9]+)")
LEAKCHECK_RX = re.compile(r"^(\s*)SROCE-LEAKCHECK ([0-9]+) (.*)$")
LEAKSCAN_DEFERRED = "SROCE-LEAKSCAN-DEFERRED"
NO_SCAN = "kmemleak: no scan: the boot's closing leak scan did not complete"	# a REPORT_RULE
LEAK_RX = re.compile(r"unreferenced object 0x[0-9a-f]+")
AGE_RX = re.compile(r"\(age ([0-9]+\.[0-9]+)s\)")
BEGIN_RX = re.compile(r"SROCE-SUITE-BEGIN ([0-9]{2}) t=([0-9.]+)")
NEW_LEAKS_RX = re.compile(r"kmemleak: [0-9]+ new suspected")


class LeakScan:
    """One VM's closing kmemleak scan: done (both markers, the uptimes and
    as many records as the guest counted), t (the uptime the report was
    read at: the middle of the read), n (the guest's count of objects),
    records (each reported object's lines) and other (the section's other
    lines: kernel messages, and what the host has to say)."""

    def __init__(self):
        self.done = False
        self.t = None
        self.n = None
        self.records = []
        self.other = []


def take_leak_scan(lines):
    """(LINES without the closing scan's section, its LeakScan or None)."""
    try:
        start = next(i for i, line in enumerate(lines) if line.endswith(LEAKSCAN_BEGIN))
    except StopIteration:
        return lines, None
    scan = LeakScan()
    end = len(lines)
    record = None
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.endswith(LEAKSCAN_END):
            end = i + 1
            scan.done = scan.t is not None
            break
        m = LEAKSCAN_T_RX.search(line)
        if m and scan.t is None:
            scan.t = (float(m.group(1)) + float(m.group(2))) / 2
            scan.n = int(m.group(3))
        elif LEAK_RX.search(line):
            record = [line]
            scan.records.append(record)
        elif record is not None and line.startswith(" "):
            record.append(line)
        else:
            record = None
            scan.other.append(line)
    if scan.records:
        # The kernel's count of them: the records say it, run by run.
        scan.other = [x for x in scan.other if not NEW_LEAKS_RX.search(x)]
    if scan.done and scan.n != len(scan.records):
        # A kernel message that split a record's first line hid it: whose
        # it was can't be told.
        scan.done = False
        scan.other.append(f"group: the closing scan reported {scan.n} objects, "
                          f"{len(scan.records)} were read")
    return lines[:start] + lines[end:], scan


def attribute_leaks(lines, scan, names):
    """{name: [record lines]}: each object of SCAN to the run that allocated
    it, by its age at SCAN.t and the runs' begin uptimes in LINES: the last
    run (of NAMES) begun by then, else the first (the boot is its slice's).
    An object whose allocation time can't be told goes to the last run,
    with a line that says so."""
    begins = []
    for line in lines:
        m = BEGIN_RX.search(line)
        if m and m.group(1) in names:
            begins.append((float(m.group(2)), m.group(1)))
    out = {}
    for record in scan.records:
        owner = names[-1]
        age = next(filter(None, map(AGE_RX.search, record)), None)
        if age and scan.t is not None:
            born = scan.t - float(age.group(1))
            owner = names[0]
            for t, name in begins:
                if t <= born:
                    owner = name
        else:
            record = record + ["group: this object's age is not in the report: "
                               "given to the boot's last run"]
        out.setdefault(owner, []).extend(record)
    return out


def resolve_leak_checks(lines, scan, leaks):
    """LINES with each "SROCE-LEAKCHECK N DESC" placeholder (guest-lib.sh's
    leak_check) made "ok N DESC" if SCAN completed and LEAKS (this run's
    objects) is empty, else "not ok N DESC"; and each "SROCE-LEAKSCAN-
    DEFERRED" (leak_scan) gone if SCAN completed, else made a line that
    the console check fails the run on (NO_SCAN)."""
    complete = scan is not None and scan.done
    out = []
    for line in lines:
        if line.endswith(LEAKSCAN_DEFERRED):
            if not complete:
                out.append(NO_SCAN)
            continue
        m = LEAKCHECK_RX.match(line)
        if not m:
            out.append(line)
            continue
        indent, n, desc = m.groups()
        if not complete:
            out.append(f"{indent}not ok {n} {desc}")
            out.append(f"{indent}# the boot's closing kmemleak scan did not complete")
        elif leaks:
            out.append(f"{indent}not ok {n} {desc}")
            out.append(f"{indent}# kmemleak: {sum(1 for x in leaks if LEAK_RX.search(x))} "
                       "object(s) allocated in this run unreferenced (below)")
        else:
            out.append(f"{indent}ok {n} {desc}")
    return out


def barrier_frames(pcap, names):
    """{name: the frame number of VM A's last SYN to its barrier port}."""
    ports = {BARRIER_PORT + int(n): n for n in names}
    return {ports[p]: n for p, n in pcapslice.barriers(pcap, "10.0.0.1", ports).items()}


def split_pcap(pcap, names, dests):
    """Each booking's frames, from its barrier to the next, into DESTS[name]
    (pcapslice.py: two passes over the capture, no dissector)."""
    try:
        pcapslice.write_slices(pcap, barrier_frames(pcap, names), dests)
    except pcapslice.PcapError as e:
        print(f"group: {pcap}: {e}; no capture slices", file=sys.stderr)


def split(gdir, books):
    names = [n for n, _, _ in books]
    single = {n for n, _, meta in books if meta.get("single") == "1"}
    slices, scans, leaks, extra = {}, {}, {}, {}
    for side in ("a", "b"):
        log = os.path.join(gdir, f"{side}.log")
        slices[side], scans[side], leaks[side], extra[side] = {}, None, {}, {}
        if not os.path.exists(log):
            continue
        lines, scans[side] = take_leak_scan(vmboot.read_lines(log))
        # VM B's console in a run of VM A's alone (its reset after the run
        # before, its boot if it is the first) is the next run's of its own.
        mine = [n for n in names if side == "a" or n not in single]
        slices[side] = split_lines(lines, mine)
        if scans[side] is not None and mine:
            leaks[side] = attribute_leaks(lines, scans[side], mine)
            # The rest of the section (a kernel message during the scan)
            # goes with the last run, as the console's end does.
            extra[side] = {mine[-1]: scans[side].other}
    dests = {}
    for name, _, meta in books:
        out = meta["out"]
        os.makedirs(out, exist_ok=True)
        for side in ("a", "b"):
            if side == "b" and meta.get("single") == "1":
                continue
            lines, rc = slices[side].get(name, ([], None))
            objs = leaks[side].get(name, [])
            lines = (resolve_leak_checks(lines, scans[side], objs) + objs
                     + extra[side].get(name, []))
            with open(os.path.join(out, f"{side}.log"), "w") as f:
                for line in lines:
                    f.write(line + "\n")
                if rc is not None:
                    f.write(f"SROCE-RESULT rc={rc}\n")
        dests[name] = os.path.join(out, "link.pcap")
        if os.path.exists(dests[name]):
            os.unlink(dests[name])
    pcap = os.path.join(gdir, "link.pcap")
    if os.path.exists(pcap):
        split_pcap(pcap, names, dests)
    # How long each run took (the longer of the two VMs'): DIR/times.txt.
    took = {}
    for side in ("a", "b"):
        log = os.path.join(gdir, f"{side}.log")
        if os.path.exists(log):
            for n, t in durations(log).items():
                took[n] = max(took.get(n, 0.0), t)
    with open(os.path.join(gdir, "times.txt"), "w") as f:
        for name, _, meta in books:
            f.write(f"{name} {took.get(name, 0.0):.0f} {meta['out']}\n")
    ended = sum(1 for n in names if slices["a"].get(n, (None, None))[1] is not None)
    print(f"group: {len(names)} runs booked, {ended} ended on VM A", file=sys.stderr)


def boot(gdir, books):
    """Boot the pair once for BOOKS (vmboot.boot_retrying); 0 if both VMs
    powered off in time."""
    p = plan(books)
    base = vmimage.base_image(p["rootfs"])
    with tempfile.TemporaryDirectory() as work:
        vms = []
        for side in ("A", "B"):
            img = vmimage.initrd([base, p["mods"]], side_tree(books, side, work), work, side)
            vms.append(vmboot.Vm(side, img, os.path.join(gdir, f"{side.lower()}.log"),
                             p[f"append_{side.lower()}"]))
        print(f"group: {len(books)} runs, one boot of {p['kernel']} ({p['rootfs']} image), "
              f"budget {p['timeout']} s", file=sys.stderr)
        return vmboot.boot_retrying(p["kernel"], vms, p["timeout"], "group",
                                pcap=os.path.join(gdir, "link.pcap"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--split", action="store_true", help="only split an earlier boot's logs")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(1))
    gdir = os.path.abspath(args.dir)
    try:
        books = bookings(gdir)
        rc = 0 if args.split else boot(gdir, books)
        split(gdir, books)
    except (GroupError, vmboot.HarnessError, subprocess.CalledProcessError, OSError, KeyError,
            ValueError) as e:
        print(f"group: {e}", file=sys.stderr)
        return 2
    return rc


if __name__ == "__main__":
    sys.exit(main())

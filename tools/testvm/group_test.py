#!/usr/bin/env python3
"""Unit tests of tools/testvm/group.py, the shared-boot harness, with
planted faults: a run that never ended, a kernel report in one run's
slice, conflicting module parameters, bookings for two kernels, and a
capture split at the barriers (a pcap written here, read by tshark).

    python3 tools/testvm/group_test.py      (prints "group-check: P passed, F failed")
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import group  # noqa: E402
import pcapslice_test  # noqa: E402


def write_booking(gdir, name, **meta):
    d = os.path.join(gdir, name)
    os.makedirs(os.path.join(d, "A"))
    base = {"out": os.path.join(gdir, "out-" + name), "kernel": "/k/bzImage", "mods": "/k/mods",
            "rootfs": "full", "timeout": "100", "single": "0"}
    base.update(meta)
    with open(os.path.join(d, "meta"), "w") as f:
        for k, v in base.items():
            f.write(f"{k}={v}\n")
    return d


def console(*parts):
    return "\n".join(parts) + "\n"


class Split(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def log(self, text):
        p = os.path.join(self.tmp, "a.log")
        with open(p, "w") as f:
            f.write(text)
        return p

    def test_each_run_gets_its_slice_and_rc(self):
        p = self.log(console("Linux version 6.1", "sroce-init: userspace started",
                             "SROCE-SUITE-BEGIN 00", "x0", "SROCE-SUITE-END 00 rc=0",
                             "SROCE-SUITE-BEGIN 01", "x1", "SROCE-SUITE-END 01 rc=3",
                             "SROCE-RESULT rc=0", "reboot: Power down"))
        s = group.split_console(p, ["00", "01"])
        self.assertEqual(s["00"][1], 0)
        self.assertEqual(s["01"][1], 3)
        self.assertIn("Linux version 6.1", s["00"][0])	# the boot goes with the first
        self.assertNotIn("x1", s["00"][0])
        self.assertIn("x1", s["01"][0])
        self.assertIn("reboot: Power down", s["01"][0])	# the power-off with the last
        self.assertNotIn("x0", s["01"][0])

    def test_a_run_that_never_ended_fails_with_all_after_it(self):
        p = self.log(console("SROCE-SUITE-BEGIN 00", "SROCE-SUITE-END 00 rc=0",
                             "SROCE-SUITE-BEGIN 01", "Kernel panic - not syncing"))
        s = group.split_console(p, ["00", "01", "02"])
        self.assertEqual(s["00"][1], 0)
        self.assertIsNone(s["01"][1])
        self.assertIn("Kernel panic - not syncing", s["01"][0])
        self.assertEqual(s["02"], ([], None))

    def test_a_report_fails_only_its_own_run(self):
        gdir = os.path.join(self.tmp, "g")
        os.makedirs(gdir)
        for n in ("00", "01", "02"):
            write_booking(gdir, n)
        with open(os.path.join(gdir, "a.log"), "w") as f:
            f.write(console("SROCE-SUITE-BEGIN 00", "SROCE-SUITE-END 00 rc=0",
                            "SROCE-SUITE-BEGIN 01", "BUG: KASAN: slab-out-of-bounds in f+0x1/0x2",
                            "SROCE-SUITE-END 01 rc=0",
                            "SROCE-SUITE-BEGIN 02", "SROCE-SUITE-END 02 rc=0"))
        with open(os.path.join(gdir, "b.log"), "w") as f:
            f.write(console("SROCE-SUITE-END 00 rc=0", "SROCE-SUITE-END 01 rc=0",
                            "SROCE-SUITE-END 02 rc=1"))
        books = group.bookings(gdir)
        group.split(gdir, books)
        check = os.path.join(HERE, "check-console.sh")
        verdicts = []
        for n, _, meta in books:
            a = os.path.join(meta["out"], "a.log")
            ok = subprocess.run([check, a], stderr=subprocess.DEVNULL).returncode == 0
            with open(a) as f:
                self.assertTrue(f.read().endswith("SROCE-RESULT rc=0\n"))
            verdicts.append(ok)
        self.assertEqual(verdicts, [True, False, True])
        with open(os.path.join(books[2][2]["out"], "b.log")) as f:
            self.assertTrue(f.read().endswith("SROCE-RESULT rc=1\n"))

    def test_durations_from_the_markers(self):
        p = self.log(console("SROCE-SUITE-BEGIN 00 t=10.50", "SROCE-SUITE-END 00 rc=0 t=70.25",
                             "SROCE-SUITE-BEGIN 01 t=71.00", "Kernel panic"))
        self.assertEqual(group.durations(p), {"00": 59.75})
        self.assertEqual(group.split_console(p, ["00", "01"])["00"][1], 0)

    def test_a_single_vm_run_gets_no_b_log(self):
        gdir = os.path.join(self.tmp, "g")
        os.makedirs(gdir)
        write_booking(gdir, "00", single="1")
        with open(os.path.join(gdir, "a.log"), "w") as f:
            f.write(console("SROCE-SUITE-END 00 rc=0"))
        books = group.bookings(gdir)
        group.split(gdir, books)
        out = books[0][2]["out"]
        self.assertTrue(os.path.exists(os.path.join(out, "a.log")))
        self.assertFalse(os.path.exists(os.path.join(out, "b.log")))


def leak(addr, age):
    return [f"unreferenced object 0x{addr} (size 64):",
            f'  comm "insmod", pid 90, jiffies 4294{addr[-5:]} (age {age}s)',
            "  backtrace:", "    [<00000000a1b2c3d4>] kmalloc_trace+0x26/0x60"]


class Leaks(unittest.TestCase):
    """The boot's closing kmemleak scan, given back run by run."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.gdir = os.path.join(self.tmp, "g")
        os.makedirs(self.gdir)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def boot(self, a, b=None, single=()):
        for n in ("00", "01", "02"):
            write_booking(self.gdir, n, single="1" if n in single else "0")
        for side, text in (("a", a), ("b", b)):
            if text is not None:
                with open(os.path.join(self.gdir, f"{side}.log"), "w") as f:
                    f.write(console(*text))
        books = group.bookings(self.gdir)
        group.split(self.gdir, books)
        out = {}
        for n, _, meta in books:
            for side in ("a", "b"):
                p = os.path.join(meta["out"], f"{side}.log")
                if os.path.exists(p):
                    with open(p) as f:
                        out[n + side] = f.read().splitlines()
        return out

    def clean(self, lines):
        p = os.path.join(self.tmp, "x.log")
        with open(p, "w") as f:
            f.write(console(*lines))
        return subprocess.run([os.path.join(HERE, "check-console.sh"), p],
                              stderr=subprocess.DEVNULL).returncode == 0

    RUNS = ["SROCE-SUITE-BEGIN 00 t=10.0", "ok 1 x", "SROCE-LEAKCHECK 2 kmemleak reports nothing",
            "1..2", "SROCE-SUITE-END 00 rc=0 t=90.0",
            "SROCE-SUITE-BEGIN 01 t=100.0", "    SROCE-LEAKCHECK 7 kmemleak, nested",
            "SROCE-SUITE-END 01 rc=0 t=190.0",
            "SROCE-SUITE-BEGIN 02 t=200.0", "SROCE-SUITE-END 02 rc=0 t=290.0"]

    def test_each_object_fails_the_run_that_allocated_it(self):
        scan = (["SROCE-LEAKSCAN-BEGIN",
                 "[  330.1] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
                 "SROCE-LEAKSCAN t=340.0-341.0 n=2"]
                + leak("ffff888003a5c000", "290.250")	# born at 50.25 s: run 00
                + leak("ffff888003a5d000", "90.500")	# 250 s: run 02, which has no check
                + ["SROCE-LEAKSCAN-END", "reboot: Power down"])
        out = self.boot(self.RUNS + scan)
        self.assertIn("not ok 2 kmemleak reports nothing", out["00a"])
        self.assertIn("unreferenced object 0xffff888003a5c000 (size 64):", out["00a"])
        self.assertNotIn("unreferenced object 0xffff888003a5d000 (size 64):", out["00a"])
        self.assertIn("    ok 7 kmemleak, nested", out["01a"])
        self.assertIn("unreferenced object 0xffff888003a5d000 (size 64):", out["02a"])
        self.assertIn("reboot: Power down", out["02a"])
        # The console check fails the two runs that leaked, and only them;
        # the kernel's "new suspected" count is in no run's slice.
        self.assertEqual([self.clean(out[n]) for n in ("00a", "01a", "02a")],
                         [False, True, False])
        self.assertFalse(any("new suspected" in x for v in out.values() for x in v))
        self.assertFalse(any("SROCE-LEAK" in x for v in out.values() for x in v))

    def test_a_clean_scan_passes_every_check(self):
        out = self.boot(self.RUNS + ["SROCE-LEAKSCAN-BEGIN", "SROCE-LEAKSCAN t=340.5-340.6 n=0",
                                     "SROCE-LEAKSCAN-END"])
        self.assertIn("ok 2 kmemleak reports nothing", out["00a"])
        self.assertIn("    ok 7 kmemleak, nested", out["01a"])
        self.assertTrue(all(self.clean(v) for v in out.values()))

    def test_a_scan_that_never_completed_fails_the_checks(self):
        for tail in ([], ["SROCE-LEAKSCAN-BEGIN", "Kernel panic - not syncing"],
                     ["SROCE-LEAKSCAN-BEGIN", "SROCE-LEAKSCAN-END"]):
            shutil.rmtree(self.gdir)
            os.makedirs(self.gdir)
            out = self.boot(self.RUNS + tail)
            self.assertIn("not ok 2 kmemleak reports nothing", out["00a"], tail)
            self.assertIn("    not ok 7 kmemleak, nested", out["01a"], tail)
        # What the section held is not lost: the panic fails the last run.
        self.assertTrue(self.clean(out["02a"]))
        shutil.rmtree(self.gdir)
        os.makedirs(self.gdir)
        out = self.boot(self.RUNS + ["SROCE-LEAKSCAN-BEGIN", "Kernel panic - not syncing"])
        self.assertFalse(self.clean(out["02a"]))

    def test_a_record_the_guest_counted_but_nobody_read_fails_the_checks(self):
        # A kernel message split the first line of a record: 2 counted, 1 read.
        scan = (["SROCE-LEAKSCAN-BEGIN", "SROCE-LEAKSCAN t=340.0-341.0 n=2"]
                + leak("ffff888003a5c000", "290.250")
                + ["unreferenced obj[  341.2] virtio_net virtio0 eth0: x", "ect 0xffff888003a5d000",
                   "SROCE-LEAKSCAN-END"])
        out = self.boot(self.RUNS + scan)
        self.assertIn("not ok 2 kmemleak reports nothing", out["00a"])
        self.assertIn("    not ok 7 kmemleak, nested", out["01a"])

    def test_a_run_that_only_prints_the_report_is_failed_without_a_scan(self):
        runs = [x.replace("SROCE-LEAKCHECK 2 kmemleak reports nothing", "SROCE-LEAKSCAN-DEFERRED")
                for x in self.RUNS]
        out = self.boot(runs + ["SROCE-LEAKSCAN-BEGIN", "SROCE-LEAKSCAN t=340.5-340.6 n=0",
                                "SROCE-LEAKSCAN-END"])
        self.assertTrue(self.clean(out["00a"]))
        self.assertFalse(any("SROCE-LEAK" in x for x in out["00a"]))
        shutil.rmtree(self.gdir)
        os.makedirs(self.gdir)
        out = self.boot(runs)
        self.assertIn(group.NO_SCAN, out["00a"])
        self.assertFalse(self.clean(out["00a"]))

    def test_an_object_of_no_age_fails_the_last_run_and_says_why(self):
        rec = [x for x in leak("ffff888003a5c000", "1.0") if "age" not in x]
        out = self.boot(self.RUNS + ["SROCE-LEAKSCAN-BEGIN", "SROCE-LEAKSCAN t=340.0-341.0 n=1"]
                        + rec + ["SROCE-LEAKSCAN-END"])
        self.assertIn(rec[0], out["02a"])
        self.assertTrue(any("age is not in the report" in x for x in out["02a"]))
        self.assertFalse(self.clean(out["02a"]))

    def test_vm_bs_console_in_a_single_vm_run_is_judged_with_its_next_run(self):
        # Run 00 is VM A's alone (KUnit, first in the debug boot): VM B's
        # boot and first reset, and a report in them, are run 01's on B.
        b = ["Linux version 6.1", "WARNING: CPU: 0 PID: 1 at drivers/x.c:1 f+0x0/0x1",
             "SROCE-SUITE-BEGIN 00 t=10.0", "SROCE-SUITE-END 00 rc=0 t=10.1",
             "SROCE-SUITE-BEGIN 01 t=100.0", "SROCE-SUITE-END 01 rc=0 t=190.0",
             "SROCE-SUITE-BEGIN 02 t=200.0", "SROCE-SUITE-END 02 rc=0 t=290.0"]
        out = self.boot(self.RUNS, b, single=("00",))
        self.assertNotIn("00b", out)
        self.assertIn("Linux version 6.1", out["01b"])
        self.assertFalse(self.clean(out["01b"]))
        self.assertTrue(self.clean(out["02b"]))
        self.assertTrue(out["01b"][-1] == "SROCE-RESULT rc=0")

    def test_vm_b_skips_a_single_vm_run(self):
        # VM B idles through run 01 (VM A's alone): what it allocated then
        # is the run before's.
        b = [x for x in self.RUNS if "LEAKCHECK" not in x] + [
            "SROCE-LEAKSCAN-BEGIN", "SROCE-LEAKSCAN t=300.0-300.0 n=1"] + leak("ffff888003a5e000", "150.0") + [
            "SROCE-LEAKSCAN-END"]
        out = self.boot(self.RUNS, b, single=("01",))
        self.assertNotIn("01b", out)
        self.assertIn("unreferenced object 0xffff888003a5e000 (size 64):", out["00b"])
        self.assertEqual(group.attribute_leaks(b, group.take_leak_scan(b)[1], ["00", "01", "02"]),
                         {"01": leak("ffff888003a5e000", "150.0")})


class Plan(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_one_boot_for_all(self):
        write_booking(self.tmp, "00", rootfs="full", timeout="600", append_b="sroce.ack_span_max=0")
        write_booking(self.tmp, "01", rootfs="pyverbs", timeout="900")
        write_booking(self.tmp, "02", rootfs="base", timeout="100", append_b="sroce.ack_span_max=0")
        p = group.plan(group.bookings(self.tmp))
        self.assertEqual(p["rootfs"], "pyverbs")
        self.assertEqual(p["timeout"], 600 + 900 + 100 + 120)
        self.assertEqual(p["append_b"], "sroce.ack_span_max=0")
        self.assertEqual(p["append_a"], "")

    def test_a_parameter_given_two_values_is_refused(self):
        write_booking(self.tmp, "00", append_b="sroce.ack_coalesce_max=1")
        write_booking(self.tmp, "01", append_b="sroce.ack_coalesce_max=4")
        with self.assertRaises(group.GroupError):
            group.plan(group.bookings(self.tmp))

    def test_two_kernels_are_refused(self):
        write_booking(self.tmp, "00")
        write_booking(self.tmp, "01", kernel="/other/bzImage")
        with self.assertRaises(group.GroupError):
            group.plan(group.bookings(self.tmp))

    def test_two_module_sets_are_refused(self):
        write_booking(self.tmp, "00")
        write_booking(self.tmp, "01", mods="/other/mods")
        with self.assertRaises(group.GroupError):
            group.plan(group.bookings(self.tmp))

    def test_no_booking_is_refused(self):
        with self.assertRaises(group.GroupError):
            group.plan([])

    def test_the_guest_trees(self):
        d = write_booking(self.tmp, "00", timeout="200")
        with open(os.path.join(d, "A", "provider"), "w") as f:
            f.write("sroce\n")
        write_booking(self.tmp, "01", single="1")
        shutil.rmtree(os.path.join(self.tmp, "01", "A"))
        os.makedirs(os.path.join(self.tmp, "01", "A"))
        books = group.bookings(self.tmp)
        work = os.path.join(self.tmp, "work")
        a = group.side_tree(books, "A", work)
        b = group.side_tree(books, "B", work)
        self.assertTrue(os.path.exists(os.path.join(a, "sroce/suites/00/tree/provider")))
        self.assertTrue(os.path.exists(os.path.join(b, "sroce/suites/00/skip")))
        self.assertTrue(os.path.exists(os.path.join(b, "sroce/suites/01/skip")))
        with open(os.path.join(a, "sroce/suites/00/budget")) as f:
            self.assertEqual(f.read().strip(), "170")
        with open(os.path.join(b, "sroce/role")) as f:
            self.assertEqual(f.read().strip(), "B")


def frame(src, dst, dport, syn=True):
    """An Ethernet/IPv4/TCP frame, SYN (or ACK) from src to dst:dport
    (pcapslice_test.py's frames and captures)."""
    return pcapslice_test.ipv4_tcp(bytes(map(int, src.split("."))), bytes(map(int, dst.split("."))),
                                   dport, 0x02 if syn else 0x10)


write_pcap = pcapslice_test.write_pcap


def count(path):
    r = subprocess.run(["tshark", "-r", path, "-n", "-T", "fields", "-e", "frame.number"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return len(r.stdout.split())


@unittest.skipUnless(shutil.which("tshark"), "needs tshark (tools/deps.sh tshark)")
class Pcap(unittest.TestCase):
    def test_split_at_the_last_syn_of_each_barrier(self):
        tmp = tempfile.mkdtemp()
        try:
            frames = [frame("10.0.0.1", "10.0.0.2", 19700)]	# 1: run 00's barrier
            frames += [frame("10.0.0.2", "10.0.0.1", 80, False)] * 3	# 2-4: run 00
            frames += [frame("10.0.0.1", "10.0.0.2", 19701)] * 2	# 5-6: a refused try, then the one
            frames += [frame("10.0.0.1", "10.0.0.2", 80, False)] * 4	# 7-10: run 01
            frames += [frame("10.0.0.2", "10.0.0.1", 19702)]	# 11: B's SYN is no barrier
            pcap = os.path.join(tmp, "link.pcap")
            write_pcap(pcap, frames)
            self.assertEqual(group.barrier_frames(pcap, ["00", "01", "02"]), {"00": 1, "01": 6})
            dests = {n: os.path.join(tmp, n + ".pcap") for n in ("00", "01", "02")}
            group.split_pcap(pcap, ["00", "01", "02"], dests)
            self.assertEqual(count(dests["00"]), 5)	# 1-5
            self.assertEqual(count(dests["01"]), 6)	# 6-11
            self.assertFalse(os.path.exists(dests["02"]))
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import ktap  # noqa: E402
    sys.exit(ktap.run_unittests(sys.modules[__name__], "group-check"))

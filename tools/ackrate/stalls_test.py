#!/usr/bin/env python3
"""Unit tests of the stall judgement of make compare (stalls.py, and
report.py's failures_of with and without a disturbed run): a planted
stall excuses what it explains and nothing else.

    python3 tools/ackrate/stalls_test.py    (prints "stalls-check: P passed, F failed")
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402
import stalls  # noqa: E402


def row(**kw):
    r = {"violations": [], "counters": "agree", "duplicate_requests": 0, "retransmits_by": None,
         "acks": 10, "ackreq": 10, "rnr_naks": 0, "naks_by_code": {}}
    r.update(kw)
    return r


class PerWorkload(unittest.TestCase):
    def test_a_stall_belongs_to_the_workload_printed_after_it(self):
        log = ["guest: sroce", "SROCE-STALL 30 at 1.0", "SROCE-STATS-BEGIN start",
               "SROCE-STALL 120 at 5.0", "SROCE-STALL 80 at 5.5", "SROCE-STATS-BEGIN send_64",
               "SROCE-STATS-BEGIN write_64", "SROCE-STALL 900 at 9.0"]
        self.assertEqual(stalls.per_workload(log), {"start": 30, "send_64": 120, "end": 900})

    def test_disturbed_needs_the_qp_timeout(self):
        st = {"a": {"send_64": 60}, "b": {"write_64": 70, "end": 5000}}
        self.assertEqual(stalls.disturbed(st, "send_64"), [])
        self.assertEqual(stalls.disturbed(st, "write_64"), [("b", 70)])
        self.assertEqual(stalls.disturbed(st, "read_64"), [])	# "end" came after every workload
        self.assertEqual(sorted(stalls.disturbed(st)), [("b", 70), ("b", 5000)])
        self.assertEqual(stalls.disturbed(None), [])

    def test_analyse_reads_both_consoles(self):
        d = tempfile.mkdtemp()
        try:
            with open(os.path.join(d, "a.log"), "w") as f:
                f.write("SROCE-STATS-BEGIN w\nSROCE-STALL-SUMMARY 0 0 0\n")
            with open(os.path.join(d, "b.log"), "w") as f:
                f.write("SROCE-STALL 1500 at 3.0\r\nSROCE-STATS-BEGIN w\r\n")
            res = stalls.analyse(d)
            self.assertEqual(res["b"], {"w": 1500})
            self.assertEqual(res["monitored"], ["a"])
        finally:
            shutil.rmtree(d)


class Failures(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.out, "round1", "sroce-sroce"))

    def tearDown(self):
        shutil.rmtree(self.out)

    def judge(self, r, stall_ms=None, failed=False):
        d = os.path.join(self.out, "round1", "sroce-sroce")
        if stall_ms is not None:
            with open(os.path.join(d, "stalls.json"), "w") as f:
                json.dump({"a": {}, "b": {"send_64": stall_ms}, "monitored": ["a", "b"]}, f)
        if failed:
            open(os.path.join(d, "failed"), "w").close()
        notes = []
        fails = report.failures_of(self.out, [{"sroce-sroce": {"send_64": r}}], ["send_64"],
                                   ["sroce-sroce"], {}, notes)
        return fails, notes

    def test_unjustified_retransmissions_fail_on_a_quiet_run(self):
        fails, notes = self.judge(row(duplicate_requests=3, retransmits_by={"spurious": 3}), 10)
        self.assertEqual(len(fails), 1)
        self.assertEqual(notes, [])

    def test_a_stall_excuses_unjustified_retransmissions(self):
        fails, notes = self.judge(row(duplicate_requests=3, retransmits_by={"spurious": 3}), 1500)
        self.assertEqual(fails, [])
        self.assertEqual(len(notes), 1)
        self.assertIn("disturbed", notes[0])

    def test_a_stall_excuses_a_failed_run(self):
        self.assertEqual(len(self.judge(row(), None, failed=True)[0]), 1)
        fails, notes = self.judge(row(), 1500, failed=True)
        self.assertEqual(fails, [])
        self.assertEqual(len(notes), 1)

    def test_a_stall_never_excuses_broken_invariants_or_counters(self):
        fails, _ = self.judge(row(violations=["ACK for a PSN never sent"],
                                  counters="resp_ack 5 vs 4"), 1500)
        self.assertEqual(len(fails), 2)


if __name__ == "__main__":
    # KTAP (tools/ktap.py's runner), and its count "stalls-check: P passed, F failed".
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import ktap  # noqa: E402
    sys.exit(ktap.run_unittests(sys.modules[__name__], "stalls-check"))

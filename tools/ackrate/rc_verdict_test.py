#!/usr/bin/env python3
"""Unit tests of the rc test's verdicts (rc_verdict.py) on made-up
consoles, plans and capture counts: each check passes on good input and
fails on a planted fault.

    python3 tools/ackrate/rc_verdict_test.py    (prints "rc-verdict-check: P passed, F failed")
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rc_unittest  # noqa: E402
import rc_verdict as V  # noqa: E402

SEQ = "9.7.5.1.5-seq-nak"
ROUNDS = ["clean -", "loss1 loss 1%", "mix loss 5% duplicate 1% delay 2ms reorder 10%"]
PLAN = [
    "0 clean sroce-sroce pp ibv_rc_pingpong 16 100 240 ibv_rc_pingpong/16/inline",
    "1 clean sroce-sroce pt ib_atomic_bw - 100 240 ib_atomic_bw/8",
    "2 clean sroce-sroce pp ibv_ud_pingpong 1024 100 240 ibv_ud_pingpong/1024",
    "3 clean sroce-sroce pt ib_send_bw 1024 100 240 ib_send_bw/1024/ud -c UD",
    "4 clean sroce-sroce cm rping - 20 240 cm/rping",
    "5 clean sroce-sroce it sroce_integrity - - 600 sroce_integrity/all",
    "6 loss1 sroce-rxe pt ib_write_bw 65536 10 240 ib_write_bw/65536",
    "7 clean loop-sroce pt ib_send_bw 64 100 240 ib_send_bw/64",
]


def wl(workload, **kw):
    """One workload of analyze.py's JSON: a clean one unless told."""
    r = {"workload": workload, "request_packets": 100, "duplicate_requests": 0, "naks_by_code": {},
         "rnr_naks": 0, "acks": 10, "atomic_acks": 0, "violations": [], "rexmit_bursts_timer": 0,
         "rexmit_bursts_nak": 0, "rexmit_bursts_early": 0, "rexmit_early": [], "loss_episodes": 0,
         "episodes_announced": 0, "episodes_by_nak": 0, "episodes_by_timer": 0,
         "announced_by_timer": 0, "resend_lost": 0, "nak_ignored": 0, "naks_per_episode": {},
         "seq_naks": []}
    r.update(kw)
    return r


def lossy(cid="6", pair="sroce-sroce", rnd="loss1", naks=((0x11, 0x10),), per_episode=None):
    """A one-way workload on a lossy round whose episodes each drew one NAK."""
    return wl(f"{cid}/{rnd}/{pair}/ib_write_bw/65536", naks_by_code={"0": len(naks)},
              loss_episodes=len(naks), episodes_announced=len(naks), episodes_by_nak=len(naks),
              naks_per_episode=per_episode or {"1": len(naks)}, seq_naks=[list(n) for n in naks],
              duplicate_requests=len(naks))


def trace(cid, *events, total=40, overrun=0):
    """VM A's RC-TRACE lines of one check."""
    out = [f"RC-TRACE {cid} events {total}"] if total else []
    if overrun:
        out.append(f"RC-TRACE {cid} overrun {overrun}")
    return out + [f"RC-TRACE {cid} {e}" for e in events]


GOOD_TRACE = ("N 0x11 0x10 0x60 3 none " + SEQ, "P 0x11 0x10 1")


def checks(verdicts):
    """{text before its parenthesis: verdict} of the capture checks."""
    return {t.split(" (")[0]: v for v, t in verdicts if v is not None}


class CheckResults(unittest.TestCase):
    plan = V.read_plan(PLAN)

    def judge(self, a, b):
        return [ok for ok, _ in V.check_results(self.plan[:1] + self.plan[7:], a, b)]

    def test_both_ends_zero_pass(self):
        got = V.check_results(self.plan[:1], ["RC-RESULT 0 client 0 3"], ["RC-RESULT 0 server 0 3"])
        self.assertEqual(got, [(True, "clean sroce-sroce ibv_rc_pingpong 16 inline (3 s)")])

    def test_a_failed_or_missing_end_fails(self):
        for a, b, why in ((["RC-RESULT 0 client 1 3"], ["RC-RESULT 0 server 0 3"], "client 1, server 0"),
                          ([], ["RC-RESULT 0 server 0 3"], "client no result, server 0"),
                          (["RC-RESULT 0 client 0 3"], [], "client 0, server no result"),
                          (["RC-RESULT 0 client skip 0"], ["RC-RESULT 0 server skip 0"],
                           "client skip, server skip")):
            got = V.check_results(self.plan[:1], a, b)
            self.assertEqual(got, [(False, f"clean sroce-sroce ibv_rc_pingpong 16 inline ({why})")])

    def test_a_check_run_twice_says_so_and_still_needs_both_ends(self):
        a = ["RC-RERUN 0 perftest-cm-reject", "RC-RESULT 0 client 0 9"]
        got = V.check_results(self.plan[:1], a, ["RC-RESULT 0 server 0 9"])
        self.assertEqual(got, [(True, "clean sroce-sroce ibv_rc_pingpong 16 inline "
                                      "(9 s, run 2 times: perftest-cm-reject)")])
        got = V.check_results(self.plan[:1], a[:1] + ["RC-RESULT 0 client 143 60"],
                              ["RC-RESULT 0 server 143 60"])
        self.assertEqual(got, [(False, "clean sroce-sroce ibv_rc_pingpong 16 inline "
                                       "(client 143, server 143, run 2 times: perftest-cm-reject)")])
        # Run three times.
        got = V.check_results(self.plan[:1], a[:1] + a, ["RC-RESULT 0 server 0 9"])
        self.assertEqual(got, [(True, "clean sroce-sroce ibv_rc_pingpong 16 inline "
                                      "(9 s, run 3 times: perftest-cm-reject)")])
        # Another check's rerun is not this one's.
        got = V.check_results(self.plan[:1], ["RC-RERUN 1 x", "RC-RESULT 0 client 0 3"],
                              ["RC-RESULT 0 server 0 3"])
        self.assertEqual(got, [(True, "clean sroce-sroce ibv_rc_pingpong 16 inline (3 s)")])

    def test_another_checks_result_does_not_count(self):
        self.assertEqual(self.judge(["RC-RESULT 1 client 0 3"], ["RC-RESULT 1 server 0 3"]),
                         [False, False])

    def test_loopback_server_is_in_vm_a(self):
        a = ["RC-RESULT 7 client 0 1", "RC-RESULT 7 server 0 1"]
        self.assertEqual(self.judge(a, []), [False, True])
        self.assertEqual(self.judge(["RC-RESULT 7 client 0 1"], ["RC-RESULT 7 server 0 1"]),
                         [False, False])


class Plan(unittest.TestCase):
    def test_capture_workloads_are_the_two_vm_rc_checks(self):
        self.assertEqual(V.capture_workloads(V.read_plan(PLAN)), [
            "0/clean/sroce-sroce/ibv_rc_pingpong/16/inline ibv_rc_pingpong 16 100 21000",
            "1/clean/sroce-sroce/ib_atomic_bw/8 ib_atomic_bw - 100 21001",
            "5/clean/sroce-sroce/sroce_integrity/all sroce_integrity - 0 21005",
            "6/loss1/sroce-rxe/ib_write_bw/65536 ib_write_bw 65536 10 21006"])

    def test_options_are_kept(self):
        self.assertEqual(V.read_plan(PLAN)[3]["options"], "-c UD")

    def test_reordering_rounds_are_not_checked(self):
        self.assertEqual(V.checked_rounds(ROUNDS), ["clean", "loss1"])


class Capture(unittest.TestCase):
    def verdicts(self, res, a_log=(), report=False, checked=("clean", "loss1")):
        return checks(V.capture_verdicts(res, list(checked), report, V.TE.parse(a_log)))

    def test_clean_sroce_requester_good(self):
        got = self.verdicts([wl("1/clean/sroce-sroce/ib_atomic_bw/8", atomic_acks=100),
                             wl("5/clean/sroce-sroce/sroce_integrity/all")])
        self.assertEqual(got, {"clean sroce-sroce capture go-back-N invariants": True,
                               "clean sroce-sroce capture one ATOMIC ACK per ATOMIC": True,
                               "clean sroce-sroce capture no retransmitted PSN": True})

    def test_a_retransmitted_psn_on_a_clean_link_fails(self):
        res = [wl("5/clean/sroce-sroce/sroce_integrity/all", duplicate_requests=1,
                  rexmit_bursts_early=1, rexmit_early=["PSN 0x10 resent 3.0 ms after an ACK"])]
        v = V.capture_verdicts(res, ["clean"], False, {})
        self.assertFalse(checks(v)["clean sroce-sroce capture no retransmitted PSN"])
        self.assertIn("first early: sroce_integrity/all: PSN 0x10", [t for _, t in v][-1])
        # --retransmits=report: the same counts, information only.
        got = V.capture_verdicts(res, ["clean"], True, {})
        self.assertNotIn("clean sroce-sroce capture no retransmitted PSN", checks(got))
        self.assertIn("reported, not checked", got[-1][1])

    def test_timeouts_while_a_vm_stood_still_are_named_not_failed(self):
        # Check 5's timeout burst came while VM B stood still 80 ms (more
        # than 0.9 of the 67 ms timeout): the ACK could not come in time.
        res = [wl("5/clean/sroce-rxe/sroce_integrity/all", duplicate_requests=1,
                  rexmit_bursts_timer=1)]
        b_log = ["RC-CHECK 4 clean sroce-rxe x: cmd", "SROCE-STALL 500 at 9.1",
                 "RC-CHECK 5 clean sroce-rxe y: cmd", "SROCE-STALL 40 at 10.0",
                 "SROCE-STALL 80 at 10.5", "RC-RESULT 5 server 0 3"]
        stalls = V.run_stalls(["RC-CHECK 5 clean sroce-rxe y: cmd", "SROCE-STALL 31 at 3.0"], b_log)
        self.assertEqual(stalls, {"4": (500, "b"), "5": (80, "b")})
        v = V.capture_verdicts(res, ["clean"], False, {}, stalls)
        self.assertTrue(checks(v)["clean sroce-rxe capture no retransmitted PSN"])
        self.assertIn("1 of them after timeouts while a VM stood still (not counted: "
                      "sroce_integrity all: VM B stood still 80 ms)", v[-1][1])
        # The same burst with no stall, or a stall shorter than the timer
        # could have waited, or only in another check: a failure.
        for st in ({}, {"5": (59, "b")}, {"4": (500, "b")}):
            got = V.capture_verdicts(res, ["clean"], False, {}, st)
            self.assertFalse(checks(got)["clean sroce-rxe capture no retransmitted PSN"], st)
        # A stall never excuses a burst the timer did not send.
        for kind in ("nak", "early"):
            bad = [wl("5/clean/sroce-rxe/sroce_integrity/all", duplicate_requests=2,
                      rexmit_bursts_timer=1, **{"rexmit_bursts_" + kind: 1})]
            got = V.capture_verdicts(bad, ["clean"], False, {}, stalls)
            self.assertFalse(checks(got)["clean sroce-rxe capture no retransmitted PSN"], kind)
        # Only that workload's: another one's retransmission still fails.
        res.append(wl("6/clean/sroce-rxe/ib_write_bw/65536", duplicate_requests=1,
                      rexmit_bursts_timer=1))
        got = V.capture_verdicts(res, ["clean"], False, {}, stalls)
        self.assertFalse(checks(got)["clean sroce-rxe capture no retransmitted PSN"])

    def test_stock_rxe_requester_retransmissions_are_information(self):
        got = V.capture_verdicts([wl("5/clean/rxe-sroce/sroce_integrity/all", duplicate_requests=4)],
                                 ["clean"], False, {})
        self.assertEqual(checks(got), {"clean rxe-sroce capture go-back-N invariants": True})
        self.assertIn("4 retransmitted PSNs in all (information only: the requester is stock rxe)",
                      got[-1][1])

    def test_a_missing_atomic_ack_fails(self):
        got = self.verdicts([wl("1/clean/sroce-sroce/ib_atomic_bw/8", atomic_acks=100),
                             wl("2/clean/sroce-sroce/ib_atomic_lat/8", atomic_acks=99)])
        self.assertFalse(got["clean sroce-sroce capture one ATOMIC ACK per ATOMIC"])

    def test_initiator_depth_exactly_as_set(self):
        # sroce as the requester: -o 3 means 3 READs on the wire at once.
        good = wl("3/clean/sroce-rxe/ib_read_bw/64/o3", max_reads_outstanding=3)
        self.assertTrue(self.verdicts([good])["clean sroce-rxe capture IBA 9.7.6.1 initiator depth 3"])
        # Rounded up to a power of two (stock rxe's way), or never used.
        for seen in (4, 2, 0):
            bad = wl("3/clean/sroce-rxe/ib_read_bw/64/o3", max_reads_outstanding=seen)
            self.assertFalse(self.verdicts([bad])["clean sroce-rxe capture IBA 9.7.6.1 initiator depth 3"], seen)
        # Stock rxe as the requester sends 4: information only.
        got = V.capture_verdicts([wl("3/clean/rxe-sroce/ib_read_bw/64/o3", max_reads_outstanding=4)],
                                 ["clean"], False, {})
        self.assertNotIn("clean rxe-sroce capture IBA 9.7.6.1 initiator depth 3", checks(got))
        self.assertIn("at most 4 READs outstanding", " ".join(t for _, t in got))
        # No depth in the label: no depth check.
        got = self.verdicts([wl("3/clean/sroce-rxe/ib_read_bw/64", max_reads_outstanding=9)])
        self.assertNotIn("clean sroce-rxe capture IBA 9.7.6.1 initiator depth 3", got)

    def test_an_invariant_violation_fails(self):
        bad = wl("5/clean/sroce-sroce/sroce_integrity/all", violations=["ACK PSN moved backwards"])
        got = self.verdicts([bad])
        self.assertFalse(got["clean sroce-sroce capture go-back-N invariants"])
        text = [t for _, t in V.capture_verdicts([bad], ["clean"], False, {})]
        self.assertIn("sroce_integrity/all: ACK PSN moved backwards", " ".join(text))

    def test_violations_of_two_way_workloads_are_not_checked(self):
        got = V.capture_verdicts([wl("0/clean/sroce-sroce/ibv_rc_pingpong/16/inline",
                                     violations=["ACK PSN moved backwards"])], ["clean"], False, {})
        self.assertTrue(checks(got)["clean sroce-sroce capture go-back-N invariants"])
        self.assertIn("not checked (B sends too)", got[0][1])

    def test_nothing_captured_fails(self):
        got = self.verdicts([wl("5/clean/sroce-sroce/sroce_integrity/all", request_packets=0)])
        self.assertFalse(got["clean sroce-sroce capture go-back-N invariants"])
        self.assertFalse(got["clean sroce-sroce capture no retransmitted PSN"])

    def test_reordering_round_is_information_only(self):
        res = [lossy(rnd="mix", per_episode={"3": 1}), wl("7/mix/sroce-sroce/sroce_integrity/all",
                                                           violations=["second NAK 0x10"])]
        got = V.capture_verdicts(res, ["clean", "loss1"], False, V.TE.parse(trace("6", *GOOD_TRACE)))
        self.assertEqual(checks(got), {})
        self.assertIn("1 go-back-N invariant violations", " ".join(t for _, t in got))

    LOSS = "loss1 sroce-sroce capture one NAK per loss episode, every NAK acted on, none left to the timer"

    def loss(self, res, *events, **kw):
        return self.verdicts(res, trace("6", *events, **kw))[self.LOSS]

    def test_every_nak_acted_on_passes(self):
        self.assertTrue(self.loss([lossy()], *GOOD_TRACE))
        got = self.verdicts([lossy()], trace("6", *GOOD_TRACE))
        self.assertTrue(got["loss1 sroce-sroce capture go-back-N invariants"])

    def test_a_nak_not_acted_on_fails(self):
        self.assertFalse(self.loss([lossy()], "N 0x11 0x10 0x60 3 none " + SEQ, "P 0x11 0x14 0"))

    def test_a_nak_the_completer_never_saw_fails(self):
        self.assertFalse(self.loss([lossy(naks=((0x11, 0x10), (0x11, 0x20)))], *GOOD_TRACE))

    def test_a_nak_left_to_the_timer_fails(self):
        self.assertFalse(self.loss([lossy()], "T 0x11 rexmit 0xf 3 9.7.6.1-timeout", "P 0x11 0x10 1",
                                   "N 0x11 0x10 0x60 5 stale_nak " + SEQ))

    def test_an_episode_with_two_naks_fails(self):
        self.assertFalse(self.loss([lossy(per_episode={"2": 1})], *GOOD_TRACE))

    def test_no_loss_episode_fails(self):
        self.assertFalse(self.loss([lossy(naks=())], *GOOD_TRACE))
        # NAKs the requester acted on, but no loss on the wire to explain them.
        self.assertFalse(self.loss([dict(lossy(), loss_episodes=0)], *GOOD_TRACE))

    def test_no_nak_on_the_wire_fails(self):
        # Loss episodes, but not one sequence NAK to the requester to judge.
        self.assertFalse(self.loss([dict(lossy(), seq_naks=[])], *GOOD_TRACE))

    def test_a_missing_or_partial_trace_fails(self):
        # Check 6's trace is whole; check 8's is missing, or partial.
        res = [lossy(), lossy(cid="8")]
        self.assertTrue(self.verdicts(res, trace("6", *GOOD_TRACE) + trace("8", *GOOD_TRACE))[self.LOSS])
        self.assertFalse(self.verdicts(res, trace("6", *GOOD_TRACE))[self.LOSS])
        self.assertFalse(self.verdicts(res, trace("6", *GOOD_TRACE) + trace("8", *GOOD_TRACE, total=0))
                         [self.LOSS])
        self.assertFalse(self.verdicts(res, trace("6", *GOOD_TRACE) + trace("8", *GOOD_TRACE, overrun=2))
                         [self.LOSS])
        self.assertFalse(self.verdicts(res, ["RC-TRACE 8 unavailable sroce_comp_timer"] +
                                       trace("6", *GOOD_TRACE) + trace("8", *GOOD_TRACE))[self.LOSS])

    def test_stock_rxe_requester_on_a_lossy_link_is_information(self):
        got = V.capture_verdicts([lossy(pair="rxe-sroce", per_episode={"2": 1})], ["clean", "loss1"],
                                 False, {})
        self.assertEqual(checks(got), {"loss1 rxe-sroce capture go-back-N invariants": True})
        self.assertIn("(information only: the requester is stock rxe)", got[-2][1])
        self.assertIn("(information only: a lossy link)", got[-1][1])

    def test_capture_txt_marks_the_checks(self):
        self.assertEqual(V.capture_txt([(None, "rc-capture: a"), (True, "b"), (False, "c")]),
                         "rc-capture: a\nRC-CAPTURE-CHECK PASS b\nRC-CAPTURE-CHECK FAIL c\n")


KTAP_RESULT = re.compile(r"^(ok|not ok) ([0-9]+) ([^#]*)$")


class Ktap(unittest.TestCase):
    def parse(self, lines):
        """A strict reading of the document: version, plan, numbered results."""
        self.assertEqual(lines[0], "KTAP version 1")
        n = int(re.fullmatch(r"1\.\.([0-9]+)", lines[1]).group(1))
        res = [KTAP_RESULT.match(ln) for ln in lines[2:-1] if not ln.startswith("# ")]
        self.assertTrue(all(res), lines)
        self.assertEqual([int(m.group(2)) for m in res], list(range(1, n + 1)))
        return [m.group(1) == "ok" for m in res]

    def test_document_and_counts(self):
        lines, failed = V.ktap([(True, "a (1 s)"), (None, "rc-capture: x"), (False, "b # 2")], "rc-x", 0)
        self.assertEqual(self.parse(lines), [True, False])
        self.assertEqual(lines[3], "# rc-capture: x")
        self.assertEqual(lines[4], "not ok 2 b No. 2")
        self.assertEqual((lines[-1], failed), ("rc-x: 1 passed, 1 failed", 1))

    def test_failed_vm_run_with_no_failed_check_is_a_failure(self):
        lines, failed = V.ktap([(True, "a")], "rc-x", 1)
        self.assertEqual(self.parse(lines), [True, False])
        self.assertEqual((lines[-1], failed), ("rc-x: 1 passed, 1 failed", 1))
        lines, failed = V.ktap([(False, "a")], "rc-x", 1)
        self.assertEqual(lines[-1], "rc-x: 0 passed, 2 failed")	# and no pass at all

    def test_no_pass_is_a_failure(self):
        lines, failed = V.ktap([], "rc-x", 0)
        self.assertEqual(self.parse(lines), [False])
        self.assertEqual((lines[-1], failed), ("rc-x: 0 passed, 1 failed", 1))


class Judge(unittest.TestCase):
    """judge() on a run directory: consoles with CRs, no capture."""

    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)
        self.write("plan.txt", "\n".join(PLAN[:1] + PLAN[7:]) + "\n")
        self.write("rc-rounds", "\n".join(ROUNDS) + "\n")
        self.write("a.log", "RC-RESULT 0 client 0 2\r\nRC-RESULT 7 client 0 1\r\nRC-RESULT 7 server 0 1\r\n")
        self.write("b.log", "RC-RESULT 0 server 0 2\r\n")

    def write(self, name, text):
        with open(os.path.join(self.out, name), "w") as f:
            f.write(text)

    def test_a_two_vm_run_without_capture_fails(self):
        got = V.judge(self.out, True, False)
        self.assertEqual(got, [(True, "clean sroce-sroce ibv_rc_pingpong 16 inline (2 s)"),
                               (True, "clean loop-sroce ib_send_bw 64 (1 s)"),
                               (False, "capture of the link (link.pcap missing or empty: no "
                                       "capture check ran)"),
                               (True, "capture checker self-test"), (True, "trace matcher self-test")])
        # A loopback-only run has no link to capture.
        self.assertNotIn(False, [ok for ok, _ in V.judge(self.out, False, False)])
        with open(os.path.join(self.out, "a.log.txt")) as f:
            self.assertNotIn("\r", f.read())

    def test_a_capture_that_cannot_be_read_fails_and_no_stale_counts_count(self):
        self.write("link.pcap", "not a capture")
        self.write("capture.json", json.dumps([wl("0/clean/sroce-sroce/ibv_rc_pingpong/16/inline")]))
        got = V.judge(self.out, True, False)
        self.assertEqual([v for v, t in got if t.startswith("capture analysis")], [False])
        self.assertFalse(os.path.exists(os.path.join(self.out, "capture.json")))

    def test_the_command_prints_ktap_and_fails_with_a_check(self):
        cmd = [sys.executable, os.path.join(HERE, "rc_verdict.py"), self.out, "--name", "rc-x", "--two-vm"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        # Two VMs and no capture: that is a failure of its own.
        self.assertEqual((p.returncode, p.stdout.splitlines()[:2], p.stdout.splitlines()[-1]),
                         (1, ["KTAP version 1", "1..5"], "rc-x: 4 passed, 1 failed"))
        self.assertEqual(subprocess.run(cmd[:-1], capture_output=True, text=True).returncode, 0)
        self.write("b.log", "RC-RESULT 0 server 1 2\r\n# 0 the server's complaint\r\n"
                            "# 0 server: KTAP version 1\r\n")
        p = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stdout.splitlines()[-1]), (1, "rc-x: 3 passed, 2 failed"))
        self.assertIn("not ok 1 clean sroce-sroce ibv_rc_pingpong 16 inline (client 0, server 1)",
                      p.stdout)
        # A failed tool's KTAP quoted in the notes is no document of the stage's.
        self.assertEqual(p.stderr, "# 0 the server's complaint\n# 0 server: KTAP-version 1\n")


if __name__ == "__main__":
    sys.exit(rc_unittest.run(sys.modules[__name__], "rc-verdict-check"))

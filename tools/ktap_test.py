#!/usr/bin/env python3
"""Unit tests of tools/ktap.py, the KTAP parser, with malformed documents
planted among the good ones; and of the shell emitter of
tools/testvm/guest-lib.sh, whose output the parser must read back.

    python3 tools/ktap_test.py           (KTAP on stdout, then its count)
"""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ktap  # noqa: E402


def count(text):
    c = ktap.count_lines(text.splitlines(), "t")
    return c.passed, c.failed, c.skipped


KUNIT = """\
[    3.100000] KTAP version 1
[    3.100001] 1..2
[    3.100002]     KTAP version 1
[    3.100003]     # Subtest: suite
[    3.100004]     1..3
[    3.100005]     ok 1 one
[    3.100006] random: crng init done
[    3.100007]         KTAP version 1
[    3.100008]         # Subtest: param
[    3.100009]         ok 1 p1
[    3.100010]         ok 2 p2 # SKIP not here
[    3.100011]         ok 3 p3
[    3.100012]     # param: pass:2 fail:0 skip:1 total:3
[    3.100013]     ok 2 param
[    3.100014]     ok 3 three
[    3.100015] ok 1 suite
[    3.100016] ok 2 - alone
"""


class Parse(unittest.TestCase):
    def test_flat(self):
        self.assertEqual(count("KTAP version 1\n1..3\nok 1 a\nnot ok 2 b\nok 3 c # SKIP x\n"),
                         (1, 1, 1))

    def test_kunit_nested_leaves(self):
        # The parents (suite, param) count their subtests, not themselves.
        self.assertEqual(count(KUNIT), (5, 0, 1))

    def test_console_prefix_and_noise(self):
        text = "boot noise\nok 7 not a document yet\n" + \
            "".join("guest: " + line + "\n" for line in
                    ["KTAP version 1", "1..2", "ok 1 a", "# diag", "ok 2 b"]) + \
            "\r\nok 3 after the document\nguest: done\n"
        self.assertEqual(count(text), (2, 0, 0))

    def test_carriage_returns(self):
        self.assertEqual(count("KTAP version 1\r\n1..1\r\nok 1 a\r\n"), (1, 0, 0))

    def test_plan_at_end(self):
        self.assertEqual(count("KTAP version 1\nok 1 a\nok 2 b\n1..2\nok 1 noise\n"), (2, 0, 0))

    def test_todo(self):
        self.assertEqual(count("KTAP version 1\n1..2\nok 1 a\nnot ok 2 b # TODO later\n"),
                         (1, 0, 1))

    def test_two_documents(self):
        doc = "KTAP version 1\n1..1\nok 1 a\n"
        self.assertEqual(count(doc + "between\n" + doc), (2, 0, 0))

    def test_old_kunit_subtest_header_first(self):
        text = "KTAP version 1\n1..1\n    # Subtest: s\n    1..2\n    ok 1 a\n" \
            "    not ok 2 b\nnot ok 1 s\n"
        self.assertEqual(count(text), (1, 1, 0))

    def test_failed_leaf_under_ok_parent(self):
        text = "KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    not ok 1 a\nok 1 s\n"
        self.assertEqual(count(text), (0, 1, 0))

    def test_a_count_line_is_no_document(self):
        self.assertEqual(count("stage: 4 passed, 0 failed\n"), (0, 1, 0))


class Malformed(unittest.TestCase):
    """Planted faults: each must count as (at least) one failure."""

    def failed(self, text):
        c = ktap.count_lines(text.splitlines(), "t")
        self.assertGreater(c.failed, 0, text)
        self.assertFalse(c.ok())
        return c

    def test_no_document(self):
        c = self.failed("ok 1 a\nok 2 b\n1..2\n")
        self.assertIn("no KTAP document", c.reasons[0])

    def test_empty(self):
        self.failed("")

    def test_result_line_broken_by_a_kernel_message(self):
        # "not ok 2 b" cut by a printk: its rest reads as a passing result.
        for cut in ("not [   12.345678] sroce: x", "n[ 1.2] x", "not o[ 1.2] x",
                    "ok 2 b[ 1.2] x", "not ok 2[ 1.2] x"):
            c = self.failed("KTAP version 1\n1..2\nok 1 a\n%s\nok 2 b\n" % cut)
            self.assertIn("broken by a kernel message", c.reasons[0], cut)

    def test_noise_and_diagnostics_cut_by_a_kernel_message_are_noise(self):
        self.assertEqual(count("KTAP version 1\n1..2\nok 1 a\nguest: net[ 1.2] eth0 up\n"
                               "# diag [ 1.2] x\nok 2 b\n"), (2, 0, 0))

    def test_plan_too_big(self):
        c = self.failed("KTAP version 1\n1..3\nok 1 a\nok 2 b\n")
        self.assertIn("plan 1..3 but 2 results", c.reasons[0])

    def test_plan_too_small(self):
        self.failed("KTAP version 1\n1..1\nok 1 a\nok 2 b\n")

    def test_no_plan(self):
        c = self.failed("KTAP version 1\nok 1 a\nok 2 b\n")
        self.assertIn("no plan", c.reasons[0])

    def test_truncated_subtest(self):
        # A crash in the middle of a subtest: no result line for it.
        self.failed("KTAP version 1\n1..1\n    KTAP version 1\n    1..3\n    ok 1 a\n")

    def test_truncated_subtest_then_parent_goes_on(self):
        self.failed("KTAP version 1\n1..2\n    KTAP version 1\n    1..2\n    ok 1 a\nok 2 b\n")

    def test_subtest_plan_disagrees(self):
        self.failed("KTAP version 1\n1..1\n    KTAP version 1\n    1..3\n    ok 1 a\nok 1 s\n")

    def test_not_ok_parent_with_passing_subtests(self):
        c = self.failed("KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    ok 1 a\nnot ok 1 s\n")
        self.assertEqual(c.passed, 1)

    def test_second_plan(self):
        self.failed("KTAP version 1\n1..1\n1..1\nok 1 a\n")

    def test_only_skips(self):
        # Nothing failed, but nothing passed either: count fails it.
        c = ktap.count_lines(["KTAP version 1", "1..1", "ok 1 a # SKIP"], "t")
        self.assertEqual((c.passed, c.failed, c.skipped), (0, 0, 1))
        self.assertFalse(c.ok())

    def test_diagnostic_quoting_a_header(self):
        self.failed("KTAP version 1\n1..2\nnot ok 1 a\n# saw: KTAP version 1\nok 2 b\n")


class Emitter(unittest.TestCase):
    """The shell emitter of guest-lib.sh, read back by the parser."""

    def run_sh(self, script, shell="sh"):
        lib = os.path.join(HERE, "testvm", "guest-lib.sh")
        p = subprocess.run([shell, "-c", "KTAP_ONLY=1 . %s; %s" % (lib, script)],
                           capture_output=True, text=True, check=False,
                           env=dict(os.environ, KTAP_STATE="/tmp/ktap_test.%d" % os.getpid()))
        return p.stdout, p.returncode

    def test_plan_at_end(self):
        out, rc = self.run_sh('ktap_begin; ktap_ok "a # b"; (ktap_ok in a subshell); '
                              'ktap_skip c "no kmemleak"; ktap_check 0 d; ktap_diag "x"; ktap_end')
        self.assertEqual(rc, 0)
        self.assertEqual(out.splitlines()[-1], "1..4")
        self.assertEqual(count(out), (3, 0, 1))

    def test_plan_up_front_and_failure(self):
        out, rc = self.run_sh("ktap_begin 2; ktap_fail a; ktap_check 1 b; ktap_end")
        self.assertNotEqual(rc, 0)
        self.assertEqual(out.splitlines()[1], "1..2")
        self.assertEqual(count(out), (0, 2, 0))

    def test_run(self):
        # A command's own document nested as a subtest, its result by its
        # exit status: a failing exit under passing subtests still fails.
        out, rc = self.run_sh('ktap_begin; ktap_run good sh -c "echo KTAP version 1; echo ok 1 a; '
                              'echo 1..1"; ktap_run bad sh -c "echo KTAP version 1; echo ok 1 b; '
                              'exit 3"; echo "st=$?"; ktap_end')
        self.assertIn("st=3", out)
        self.assertNotEqual(rc, 0)
        self.assertEqual(count(out), (2, 1, 0))

    def test_subtest(self):
        out, _ = self.run_sh("ktap_begin 1; ktap_ok x; ktap_end")
        path = "/tmp/ktap_test_sub.%d" % os.getpid()
        with open(path, "w") as f:
            f.write("console: " + "\nconsole: ".join(out.splitlines()) + "\n")
        sub = subprocess.run([sys.executable, os.path.join(HERE, "ktap.py"), "subtest",
                              "--name", "guest", "--number", "1", path],
                             capture_output=True, text=True, check=False).stdout
        os.unlink(path)
        self.assertEqual(count("KTAP version 1\n1..1\n" + sub), (1, 0, 0))


if __name__ == "__main__":
    # KTAP out, so that run-tests.sh counts this stage like the others.
    sys.exit(ktap.run_unittests(sys.modules[__name__], "ktap-check"))

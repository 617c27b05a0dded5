#!/usr/bin/env python3
"""Unit tests of the rc test's plan (rc_plan.py): for each option set of
rc_plan_test.golden (those of make test and others), rc_plan.py and
rc-test.sh --dry-run give the stored plan byte for byte; bad pairings are
refused; the table's counts.

    python3 tools/testvm/rc_plan_test.py    (prints "rc-plan-check: P passed, F failed")
    python3 tools/testvm/rc_plan_test.py --update

--update: after a deliberate change of the plan, stores rc_plan.py's plans
as the golden ones (same option sets, same header); review its diff.
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "ackrate"))
import rc_plan  # noqa: E402
import rc_unittest  # noqa: E402

RC_TEST = os.path.join(HERE, "rc-test.sh")


GOLDEN = os.path.join(HERE, "rc_plan_test.golden")


def golden():
    """[(rc-test.sh's options, the plan's text)] of the golden file."""
    out = []
    with open(GOLDEN) as f:
        for ln in f:
            if ln.startswith("== "):
                out.append((shlex.split(ln[3:]), []))
            elif out and not ln.startswith("#"):
                out[-1][1].append(ln)
    return [(args, "".join(text)) for args, text in out]


def plan_options(args):
    """rc-test.sh's options -> rc_plan.setup()'s arguments."""
    kw = {"flavour": args[0]}
    it = iter(args[1:])
    for a in it:
        if a.startswith("--pairs="):
            kw["pairs"] = a.split("=", 1)[1]
        elif a in ("--pairs", "--lossy-pairs", "--only"):
            kw[a[2:].replace("-", "_")] = next(it)
        else:
            kw[a[2:]] = True
    return kw


def plan_text(**kw):
    return "".join(c + "\n" for c in rc_plan.setup(**kw)["checks"])


class Golden(unittest.TestCase):
    def test_the_table_gives_the_stored_plans(self):
        sets = golden()
        self.assertGreaterEqual(len(sets), 10)
        for args, want in sets:
            with self.subTest(args=args):
                self.assertEqual(plan_text(**plan_options(args)), want)

    def test_rc_test_dry_run_prints_the_stored_plans(self):
        for args, want in golden():
            with self.subTest(args=args):
                p = subprocess.run([RC_TEST] + args + ["--dry-run"], capture_output=True, text=True)
                self.assertEqual((p.returncode, p.stdout), (0, want))


class Options(unittest.TestCase):
    def test_bad_pairings_are_refused(self):
        for args in (["--pairs", "bogus"], ["--lossy-pairs", "loop-rxe"], ["--pairs", ""],
                     ["--pairs", "rxe-rxe", "--only", "("], ["--frob"]):
            with self.subTest(args=args):
                p = subprocess.run([RC_TEST, "debug"] + args + ["--dry-run"], capture_output=True,
                                   text=True)
                self.assertEqual((p.returncode, p.stdout), (2, ""))
                self.assertIn("rc-test.sh", p.stderr)	# the usage
        with self.assertRaises(rc_plan.PlanError):
            rc_plan.setup(pairs="rxe-rxe,loop-x")

    def test_write_gives_the_files_and_the_drivers_variables(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        p = subprocess.run([sys.executable, os.path.join(HERE, "rc_plan.py"), "--quick", "--pairs",
                            "sroce-sroce,loop-rxe", "--lossy-pairs", "sroce-rxe", "--write", d],
                           capture_output=True, text=True, check=True)
        self.assertEqual(p.stdout, "two=(sroce-sroce sroce-rxe)\nloops=(loop-rxe)\n"
                                   "rounds=(clean loss1 mix)\nneed_sroce=1 n=83\n")
        with open(os.path.join(d, "rc-plan")) as f:
            self.assertEqual(f.read(), plan_text(quick=True, pairs="sroce-sroce,loop-rxe",
                                                 lossy_pairs="sroce-rxe"))
        with open(os.path.join(d, "rc-rounds")) as f:
            self.assertEqual(f.read(), "clean -\nloss1 loss 1%\n"
                                       "mix loss 5% duplicate 1% delay 2ms reorder 10%\n")

    def test_rxe_only_needs_no_sroce(self):
        self.assertFalse(rc_plan.setup(pairs="rxe-rxe,loop-rxe", lossy=True)["need_sroce"])


class Table(unittest.TestCase):
    def count(self, rnd, pair, quick):
        return sum(1 for c in rc_plan.setup(pairs=pair, lossy=True, quick=quick)["checks"]
                   if c.split()[1] == rnd)

    def test_checks_per_pairing_and_round(self):
        for quick, clean in ((False, 51), (True, 40)):
            self.assertEqual(self.count("clean", "rxe-rxe", quick), clean)
            self.assertEqual(self.count("clean", "loop-sroce", quick), clean)
            self.assertEqual(self.count("loss1", "rxe-sroce", quick), 3)
            self.assertEqual(self.count("loss1", "sroce-rxe", quick), 2)
            self.assertEqual(self.count("mix", "sroce-sroce", quick), 2)
            self.assertEqual(self.count("mix", "rxe-rxe", quick), 1)

    def test_labels_are_unique_within_a_round(self):
        for rnd in ("clean", "loss1", "mix"):
            labels = [r["label"].split()[0] for r in rc_plan.rows() if rnd in r["rounds"]]
            self.assertEqual(len(labels), len(set(labels)), rnd)

    def test_rows_are_well_formed(self):
        rounds = {name for name, _ in rc_plan.ROUNDS}
        for r in rc_plan.rows():
            with self.subTest(label=r["label"]):
                self.assertIn(r["kind"], ("pp", "pt", "it", "cm"))
                self.assertLessEqual(set(r["rounds"]), rounds)
                self.assertNotEqual(r["full"], "no")
                for n in (r["full"], r["quick"]):
                    self.assertTrue(n in ("-", "no") or n.isdigit(), n)


def update():
    sets = golden()
    with open(GOLDEN) as f:
        head = [ln for ln in f.read().splitlines(True) if ln.startswith("#")]
    with open(GOLDEN, "w") as f:
        f.write("".join(head))
        for args, _ in sets:
            f.write(f"== {shlex.join(args)}\n{plan_text(**plan_options(args))}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        sys.exit(update())
    sys.exit(rc_unittest.run(sys.modules[__name__], "rc-plan-check"))

#!/usr/bin/env python3
"""Do two revisions of rc-test.sh judge a run alike?

    rc_compare.py REV RUNDIR FLAVOUR [OPTIONS...]

Reanalyzes (rc-test.sh FLAVOUR OPTIONS --reanalyze) a copy of the run
directory RUNDIR (a build/rc-FLAVOUR of an earlier run) with the
rc-test.sh of git revision REV and with the working tree's, each in a
scratch tree of its own, and compares their verdicts byte for byte: the
rc-check and rc-capture lines, the last line, the exit status, and the
files the verdicts write (capture.txt, capture-workloads.txt,
capture.json, the consoles without CRs).  A KTAP document (rc-test.sh
since the plan became a table) is read back into the "rc-check: PASS|FAIL"
and "rc-capture:" lines it replaced, less the results that stand for the
run itself (a failed VM run, no check passed), which the old script only
counted.  Prints the differences; exits 1 if there are any.
"""
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FILES = ("capture.txt", "capture-workloads.txt", "capture.json", "a.log.txt", "b.log.txt")
RUN_RESULTS = ("no check passed", "VM run failed")


def legacy(text):
    """rc-test.sh's stdout as the lines of before KTAP."""
    out = []
    for ln in text.splitlines():
        if ln == "KTAP version 1" or ln.startswith("1.."):
            continue
        if ln.startswith("ok "):
            ln = "rc-check: PASS " + ln.split(" ", 2)[2]
        elif ln.startswith("not ok "):
            desc = ln.split(" ", 3)[3]
            if desc.startswith(RUN_RESULTS):
                continue
            ln = "rc-check: FAIL " + desc
        elif ln.startswith("# "):
            ln = ln[2:]
        out.append(ln)
    return out


def reanalyze(tree, rundir, args):
    """Judge a copy of RUNDIR in TREE: (stdout's lines, exit status, {file: bytes})."""
    out = os.path.join(tree, "build", "rc-" + args[0])
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(rundir, out, symlinks=True)
    p = subprocess.run([os.path.join(tree, "tools", "testvm", "rc-test.sh")] + args + ["--reanalyze"],
                       cwd=tree, capture_output=True, text=True)
    files = {}
    for f in FILES:
        if os.path.exists(os.path.join(out, f)):
            with open(os.path.join(out, f), "rb") as fh:
                files[f] = fh.read()
    return [ln.replace(tree, "TREE") for ln in legacy(p.stdout)], p.returncode, files


def main(argv):
    if len(argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    rev, rundir, args = argv[0], os.path.abspath(argv[1]), argv[2:]
    scratch = tempfile.mkdtemp()
    try:
        trees = {}
        for name, src in (("old", rev), ("new", None)):
            t = trees[name] = os.path.join(scratch, name)
            os.makedirs(t)
            if src:
                arc = subprocess.run(["git", "-C", TOP, "archive", src, "tools"], capture_output=True,
                                     check=True).stdout
                subprocess.run(["tar", "-x", "-C", t], input=arc, check=True)
            else:
                shutil.copytree(os.path.join(TOP, "tools"), os.path.join(t, "tools"), symlinks=True)
        old, new = (reanalyze(trees[n], rundir, args) for n in ("old", "new"))
    finally:
        shutil.rmtree(scratch)
    bad = list(difflib.unified_diff(old[0], new[0], rev, "working tree", lineterm=""))
    if old[1] != new[1]:
        bad.append(f"exit status {old[1]} (old) != {new[1]} (new)")
    bad += [f"{f} differs" for f in FILES if old[2].get(f) != new[2].get(f)]
    print("\n".join(bad) if bad else
          f"same: {len(old[0])} lines, exit status {old[1]}, last line {old[0][-1] if old[0] else ''}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

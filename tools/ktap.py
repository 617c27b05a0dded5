#!/usr/bin/env python3
"""KTAP (version 1, the kernel's Documentation/dev-tools/ktap.rst): the one
result format of sroce's tests, and its one parser.

    python3 tools/ktap.py count --name NAME [FILE...]
    python3 tools/ktap.py subtest --name NAME --number N [FILE...]

count: prints "NAME: P passed, F failed" (", S skipped" when S > 0) over
the KTAP documents found in the FILEs (standard input if none) and exits 0
only if F == 0 and P > 0.  Leaf results count: a result with subtests
counts its subtests, not itself.  "ok" passes, "not ok" fails, a "# SKIP"
(and a "# TODO") directive skips.  Each of these is one failure more,
named on standard error: no document at all, a document with no plan, a
plan that disagrees with the results found, a truncated document (a
subtest with no result line), a "not ok" parent none of whose subtests
failed; and a FILE with no document at all (a "name: P passed, F failed"
line or an exit status counts for nothing).

subtest: prints the documents of the FILEs as a subtest of a document
being written (each line indented by four spaces, one document after the
other under a "# Subtest: NAME" header with a plan over them), then its
result line "ok N NAME" ("not ok N NAME" when count would fail them).

Around and inside documents the parser skips what is not KTAP: console
noise, kernel messages.  From each line it strips a carriage return, a
kernel timestamp "[   12.345678] " and the prefix that stood before the
document's "KTAP version" line (as kunit.py does); a line without that
prefix is noise.
"""

import argparse
import re
import sys

VERSION = re.compile(r"(K?TAP) version (\d+)\s*$")
TIMESTAMP = re.compile(r"^(<\d+>)?\[\s*\d+\.\d+\]\s?")
PLAN = re.compile(r"^1\.\.(\d+)\s*$")
RESULT = re.compile(r"^(not ok|ok)\s+(\d+)\b\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$")
SUBTEST = re.compile(r"^#\s*Subtest:\s*(.*)$")
KTAP_LINE = re.compile(r"^(K?TAP version|1\.\.\d|(not )?ok \d|#)")
# A kernel message that landed inside a line the guest was writing: the
# console interleaves the two at any character, so "not ok 5 x" can arrive
# as "not [  12.3] sroce: ..." and, on the next line, "ok 5 x".
MIDLINE_TIMESTAMP = re.compile(r"\[\s*\d+\.\d+\]")


class Counts:
    """Leaf counts and the reasons for the failures that are no result."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.reasons = []

    def problem(self, why):
        self.failed += 1
        self.reasons.append(why)

    def add(self, other):
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        self.reasons += other.reasons

    def ok(self):
        return self.failed == 0 and self.passed > 0

    def line(self, name):
        s = "%s: %d passed, %d failed" % (name, self.passed, self.failed)
        return s + (", %d skipped" % self.skipped if self.skipped else "")


class Frame:
    """A document or subtest being read: its indent, plan and results."""

    def __init__(self, indent, name):
        self.indent = indent
        self.name = name
        self.plan = None
        self.plan_last = False
        self.results = 0
        self.counts = Counts()
        self.child = None       # the subtest the next result line closes


def directive(text):
    """SKIP or TODO, from a result's directive text, else None."""
    word = (text or "").strip().split(" ", 1)[0].upper()
    return word if word in ("SKIP", "TODO") else None


def close(frame, where, truncated=False):
    """The counts of a finished frame: its plan against its results."""
    c = frame.counts
    if frame.plan is not None and frame.plan != frame.results:
        c.problem("%s: plan 1..%d but %d results" % (where, frame.plan, frame.results))
    elif truncated and frame.plan is None:
        c.problem("%s: truncated after %d results (no plan)" % (where, frame.results))
    return c


def documents(lines):
    """The lines of each KTAP document in LINES, prefix and noise stripped:
    a list of documents, each a list of lines."""
    docs = []
    cur = None
    prefix = ""
    for raw in lines:
        line = TIMESTAMP.sub("", raw.rstrip("\r\n").replace("\r", ""))
        m = VERSION.search(line)
        if m and cur is not None and line.startswith(prefix) and \
                line[len(prefix):].lstrip(" ").startswith("#"):
            m = None        # a diagnostic of the document that quotes a header
        if m:
            pre = line[:m.start()]
            nested = (cur is not None and pre.startswith(prefix) and
                      len(pre) > len(prefix) and not pre[len(prefix):].strip())
            if not nested:
                # A new top-level document (an indented header opens a
                # subtest of the current one).
                prefix = pre
                cur = [line[m.start():]]
                docs.append(cur)
                continue
        if cur is not None and line.startswith(prefix):
            cur.append(line[len(prefix):])
    return docs


def broken_result(body):
    """True for a line whose start is a result line's ("ok ...", "not ok
    ...", or a prefix of "not ok") and which a kernel timestamp cuts."""
    m = MIDLINE_TIMESTAMP.search(body)
    if not m or m.start() == 0:
        return False
    pre = body[:m.start()].strip()
    return bool(pre) and (pre.startswith(("ok", "not ok")) or "not ok".startswith(pre))


def parse(doc, where):
    """(counts, end) of one document (its lines as documents() gives
    them); doc[:end] is the document without the noise after it."""
    top = Frame(0, where)
    stack = [top]
    done = False
    end = len(doc)
    for i, line in enumerate(doc[1:], 1):
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if not done and broken_result(body):
            # What follows may read as a whole result ("ok 5 x" of a
            # "not ok 5 x"): the document cannot be trusted.
            top.counts.problem("%s: a result line broken by a kernel message: %r"
                               % (where, body.strip()))
            continue
        plan = PLAN.match(body)
        result = RESULT.match(body)
        header = VERSION.match(body)
        sub = SUBTEST.match(body)
        if not (plan or result or header or sub):
            continue        # a diagnostic, or noise inside the document
        if done:
            # After the last result, noise; but a result that numbers on
            # is one more than the plan said.
            if result and indent == 0 and int(result.group(2)) == top.results + 1:
                top.results += 1
                end = i + 1
            continue
        if indent % 4 or indent > stack[-1].indent + 4:
            continue        # not at a depth of this document: noise
        while indent < stack[-1].indent:
            f = stack.pop()
            parent = stack[-1]
            if result and indent == parent.indent and parent.child is f:
                break       # the result line that closes subtest f
            # A line of a shallower level: subtest f ended with no result.
            parent.child = None
            parent.counts.add(close(f, f.name, truncated=True))
            parent.counts.problem("%s: subtest ended with no result line" % f.name)
        cur = stack[-1]
        if indent > cur.indent:
            # The first line of a subtest of cur.
            f = Frame(indent, "%s.%d" % (cur.name, cur.results + 1))
            cur.child = f
            stack.append(f)
            cur = f
        if header:
            continue
        if sub:
            cur.name = sub.group(1).strip() or cur.name
            continue
        if plan:
            if cur.plan is not None:
                cur.counts.problem("%s: a second plan" % cur.name)
            else:
                # Up front, or at the end for a count not known up front.
                cur.plan = int(plan.group(1))
                cur.plan_last = cur.results > 0
                if cur is top and cur.plan_last:
                    done, end = True, i + 1
            continue
        # A result line of cur.
        cur.results += 1
        ok = result.group(1) == "ok"
        desc = result.group(3) or "#%s" % result.group(2)
        how = directive(result.group(4))
        kids, cur.child = cur.child, None
        if cur is top and top.plan is not None and top.results == top.plan:
            done, end = True, i + 1
        if kids is not None:
            kc = close(kids, desc)
            cur.counts.add(kc)
            if kids.results > 0:
                if not ok and how is None and kc.failed == 0:
                    cur.counts.problem("%s: not ok, but none of its subtests failed" % desc)
                continue
        if how:
            cur.counts.skipped += 1
        elif ok:
            cur.counts.passed += 1
        else:
            cur.counts.problem("%s: not ok" % desc)
    while len(stack) > 1:
        f = stack.pop()
        stack[-1].counts.add(close(f, f.name, truncated=True))
        stack[-1].counts.problem("%s: truncated (no result line)" % f.name)
    c = top.counts
    if top.plan is None:
        c.problem("%s: no plan (a truncated document cannot be told from a whole one)" % where)
    elif top.plan != top.results:
        c.problem("%s: plan 1..%d but %d results (truncated?)" % (where, top.plan, top.results))
    return c, end


def count_lines(lines, where):
    """Counts of all documents in LINES (a list of str)."""
    c = Counts()
    docs = documents(lines)
    for i, d in enumerate(docs):
        c.add(parse(d, "%s#%d" % (where, i + 1) if len(docs) > 1 else where)[0])
    if not docs:
        c.problem("%s: no KTAP document" % where)
    return c


def read(files):
    """(name, lines) of each FILE, or of standard input."""
    if not files:
        return [("stdin", sys.stdin.read().splitlines())]
    out = []
    for f in files:
        try:
            with open(f, encoding="utf-8", errors="replace") as fh:
                out.append((f, fh.read().splitlines()))
        except OSError as e:
            out.append((f, None))
            print("ktap: %s: %s" % (f, e.strerror), file=sys.stderr)
    return out


def count_files(files):
    c = Counts()
    for name, lines in read(files):
        if lines is None:
            c.problem("%s: cannot be read" % name)
        else:
            c.add(count_lines(lines, name))
    return c


def run_unittests(module, name):
    """Run MODULE's unittest cases as a KTAP document on stdout (one result
    per test, a failure's traceback as diagnostics), then its count line
    "NAME: P passed, F failed"; returns the exit status for sys.exit."""
    import unittest
    loader = unittest.defaultTestLoader

    def flat(suite):
        for t in suite:
            if isinstance(t, unittest.TestSuite):
                yield from flat(t)
            else:
                yield t
    tests = list(flat(loader.loadTestsFromModule(module)))
    print("KTAP version 1")
    print("1..%d" % len(tests))
    c = Counts()
    for i, t in enumerate(tests, 1):
        r = unittest.TestResult()
        t.run(r)
        bad = r.failures + r.errors
        desc = t.id().split(".", 1)[-1]
        if bad:
            c.problem(desc)
            print("not ok %d %s" % (i, desc))
            for _, tb in bad:
                for line in tb.splitlines():
                    print("# " + line)
        elif r.skipped:
            c.skipped += 1
            print("ok %d %s # SKIP %s" % (i, desc, r.skipped[0][1].replace("\n", " ")))
        else:
            c.passed += 1
            print("ok %d %s" % (i, desc))
    print(c.line(name))
    return 0 if c.ok() else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sp = ap.add_subparsers(dest="cmd", required=True)
    p = sp.add_parser("count")
    p.add_argument("--name", required=True)
    p.add_argument("files", nargs="*")
    p = sp.add_parser("subtest")
    p.add_argument("--name", required=True)
    p.add_argument("--number", type=int, required=True)
    p.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    if a.cmd == "count":
        c = count_files(a.files)
        for r in c.reasons:
            print("ktap: %s" % r, file=sys.stderr)
        print(c.line(a.name))
        return 0 if c.ok() else 1
    # subtest
    c = Counts()
    docs = []
    for name, lines in read(a.files):
        if lines is None:
            c.problem("%s: cannot be read" % name)
            continue
        c.add(count_lines(lines, name))
        docs += documents(lines)
    print("    KTAP version 1")
    print("    # Subtest: %s" % a.name)
    print("    1..%d" % len(docs))
    for i, d in enumerate(docs):
        dc, end = parse(d, "%s#%d" % (a.name, i + 1))
        for line in d[:end]:
            if KTAP_LINE.match(line.lstrip(" ")):
                print("        " + line)
        print("    %s %d %s.%d" % ("ok" if dc.ok() else "not ok", i + 1, a.name, i + 1))
    for r in c.reasons:
        print("    # %s" % r)
    print("%s %d %s" % ("ok" if c.ok() else "not ok", a.number, a.name))
    return 0


if __name__ == "__main__":
    sys.exit(main())

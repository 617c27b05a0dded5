#!/usr/bin/env python3
"""GoogleTest's XML report (--gtest_output=xml) as KTAP, for tools/ktap.py:

    python3 tools/utest/gtest_ktap.py RESULTS.XML [EXIT-STATUS]

One result per test case: "ok N Suite.Name", "not ok N Suite.Name # <the
failure's first line>", or "ok N Suite.Name # SKIP" for a skipped or
disabled one.  With EXIT-STATUS (the test binary's), one result more: that
it exited cleanly.  A report that cannot be read is one failed result.
"""

import sys
import xml.etree.ElementTree as ET


def results(path):
    """(ok, description, directive) per test case of the report."""
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        desc = "%s.%s" % (case.get("classname", "?"), case.get("name", "?"))
        fails = case.findall("failure") + case.findall("error")
        if fails:
            why = (fails[0].get("message") or "failed").splitlines()[0]
            out.append((False, desc, why))
        elif case.get("result") != "completed" or case.get("status") == "notrun":
            out.append((True, desc, "SKIP %s" % case.get("result", "not run")))
        else:
            out.append((True, desc, ""))
    return out


def main(argv):
    try:
        res = results(argv[1])
    except (OSError, ET.ParseError) as e:
        res = [(False, "GoogleTest's report %s" % argv[1], str(e))]
    if len(argv) > 2:
        res.append((argv[2] == "0", "the test binary exited cleanly", "exit %s" % argv[2]))
    print("KTAP version 1")
    print("1..%d" % len(res))
    for i, (ok, desc, why) in enumerate(res, 1):
        line = "%s %d %s" % ("ok" if ok else "not ok", i, desc.replace("#", "_"))
        print(line + (" # " + why if why else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

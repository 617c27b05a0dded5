"""The runner of the rc test's unit tests (rc_verdict_test.py, rc_plan_test.py)."""
import os
import sys


def run(module, name):
    """Run MODULE's tests as a KTAP document (tools/ktap.py's runner), then
    "NAME: P passed, F failed"; the exit status."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import ktap  # noqa: E402
    return ktap.run_unittests(module, name)

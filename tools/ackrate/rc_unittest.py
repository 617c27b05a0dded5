"""The runner of the rc test's unit tests (rc_verdict_test.py, rc_plan_test.py)."""
import unittest


def run(module, name):
    """Run MODULE's tests verbosely; print "NAME: P passed, F failed"; the exit status."""
    res = unittest.TextTestRunner(verbosity=2).run(unittest.defaultTestLoader.loadTestsFromModule(module))
    failed = len(res.failures) + len(res.errors)
    print(f"{name}: {res.testsRun - failed} passed, {failed} failed")
    return 1 if failed else 0

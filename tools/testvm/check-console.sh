#!/usr/bin/env bash
# Fail if a console log shows a kernel oops, BUG, WARN, KASAN report,
# lockdep splat, hung task or kmemleak report.
#   tools/testvm/check-console.sh CONSOLE.log
#   tools/testvm/check-console.sh --pattern      (the rules, one regex)
# The rules are tools/testvm/vm.py's REPORT_PATTERN.
exec python3 "$(dirname "$0")/vm.py" check-console "$@"

#!/bin/sh
# group-selftest: a run whose guest script fails (planted).
. /sroce/guest-lib.sh
echo "group-selftest: VM $ROLE fails on purpose"
exit 3

#!/bin/sh
# group-selftest: a run whose script passes while the kernel log shows a
# report (planted: a line check-console.sh must catch, at KERN_ERR so the
# console prints it).
. /sroce/guest-lib.sh
echo "<3>WARNING: CPU: 0 PID: 1 at planted by group-selftest" >/dev/kmsg
exit 0

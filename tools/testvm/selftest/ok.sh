#!/bin/sh
# group-selftest: a run that passes (both VMs reach each other), on a link
# with no qdisc left by an earlier run (the reset's job).
. /sroce/guest-lib.sh
if /usr/sbin/tc qdisc show dev eth0 | grep netem; then
	echo "group-selftest: VM $ROLE: an earlier run's netem qdisc is still on eth0"
	exit 12
fi
net_up || exit 10
echo "group-selftest: VM $ROLE ok"
exit 0

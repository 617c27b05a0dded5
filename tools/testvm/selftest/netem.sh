#!/bin/sh
# group-selftest: a run that leaves a lossy netem qdisc on eth0, as rc's
# lossy rounds do (planted): the reset must take it away before the next
# run (ok.sh checks that it did).
. /sroce/guest-lib.sh
net_up || exit 10
/usr/sbin/tc qdisc replace dev eth0 root netem loss 50% || exit 11
/usr/sbin/tc qdisc show dev eth0
exit 0

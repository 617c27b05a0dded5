#!/bin/sh
# stall-selftest (tools/testvm/stall-selftest.sh): both VMs watch their
# own stalls with /sroce/stallmon; VM A asks the host to stop VM B for
# 1500 ms (pair.py's planted stall).  B must see it, A must not.
. /sroce/guest-lib.sh
net_up || exit 10
/sroce/stallmon -t 200 &
mon=$!
if [ "$ROLE" = A ]; then
	sleep 2
	echo "SROCE-PLANT-STALL B 1500"
	sleep 6
else
	sleep 10
fi
kill -TERM $mon
wait $mon

#!/bin/sh
# Guest side of the data-integrity test: VM B serves on the responder
# named in /sroce/responder (sroce), VM A is the stock rxe client.
. /sroce/guest-lib.sh
net_up || exit 10
load_provider "$PROVIDER" || exit 11
dump_stats start
if [ "$ROLE" = B ]; then
	/sroce/sroce_integrity -d "$DEV" -g "$GIDX" -p 18800
else
	/sroce/sroce_integrity -d "$DEV" -g "$GIDX" -p 18800 "$PEER_IP"
fi
rc=$?
dump_stats end
exit $rc

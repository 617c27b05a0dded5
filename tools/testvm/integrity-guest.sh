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
# With /sroce/paged, the payloads must have come in page frags.
if [ "$ROLE" = B ] && [ -f /sroce/paged ] && [ "$PROVIDER" = sroce ]; then
	n=$(rdma statistic show link "$DEV/1" | tr ' ' '\n' | grep -A1 -x rx_paged | tail -n1)
	if [ "${n:-0}" -gt 0 ]; then echo "INTEGRITY rx_paged PASS ($n requests with paged payload)"
	else echo "INTEGRITY rx_paged FAIL (no request arrived with paged payload)"; rc=1; fi
fi
exit $rc

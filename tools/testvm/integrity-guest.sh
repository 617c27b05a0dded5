#!/bin/sh
# Guest side of the data-integrity test: VM B serves on the responder
# named in /sroce/responder (sroce), VM A is the stock rxe client.
. /sroce/guest-lib.sh
# Prints KTAP (guest-lib.sh): the tool's own document as a subtest, and
# the checks of this script.
net_up || exit 10
ktap_begin	# the plan at the end; an early exit leaves it truncated
load_provider "$PROVIDER" || exit 11
dump_stats start
if [ "$ROLE" = B ]; then
	ktap_run server /sroce/sroce_integrity -d "$DEV" -g "$GIDX" -p 18800
else
	ktap_run client /sroce/sroce_integrity -d "$DEV" -g "$GIDX" -p 18800 "$PEER_IP"
fi
rc=$?
dump_stats end
# With /sroce/paged, the payloads must have come in page frags.
if [ "$ROLE" = B ] && [ -f /sroce/paged ] && [ "$PROVIDER" = sroce ]; then
	n=$(rdma statistic show link "$DEV/1" | tr ' ' '\n' | grep -A1 -x rx_paged | tail -n1)
	if [ "${n:-0}" -gt 0 ]; then ktap_ok "rx_paged ($n requests with paged payload)"
	else ktap_fail "rx_paged (no request arrived with paged payload)"; rc=1; fi
fi
ktap_end
exit $rc

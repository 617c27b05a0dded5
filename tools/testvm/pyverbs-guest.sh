#!/bin/sh
# Guest side of the pyverbs test (tools/testvm/pyverbs-test.sh): VM B runs
# the server of tools/pyverbs/sroce_pyverbs.py on the responder named in
# /sroce/responder (sroce), VM A the client on stock rxe.
. /sroce/guest-lib.sh
export PYTHONDONTWRITEBYTECODE=1
net_up || exit 10
load_provider "$PROVIDER" || exit 11
dump_stats start
if [ "$ROLE" = B ]; then
	python3 /sroce/sroce_pyverbs.py -d "$DEV" -g "$GIDX" -p 18900
else
	python3 /sroce/sroce_pyverbs.py -d "$DEV" -g "$GIDX" -p 18900 "$PEER_IP"
fi
rc=$?
dump_stats end
exit $rc

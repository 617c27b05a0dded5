#!/usr/bin/env bash
# Error paths through the real wire: tools/integrity/sroce_integrity -m MODE
# (rnr, bad_rkey, oob_write, oob_read, destroy_qp, misaligned_atomic,
# malformed), server on sroce (VM B),
# client on stock rxe (VM A); VM B checks sroce's counters around each
# scenario, then deletes the device with a client connected and unloads
# sroce (tools/testvm/errors-guest.sh).  Then sroce's response counters at
# the end of the scenarios are checked against the link capture: every ACK,
# NAK, READ response and ATOMIC ACK it counted as sent is on the wire, and
# no other, under all that bad input.
#   tools/testvm/errors-test.sh [normal|debug]
# Prints a KTAP document: both guests' (their checks and each run of the
# tool, a subtest) as subtests, and the host's checks; then its count,
# "errors: P passed, F failed"; exit 0 only if all passed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/pair-test-lib.sh"
pair_setup errors "${1:-debug}"
"$top/tools/deps.sh" libibverbs-dev librdmacm-dev build-essential tshark
make -s -C "$top/tools/integrity" >&2 || { echo "errors: 0 passed, 1 failed"; exit 1; }
rc=0
"$here/run-pair.sh" -A "$here/errors-guest.sh" -B "$here/errors-guest.sh" -o "$out" \
	-k "$flavour" -s -t 900 -f "$top/tools/integrity/sroce_integrity" || rc=1
logs=("$out/a.log" "$out/b.log")
# The counters against the capture: VM B (sroce) is only ever the
# responder here, so each response opcode it sent is one of its counters.
stats=$(tr -d '\r' <"$out/b.log" | sed -n '/^SROCE-STATS-BEGIN end/,/^SROCE-STATS-END end/p' | grep -a '^link ')
ctr() {	# the sum of the named counters
	awk -v names=" $* " '{ for (i = 1; i < NF; i++) if (index(names, " " $i " ")) t += $(i + 1) }
		END { print t + 0 }' <<<"$stats"
}
wire() {	# VM B's frames with these BTH opcodes (decimal)
	local IFS=,	# tshark's set syntax: {13,14}
	tshark -r "$out/link.pcap" -n -Y "ip.src == 10.0.0.2 && infiniband.bth.opcode in {$*}" \
		-T fields -e frame.number 2>/dev/null | wc -l
}
capcheck() {	# NAME COUNTED ON-THE-WIRE [MIN]: equal, and at least MIN
	if [ -n "$stats" ] && [ "$2" -eq "$3" ] && [ "$3" -ge "${4:-0}" ]; then
		ktap_ok "counters agree with the capture: $1 ($2)"
	else
		ktap_fail "counters disagree with the capture: $1: $2 counted, $3 on the wire"
	fi
}
pair_ktap_begin errors
pair_ktap_guest vm-a "$out/a.log"
pair_ktap_guest vm-b "$out/b.log"
{
	# The scenarios draw ACKs, NAKs and RNR NAKs; a READ that fails
	# at transmit (oob_read, mr_access) goes out as a NAK, never as both.
	capcheck "ACK/NAK/RNR NAK" "$(ctr resp_ack resp_nak resp_rnr_nak)" "$(wire 17)" 1
	capcheck "READ responses" "$(ctr resp_read_first resp_read_middle resp_read_last resp_read_only)" \
		"$(wire 13 14 15 16)"
	capcheck "ATOMIC ACKs" "$(ctr resp_atomic_ack)" "$(wire 18)"
} >>"$ktap"
pair_ktap_end errors $rc

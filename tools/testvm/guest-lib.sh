# Sourced by guest scripts (busybox sh).  Network and RDMA set-up helpers,
# and the KTAP emitter of every test script, guest or host: a host script
# sources this file with KTAP_ONLY=1 and gets only the emitter.
#
# KTAP (version 1, the kernel's Documentation/dev-tools/ktap.rst), counted
# by tools/ktap.py:
#   ktap_begin [N]          the header, and the plan if N is known up front
#   ktap_ok DESC            ok N DESC
#   ktap_fail DESC          not ok N DESC
#   ktap_skip DESC WHY      ok N DESC # SKIP WHY
#   ktap_check RC DESC      ok if RC is 0, else not ok
#   ktap_diag TEXT...       a diagnostic line, "# TEXT"
#   ktap_run NAME CMD...    CMD's own KTAP document (stdout and stderr),
#                           indented as a subtest as it prints, then its
#                           result NAME by CMD's exit status (returned)
#   ktap_end                the plan, at the end, if ktap_begin had no N;
#                           fails if any result was "not ok"
# The results are numbered in a file ($KTAP_STATE, one line per result),
# so that a subshell or a pipeline can print them too.
ktap_begin() {
	KTAP_STATE=${KTAP_STATE:-/tmp/ktap-state.$$}
	: >"$KTAP_STATE"
	KTAP_PLAN=${1:-}
	echo "KTAP version 1"
	[ -z "$KTAP_PLAN" ] || echo "1..$KTAP_PLAN"
}
ktap_result() {	# ok|"not ok" DESC [DIRECTIVE]
	echo "$1" >>"$KTAP_STATE"
	set -- "$1" "$(wc -l <"$KTAP_STATE" | tr -d ' ')" "$(printf %s "$2" | tr '#\n' '_ ')" "${3:-}"
	echo "$1 $2 $3${4:+ # $4}"
}
ktap_ok() { ktap_result ok "$*"; }
ktap_fail() { ktap_result "not ok" "$*"; }
ktap_skip() { ktap_result ok "$1" "SKIP ${2:-}"; }
ktap_check() {
	if [ "$1" -eq 0 ]; then shift; ktap_ok "$*"; else shift; ktap_fail "$*"; fi
}
ktap_diag() { printf '%s\n' "$*" | sed 's/^/# /'; }
ktap_run() {
	_ktap_name=$1
	shift
	# No status left from an earlier run: a command side that died
	# before writing its own reads as a failure (255), never as a pass.
	rm -f "$KTAP_STATE.rc"
	{ "$@"; echo $? >"$KTAP_STATE.rc"; } 2>&1 | sed 's/^/    /'
	_ktap_rc=
	[ ! -s "$KTAP_STATE.rc" ] || read -r _ktap_rc <"$KTAP_STATE.rc"
	case $_ktap_rc in '' | *[!0-9]*) _ktap_rc=255 ;; esac
	ktap_check "$_ktap_rc" "$_ktap_name"
	return "$_ktap_rc"
}
ktap_end() {
	[ -n "${KTAP_PLAN:-}" ] || echo "1..$(wc -l <"$KTAP_STATE" | tr -d ' ')"
	! grep -q '^not ok' "$KTAP_STATE"
}
[ -z "${KTAP_ONLY:-}" ] || return 0

# ROLE (from /sroce/role): A is 10.0.0.1, B is 10.0.0.2.  PROVIDER: the
# RDMA provider this VM runs: /sroce/provider if given (run-pair.sh -a/-b),
# else stock rxe on A and /sroce/responder (if given) on B.  /sroce/single
# (run-pair.sh -1): VM A alone, no peer; PEER_IP is its own address.
read -r ROLE < /sroce/role
PROVIDER=rxe
if [ -f /sroce/provider ]; then
	read -r PROVIDER < /sroce/provider
elif [ "$ROLE" = B ] && [ -f /sroce/responder ]; then
	read -r PROVIDER < /sroce/responder
fi
IP=/usr/sbin/ip
case ${ROLE:-A} in
A) MY_IP=10.0.0.1 PEER_IP=10.0.0.2 ;;
*) MY_IP=10.0.0.2 PEER_IP=10.0.0.1 ;;
esac
MY_IP6=fd00::$([ "${ROLE:-A}" = A ] && echo 1 || echo 2)
PEER_IP6=fd00::$([ "${ROLE:-A}" = A ] && echo 2 || echo 1)
if [ -f /sroce/single ]; then
	PEER_IP=$MY_IP PEER_IP6=$MY_IP6
fi

# nic_up: eth0 present.  Debian's stock kernels have virtio_net (and on
# 6.1 virtio_pci) as modules and there is no udev here: load them and wait
# for the netdev.  Where the driver is built in (the test kernels) eth0 is
# already there.
nic_up() {
	[ -e /sys/class/net/eth0 ] && return 0
	modprobe virtio_pci && modprobe virtio_net || { echo "guest: cannot load virtio_net"; return 1; }
	i=0
	while ! [ -e /sys/class/net/eth0 ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || { echo "guest: no eth0 after loading virtio_net"; return 1; }
		sleep 0.1
	done
	echo "guest: eth0 from the virtio_net module"
}

# /sroce/mtu (in both VMs), if given: the link MTU.
net_up() {
	nic_up || return 1
	$IP link set lo up
	[ ! -f /sroce/mtu ] || $IP link set eth0 mtu "$(cat /sroce/mtu)" || return 1
	$IP link set eth0 up
	$IP addr add "$MY_IP/24" dev eth0
	$IP -6 addr add "$MY_IP6/64" dev eth0 nodad
	[ ! -f /sroce/single ] || { echo "guest: network up ($MY_IP, no peer)"; return 0; }
	i=0
	while ! ping -c1 -W1 "$PEER_IP" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 60 ] || { echo "guest: peer $PEER_IP unreachable"; return 1; }
	done
	echo "guest: network up ($MY_IP <-> $PEER_IP)"
}

# load_provider rxe|sroce: load the modules and create the RDMA link.
load_provider() {
	modprobe ib_uverbs || return 1
	case $1 in
	rxe) modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 || return 1
		DEV=rxe0 ;;
	sroce) rdma link add sroce0 type sroce netdev eth0 || return 1
		DEV=sroce0 ;;
	esac
	# The IPv4-mapped RoCEv2 GID shows up a moment after the link.
	i=0
	GIDX=
	while [ -z "$GIDX" ] && [ $i -lt 100 ]; do
		for g in /sys/class/infiniband/$DEV/ports/1/gids/*; do
			case $(cat "$g" 2>/dev/null) in
			0000:0000:0000:0000:0000:ffff:*) GIDX=${g##*/}; break ;;
			esac
		done
		[ -n "$GIDX" ] || { sleep 0.1; i=$((i + 1)); }
	done
	[ -n "$GIDX" ] || { echo "guest: no IPv4 RoCEv2 GID on $DEV"; return 1; }
	# The RoCEv2 GID of the fd00:: address, for IPv6 runs.
	GIDX6=
	i=0
	while [ -z "$GIDX6" ] && [ $i -lt 100 ]; do
		for g in /sys/class/infiniband/$DEV/ports/1/gids/*; do
			case $(cat "$g" 2>/dev/null) in
			fd00:*) GIDX6=${g##*/}; break ;;
			esac
		done
		[ -n "$GIDX6" ] || { sleep 0.1; i=$((i + 1)); }
	done
	echo "guest: $DEV up, IPv4 GID index $GIDX, IPv6 GID index ${GIDX6:-none}"
}

# unload_provider: delete the RDMA link of load_provider and unload its
# module, so that the other provider can load (stock rdma_rxe and sroce
# both bind UDP 4791 and exclude each other).
unload_provider() {
	[ -n "${DEV:-}" ] || return 0
	rdma link delete "$DEV" || return 1
	case $DEV in
	rxe0) rmmod rdma_rxe ;;
	sroce0) rmmod sroce ;;
	esac || return 1
	DEV= GIDX= GIDX6=
}

# Print rdma statistics between markers for the host.
dump_stats() {
	echo "SROCE-STATS-BEGIN $1"
	rdma statistic show link "$DEV/1" 2>/dev/null
	head -n1 /proc/stat	# "cpu user nice system idle iowait irq softirq steal ..."
	echo "SROCE-STATS-END $1"
}

# kmemleak reports an object once two scans in a row found no reference to
# it (the first only records its checksum), and a scan of the KASAN kernel
# takes about 15 s a GiB of guest memory under TCG.  A run booted on its
# own scans twice where it checks; in a shared boot (group-guest.sh exports
# SROCE_GROUP=1) the boot scans twice at its end instead, once for all its
# runs, and tools/testvm/group.py gives each run the objects allocated
# while it ran (from their ages in the report).
#
# leak_scan: scan twice and print the report, which the console check
#   fails the run on; in a shared boot a placeholder, "SROCE-LEAKSCAN-
#   DEFERRED", that group.py takes away once the boot's scan completed and
#   turns into a report line otherwise.
# leak_check DESC: the KTAP check that kmemleak reports nothing (its status
#   too): a skip without kmemleak; in a shared boot a placeholder
#   "SROCE-LEAKCHECK N DESC" that group.py turns into "ok N DESC" or "not
#   ok N DESC".
# scan_twice: the two scans after which the report holds every object
#   unreferenced since before the first (group-guest.sh's closing scan too).
KMEMLEAK=/sys/kernel/debug/kmemleak
have_kmemleak() {
	[ -e $KMEMLEAK ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -e $KMEMLEAK ]
}
scan_twice() {
	echo scan >$KMEMLEAK
	sleep 2
	echo scan >$KMEMLEAK
}
leak_scan() {
	have_kmemleak || return 0
	if [ "${SROCE_GROUP:-}" = 1 ]; then
		echo "SROCE-LEAKSCAN-DEFERRED"
		return 0
	fi
	scan_twice
	cat $KMEMLEAK
}
leak_check() {
	if ! have_kmemleak; then
		ktap_skip "$1" "this kernel has no CONFIG_DEBUG_KMEMLEAK"
		return 0
	fi
	if [ "${SROCE_GROUP:-}" = 1 ]; then
		# Numbered as a result: "SROCE-LEAKCHECK N DESC".
		ktap_result SROCE-LEAKCHECK "$1"
		return 0
	fi
	leak_scan
	! grep -q 'unreferenced object' $KMEMLEAK
	set -- $? "$1"
	ktap_check "$1" "$2"
	return "$1"
}

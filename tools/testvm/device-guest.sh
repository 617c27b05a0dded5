#!/bin/sh
# Guest side of the sroce device test (tools/testvm/device-test.sh).
# VM B owns the sroce device; VM A sends it raw UDP 4791 datagrams.
. /sroce/guest-lib.sh
net_up || exit 10
fail=0
check() {	# check "what" command...
	what=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then ktap_ok "$what"; else
		ktap_fail "$what"; ktap_diag "$(cat /tmp/check.out)"; fail=1; fi
}
not() { ! "$@"; }
port_state() { cat /sys/class/infiniband/sroce0/ports/1/state; }
stat_of() { rdma statistic show link sroce0/1 | tr ' ' '\n' | grep -A1 -x "$1" | tail -n1; }

if [ "$ROLE" = A ]; then
	# Wait until B's device is up (B listens on TCP 5000), then send one
	# short and three full-size datagrams (netcat-openbsd).
	i=0
	until nc.openbsd -z -w1 "$PEER_IP" 5000 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 120 ] || { echo "device-test: B never got ready"; exit 1; }
		sleep 0.5
	done
	printf 'x' | nc.openbsd -u -w1 "$PEER_IP" 4791
	for i in 1 2 3; do
		printf 'abcdefghijklmnopqrstuvwxyz0123456789' | nc.openbsd -u -w1 "$PEER_IP" 4791
	done
	echo "device-test: datagrams sent"
	exit 0
fi

# VM B's checks, in KTAP (guest-lib.sh), the plan at the end.
ktap_begin
modprobe ib_uverbs || exit 11
check "rdma link add autoloads sroce" rdma link add sroce0 type sroce netdev eth0
check "sroce module loaded" grep -q '^sroce ' /proc/modules
check "port ACTIVE" sh -c 'port_state() { cat /sys/class/infiniband/sroce0/ports/1/state; }; port_state | grep -q ACTIVE'
ibv_devinfo -v -d sroce0 >/tmp/devinfo 2>&1
cat /tmp/devinfo | grep -E 'transport|vendor_id|vendor_part_id|state|link_layer|max_qp_rd_atom|active_mtu|max_mtu|phys_port_cnt'
check "librxe attaches (ibv_devinfo)" grep -q 'hca_id:.*sroce0' /tmp/devinfo
check "transport InfiniBand" grep -q 'transport:.*InfiniBand' /tmp/devinfo
check "vendor_id 0xffffff" grep -qE 'vendor_id:[[:space:]]+0xffffff' /tmp/devinfo
check "vendor_part_id 0" grep -qE 'vendor_part_id:[[:space:]]+0$' /tmp/devinfo
check "link_layer Ethernet" grep -q 'link_layer:.*Ethernet' /tmp/devinfo
check "max_qp_rd_atom 128" grep -qE '^[[:space:]]*max_qp_rd_atom:[[:space:]]+128' /tmp/devinfo
check "active_mtu 1024 at eth MTU 1500" grep -qE 'active_mtu:[[:space:]]+1024' /tmp/devinfo
check "pkey 0xffff" sh -c 'cat /sys/class/infiniband/sroce0/ports/1/pkeys/0 | grep -qi 0xffff'
check "RoCEv2 GIDs from ib_core" sh -c 'cat /sys/class/infiniband/sroce0/ports/1/gid_attrs/types/1 | grep -q "RoCE v2"'
# The kernel verbs are on: ib_mad made QP1 (the GSI QP) at registration,
# and ib_cm and rdma_cm attached (the test kernels have no ib_umad).
check "ib_mad's QP1 (GSI) exists" sh -c 'rdma res show qp link sroce0/1 | grep -qE "lqpn 1 .*type GSI"'
check "no ib_mad error at registration" not sh -c 'dmesg | grep -qiE "ib_mad.*(couldn.t|error|fail)"'
# ib_umad (Debian's kernels have it, the test kernels do not) gives the
# port a /dev/infiniband/umadN, as it does stock rxe's.
if grep -q '/ib_umad\.ko' "/lib/modules/$(uname -r)/modules.dep" 2>/dev/null; then
	check "ib_umad loads" modprobe ib_umad
	check "/dev/infiniband/umadN for sroce0 port 1" sh -c '
		for d in /sys/class/infiniband_mad/umad*; do
			[ "$(cat "$d/ibdev")" = sroce0 ] && [ "$(cat "$d/port")" = 1 ] &&
				[ -c "/dev/infiniband/${d##*/}" ] && exit 0
		done
		exit 1'
else
	echo "device-test: note: this kernel has no ib_umad, /dev/infiniband/umadN not checked"
fi
check "second device on the same netdev refused" not rdma link add sroce1 type sroce netdev eth0
check "stock rdma_rxe refuses to load beside sroce" not modprobe rdma_rxe
modprobe 8021q	# a module on the stock kernels, built in on the test kernels
check "VLAN netdev eth0.7 created" $IP link add link eth0 name eth0.7 type vlan id 7
check "sroce on a VLAN netdev refused" not rdma link add sroce1 type sroce netdev eth0.7
check "no device left by the refused VLAN link" not test -e /sys/class/infiniband/sroce1
$IP link del eth0.7

# Drops from VM A: one too short, three whose BTH byte 1 has TVer 2.
busybox nc -l -p 5000 </dev/null >/dev/null 2>&1 &
i=0
while [ "$(stat_of rx_packets)" != 4 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
rdma statistic show link sroce0/1
check "rx_packets 4" test "$(stat_of rx_packets)" = 4
check "rx_drop_too_short 1" test "$(stat_of rx_drop_too_short)" = 1
check "rx_drop_bad_tver 3 (TVer != 0)" test "$(stat_of rx_drop_bad_tver)" = 3
# The optional counters: off by default (all enabled ones must fit one
# netlink message), shown once enabled.
check "optional counter req_core_packets hidden by default" \
	not sh -c 'rdma statistic show link sroce0/1 | grep -qw req_core_packets'
check "optional counter shown once enabled" sh -c 'rdma statistic set link sroce0/1 optional-counters req_core_packets && rdma statistic show link sroce0/1 | grep -qw req_core_packets'

# The GID table follows the netdev's addresses (ib_core's roce_gid_mgmt
# through sroce's netdev): an address added gives a RoCE v2 GID, one
# removed takes it away.
# One grep over the 1024 entries (a cat each took seconds under TCG).
has_gid() {	# has_gid GID: sroce0 has GID (as sysfs prints it) of type RoCE v2
	for g in $(grep -lx "$1" /sys/class/infiniband/sroce0/ports/1/gids/* 2>/dev/null); do
		grep -q "RoCE v2" "/sys/class/infiniband/sroce0/ports/1/gid_attrs/types/${g##*/}" 2>/dev/null &&
			return 0
	done
	return 1
}
wait_gid() {	# wait_gid yes|no GID: up to 5 s for has_gid to say so
	i=0
	while [ $i -lt 50 ]; do
		if has_gid "$2"; then [ "$1" = yes ] && return 0
		else [ "$1" = no ] && return 0; fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# shellcheck disable=SC2046
my_gid=0000:0000:0000:0000:0000:ffff:$(printf '%02x%02x:%02x%02x' $(echo "$MY_IP" | tr . ' '))
check "the IPv4-mapped GID of $MY_IP" wait_gid yes "$my_gid"
$IP addr add 10.77.0.1/24 dev eth0
check "a GID for an IPv4 address added" wait_gid yes 0000:0000:0000:0000:0000:ffff:0a4d:0001
$IP addr del 10.77.0.1/24 dev eth0
check "the GID gone with its address" wait_gid no 0000:0000:0000:0000:0000:ffff:0a4d:0001
$IP -6 addr add fd77::1/64 dev eth0 nodad
check "a GID for an IPv6 address added" wait_gid yes fd77:0000:0000:0000:0000:0000:0000:0001
$IP -6 addr del fd77::1/64 dev eth0
check "the IPv6 GID gone with its address" wait_gid no fd77:0000:0000:0000:0000:0000:0000:0001
check "the checker sees no GID that is not there" not has_gid fd77:0000:0000:0000:0000:0000:0000:0002

# Port state follows the netdev; the MTU follows the netdev's MTU.
$IP link set eth0 down
check "port DOWN with the link down" sh -c 'cat /sys/class/infiniband/sroce0/ports/1/state | grep -q DOWN'
$IP link set eth0 up
sleep 1
check "port ACTIVE again" sh -c 'cat /sys/class/infiniband/sroce0/ports/1/state | grep -q ACTIVE'
check "the GID of $MY_IP there after down and up" wait_gid yes "$my_gid"
$IP link set eth0 mtu 9000 && check "active_mtu 4096 at MTU 9000" sh -c 'ibv_devinfo -d sroce0 | grep -qE "active_mtu:[[:space:]]+4096"'
$IP link set eth0 mtu 1500

# NETDEV_UNREGISTER: unbinding virtio-net removes eth0, and sroce0 must go
# with it, first with no user, then while a process (an ibv_rc_pingpong
# server waiting for its client) holds a user context: the device then
# goes once that process exits.  Rebinding brings eth0 back each time.
vdev=$(basename "$(readlink /sys/class/net/eth0/device)")
vdrv=/sys/bus/virtio/drivers/virtio_net
wait_gone() {	# wait_gone PATH TENTHS
	i=0
	while [ -e "$1" ] && [ $i -lt "$2" ]; do sleep 0.1; i=$((i + 1)); done
	! [ -e "$1" ]
}
rebind_eth0() {
	echo "$vdev" >$vdrv/bind
	i=0
	while ! [ -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	$IP link set eth0 up && $IP addr add "$MY_IP/24" dev eth0
}
echo "$vdev" >$vdrv/unbind
check "eth0 unregistered (virtio-net unbound)" wait_gone /sys/class/net/eth0 50
check "sroce0 removed with its netdev (NETDEV_UNREGISTER)" wait_gone /sys/class/infiniband/sroce0 100
check "sroce still loaded" grep -q '^sroce ' /proc/modules
check "eth0 back after rebinding" rebind_eth0
check "rdma link add on the new eth0" rdma link add sroce0 type sroce netdev eth0
check "port ACTIVE on the new eth0" sh -c 'cat /sys/class/infiniband/sroce0/ports/1/state | grep -q ACTIVE'

ibv_rc_pingpong -d sroce0 -g 1 -p 18999 >/tmp/pp.out 2>&1 &
pp=$!
i=0
until ls -l /proc/$pp/fd 2>/dev/null | grep -q uverbs || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
check "ibv_rc_pingpong holds a user context" sh -c "ls -l /proc/$pp/fd | grep -q uverbs"
echo "$vdev" >$vdrv/unbind &
unb=$!
sleep 2
# No disassociate_ucontext: the device waits for its user, like rxe.
check "sroce0 stays while its user runs" test -e /sys/class/infiniband/sroce0
kill $pp
wait $pp
check "sroce0 removed once the user is gone" wait_gone /sys/class/infiniband/sroce0 200
check "eth0 unregistered" wait_gone /sys/class/net/eth0 200
wait $unb
check "eth0 back after rebinding" rebind_eth0
check "rdma link add after the second unregister" rdma link add sroce0 type sroce netdev eth0

check "rdma link delete" rdma link delete sroce0
check "device gone" not test -e /sys/class/infiniband/sroce0
# Unload with a device still there: sroce unregisters its own devices
# (not by driver id: stock rxe shares RDMA_DRIVER_RXE).
check "rdma link add once more" rdma link add sroce0 type sroce netdev eth0
check "rmmod sroce with sroce0 still registered" rmmod sroce
check "sroce0 gone with the module" not test -e /sys/class/infiniband/sroce0
check "no sroce module left" not grep -q '^sroce ' /proc/modules
check "stock rdma_rxe loads after sroce is gone" modprobe rdma_rxe
rmmod rdma_rxe
leak_check "kmemleak reports nothing after the unload" || fail=1
ktap_end
echo "device-test: done, fail=$fail"
exit $fail

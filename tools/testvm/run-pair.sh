#!/usr/bin/env bash
# Boot two test VMs on one link (tools/testvm/pair.py) and run a guest
# script in each.
#
#   tools/testvm/run-pair.sh -A SCRIPT -B SCRIPT -o OUTDIR
#                            [-k normal|debug|deb6.1|deb6.12] [-f FILE]...
#                            [-s] [-M SROCE.ko] [-t SECONDS] [-i INITRAMFS]
#                            [-P "PARAM=VALUE..."] [-a rxe|sroce] [-b rxe|sroce]
#   tools/testvm/run-pair.sh -1 -A SCRIPT -o OUTDIR [same options]
#
#   -A/-B  scripts run as /sroce/run.sh in VM A (10.0.0.1) and VM B
#          (10.0.0.2); /sroce/guest-lib.sh has the network/RDMA helpers
#   -k     the kernel: a test kernel (normal, debug: tools/testvm/build-
#          kernel.sh) or a Debian stock kernel by its tools/stock-kernels.sh
#          name (deb6.1, deb6.12: the unpacked linux-image-*-unsigned
#          package, tools/testvm/stock-kernel.sh, with its own modules)
#   -f     extra file copied to /sroce/ in both VMs
#   -s     install sroce.ko in both VMs' /lib/modules/<kver>/updates/, so
#          `rdma link add ... type sroce` autoloads it; built with
#          `make module-for` into build/<flavour> against the test kernel's
#          tree or the stock kernel's linux-headers package
#   -M     with -s (implied): install this prebuilt sroce.ko instead of
#          building one (also taken from $SROCE_KO when -s is given); its
#          vermagic must name the kernel booted
#   -t     the budget of the run (default 1200 s); a stock kernel gets
#          60 s more (stock_boot), for its slower boot under TCG
#   -i     the base initramfs flavour (tools/testvm/mkinitramfs.sh;
#          default full)
#   -P     sroce module parameters for VM B (sroce.PARAM=VALUE on its
#          kernel command line, which modprobe applies when it loads sroce)
#   -a/-b  the RDMA provider of VM A / VM B, rxe or sroce: /sroce/provider
#          in that VM, which guest-lib.sh's PROVIDER follows (sroce on
#          either side implies -s).  Without them A runs rxe and B the
#          provider named by a /sroce/responder file (-f), if any, as before
#   -1     one VM only, VM A (10.0.0.1), for loopback tests: its NIC is on
#          a link with no peer, /sroce/single tells guest-lib.sh (PEER_IP
#          is the VM's own address, net_up does not wait for a peer); no
#          -B script; -P applies to VM A
#
# OUTDIR gets a.log, b.log (consoles; no b.log with -1) and link.pcap.
# Fails if a guest script fails, a VM does not finish, or either console
# shows an oops, BUG, WARN, KASAN, lockdep or kmemleak report.
#
# Shared boots (tools/testvm/group.py): with $SROCE_GROUP set to a group
# directory, the run is not booted on its own.  SROCE_GROUP_PHASE=book
# books it into the group (its two /sroce trees and its settings, in the
# order booked) and succeeds at once; group.py then boots the group's
# pair once and runs every booked run in turn, and writes each run's own
# slice of the consoles and of the capture to its OUTDIR.
# SROCE_GROUP_PHASE=replay then judges that slice exactly as a run of its
# own is judged, without booting.
# The harness is tools/testvm/vm.py (run_pair_main).
exec python3 "$(dirname "$0")/vm.py" run-pair "$@"

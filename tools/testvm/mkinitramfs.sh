#!/usr/bin/env bash
# Build (or reuse) the base initramfs for the test VMs.
#
#   tools/testvm/mkinitramfs.sh [base|full|pyverbs]
#
# The root is unpacked from Debian packages, with the host's shared
# libraries they need and tools/testvm/init as /init; "full" adds the RDMA
# userspace, "pyverbs" that and Python 3 with python3-pyverbs.  Cached in
# $SROCE_CACHE/initramfs; the path of the cpio.gz is the last line of
# stdout.  The builder is tools/testvm/vm.py (base_image).
exec python3 "$(dirname "$0")/vm.py" mkinitramfs "$@"

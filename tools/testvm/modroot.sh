#!/usr/bin/env bash
# A cpio.gz of a kernel's modules for the merged-/usr initramfs
# (usr/lib/modules/<ver>, depmod'ed), with extra out-of-tree modules
# under updates/.
#
#   tools/testvm/modroot.sh KDIR [EXTRA.ko...]      -> path on the last line
#   tools/testvm/modroot.sh MODDIR [EXTRA.ko...]
#
# KDIR: a test kernel's build tree (all its modules); MODDIR: an unpacked
# stock kernel's lib/modules/<ver> (only what the tests load).  Cached
# next to the kernel.  The builder is tools/testvm/vm.py (mod_root).
exec python3 "$(dirname "$0")/vm.py" modroot "$@"

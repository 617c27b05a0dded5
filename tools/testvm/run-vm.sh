#!/usr/bin/env bash
# Boot a test kernel in QEMU (TCG), load modules, run a script, power off.
#
#   tools/testvm/run-vm.sh -k KDIR -s SCRIPT [-m MOD.ko]... [-f FILE]...
#                          [-i INITRAMFS] [-t SECONDS] [-l CONSOLE.log]
#                          [-q "extra qemu args"]
#
#   -k  kernel build directory (bzImage under arch/x86/boot/)
#   -s  script run as /sroce/run.sh in the guest; its exit code is the
#       run's result
#   -m  module copied to /sroce/ and insmod'ed before the script, in order
#   -f  extra file copied to /sroce/
#   -i  the base initramfs (default: tools/testvm/mkinitramfs.sh base)
#   -t  hard timeout for the whole VM (default 600 s); the guest script
#       gets the same budget minus 30 s
#   -l  where to keep the console log (default: a temp file, kept in
#       $SROCE_LOG_KEEP or /tmp, path printed)
#
# Fails when the script fails, when the VM does not finish, or when the
# console shows an oops, BUG, WARN, KASAN, lockdep or kmemleak report,
# whatever the script returned.  Leaves no QEMU process behind.
# The harness is tools/testvm/vm.py (run_vm_main).
exec python3 "$(dirname "$0")/vm.py" run-vm "$@"

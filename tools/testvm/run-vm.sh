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
#   -t  hard timeout for the whole VM (default 600 s); the guest script
#       gets the same budget minus 30 s
#   -l  where to keep the console log (default: a temp file, printed path)
#
# Fails when the script fails, when the VM does not finish, or when the
# console shows an oops, BUG, WARN, KASAN, lockdep or kmemleak report,
# whatever the script returned.  Leaves no QEMU process behind.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kdir= script= initrd= log= tmo=600 extra_qemu=
mods=() files=()
while getopts "k:s:m:f:i:t:l:q:" o; do
	case $o in
	k) kdir=$OPTARG ;;
	s) script=$OPTARG ;;
	m) mods+=("$OPTARG") ;;
	f) files+=("$OPTARG") ;;
	i) initrd=$OPTARG ;;
	t) tmo=$OPTARG ;;
	l) log=$OPTARG ;;
	q) extra_qemu=$OPTARG ;;
	*) sed -n '2,20p' "$0" >&2; exit 2 ;;
	esac
done
[ -n "$kdir" ] && [ -n "$script" ] || { sed -n '2,20p' "$0" >&2; exit 2; }
[ -n "$initrd" ] || initrd=$("$here/mkinitramfs.sh" | tail -n1)
bz=$kdir/arch/x86/boot/bzImage
[ -f "$bz" ] || { echo "run-vm: no $bz" >&2; exit 2; }

work=$(mktemp -d)
[ -n "$log" ] || log=$work/console.log
qpid=
cleanup() {
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null || true
		sleep 1
		kill -KILL "$qpid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# Second cpio with the payload, appended to the base initramfs.
mkdir -p "$work/root/sroce"
: >"$work/root/sroce/modules"
for m in "${mods[@]}"; do
	cp "$m" "$work/root/sroce/"
	basename "$m" >>"$work/root/sroce/modules"
done
for f in "${files[@]}"; do cp -r "$f" "$work/root/sroce/"; done
install -m 0755 "$script" "$work/root/sroce/run.sh"
(cd "$work/root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$work/payload.cpio.gz"
cat "$initrd" "$work/payload.cpio.gz" >"$work/initrd.cpio.gz"

guest_tmo=$((tmo > 60 ? tmo - 30 : tmo))
# shellcheck disable=SC2086
qemu-system-x86_64 -machine pc -cpu max -smp 2 -m 2048 -nographic -no-reboot \
	-kernel "$bz" -initrd "$work/initrd.cpio.gz" \
	-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=4 sroce_init.timeout=$guest_tmo rcupdate.rcu_cpu_stall_timeout=300" \
	-serial "file:$log" -monitor none -display none -nic none $extra_qemu &
qpid=$!
timed_out=0
for ((i = 0; i < tmo; i++)); do
	kill -0 "$qpid" 2>/dev/null || break
	sleep 1
done
if kill -0 "$qpid" 2>/dev/null; then
	timed_out=1
	echo "run-vm: VM did not finish within $tmo s" >&2
fi
wait "$qpid" 2>/dev/null || true
qpid=
[ "$log" = "$work/console.log" ] && cp "$log" "${SROCE_LOG_KEEP:-/tmp}/sroce-console-$$.log" &&
	echo "run-vm: console log kept in ${SROCE_LOG_KEEP:-/tmp}/sroce-console-$$.log" >&2

"$here/check-console.sh" "$log" || exit 1
[ $timed_out -eq 0 ] || exit 1
rc=$(sed -n 's/.*SROCE-RESULT rc=\([0-9]*\).*/\1/p' "$log" | tail -n1)
[ -n "$rc" ] || { echo "run-vm: no result marker in the console log" >&2; exit 1; }
exit "$rc"

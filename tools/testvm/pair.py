#!/usr/bin/env python3
"""Boot two test VMs joined by an AF_UNIX socket pair.

    pair.py --kernel BZIMAGE --initrd-a A.cpio.gz --initrd-b B.cpio.gz
            --log-a A.log --log-b B.log [--pcap link.pcap] [--timeout S]
    pair.py --kernel BZIMAGE --initrd-a A.cpio.gz --log-a A.log [...]

Without --initrd-b only VM A boots, its NIC on a link with no peer (the
host drains and drops what it sends): single-VM loopback tests.

     VM A (10.0.0.1) eth0 ==== socketpair(AF_UNIX, SOCK_STREAM) ==== eth0 VM B (10.0.0.2)
                          \\__ filter-dump on A's netdev: both directions -> pcap

Each end of the pair is inherited by one QEMU process as
`-netdev socket,fd=N`: no loss, no Nagle delay (TCP on 127.0.0.1 makes
RDMA retransmit; UDP drops frames under load).  Both VMs are killed at the
deadline; nothing is left behind.  Exit status: 0 if both VMs powered off
by themselves, 1 otherwise.  The guests' own results are in their logs.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import time


def qemu_cmd(kernel, initrd, fd, mac, log, guest_timeout, extra, append=""):
    return [
        "qemu-system-x86_64", "-machine", "q35", "-cpu", "max", "-smp", "1", "-m", "1536",
        "-nographic", "-no-reboot", "-kernel", kernel, "-initrd", initrd,
        "-append", f"console=ttyS0 panic=-1 oops=panic loglevel=5 sroce_init.timeout={guest_timeout} "
                   f"rcupdate.rcu_cpu_stall_timeout=300 {append}".rstrip(),
        "-serial", f"file:{log}", "-monitor", "none", "-display", "none",
        "-netdev", f"socket,id=n0,fd={fd}",
        "-device", f"virtio-net-pci,netdev=n0,mac={mac}",
    ] + extra


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--initrd-a", required=True)
    ap.add_argument("--initrd-b", help="VM B's initramfs; without it only VM A boots")
    ap.add_argument("--log-a", required=True)
    ap.add_argument("--log-b")
    ap.add_argument("--pcap")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--append-b", default="",
                    help="more kernel command line for VM B, e.g. sroce.ack_span_max=0 "
                         "(modprobe hands module.param=value to the module it loads)")
    ap.add_argument("--append-a", default="", help="the same for VM A")
    args = ap.parse_args()
    single = not args.initrd_b
    if not single and not args.log_b:
        ap.error("--initrd-b needs --log-b")

    # SIGTERM (a test's timeout) still stops the VMs, in the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    for s in (a, b):
        os.set_inheritable(s.fileno(), True)
    guest_timeout = max(args.timeout - 30, 30)
    extra_a = []
    if args.pcap:
        extra_a = ["-object", f"filter-dump,id=f0,netdev=n0,file={args.pcap},maxlen=160"]
    procs = []
    try:
        procs.append(subprocess.Popen(
            qemu_cmd(args.kernel, args.initrd_a, a.fileno(), "52:54:00:5e:00:0a", args.log_a,
                     guest_timeout, extra_a, args.append_a),
            pass_fds=[a.fileno()], stdin=subprocess.DEVNULL, start_new_session=True))
        if not single:
            procs.append(subprocess.Popen(
                qemu_cmd(args.kernel, args.initrd_b, b.fileno(), "52:54:00:5e:00:0b", args.log_b,
                         guest_timeout, [], args.append_b),
                pass_fds=[b.fileno()], stdin=subprocess.DEVNULL, start_new_session=True))
            b.close()
        else:
            b.setblocking(False)
        a.close()
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline and any(p.poll() is None for p in procs):
            time.sleep(0.5)
            while single:
                try:
                    if not b.recv(1 << 16):
                        break
                except BlockingIOError:
                    break
        timed_out = any(p.poll() is None for p in procs)
        if timed_out:
            print(f"pair: VMs did not finish within {args.timeout} s", file=sys.stderr)
        return 1 if timed_out or any(p.returncode not in (0, None) for p in procs) else 0
    finally:
        if single:
            b.close()
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        time.sleep(1)
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


if __name__ == "__main__":
    sys.exit(main())

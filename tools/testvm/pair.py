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
import re
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


class Planter:
    """Planted stalls, asked for by a guest: a console line
    "SROCE-PLANT-STALL <A|B> <ms>" stops that VM's QEMU process (SIGSTOP)
    for that long, as a busy host would (tools/testvm/stall-selftest.sh)."""
    RX = re.compile(rb"SROCE-PLANT-STALL ([AB]) ([0-9]+)")

    def __init__(self, vms):
        self.vms = vms                      # name -> (console log, Popen)
        self.seen = {name: 0 for name in vms}

    def poll(self):
        for name, (log, _) in self.vms.items():
            try:
                with open(log, "rb") as f:
                    f.seek(self.seen[name])
                    data = f.read()
            except OSError:
                continue
            end = data.rfind(b"\n") + 1
            self.seen[name] += end
            for m in self.RX.finditer(data[:end]):
                self.stall(m.group(1).decode(), int(m.group(2)))

    def stall(self, name, ms):
        if name not in self.vms or ms > 60000:
            return
        proc = self.vms[name][1]
        if proc.poll() is not None:
            return
        print(f"pair: stopping VM {name} for {ms} ms, as its peer asked", file=sys.stderr)
        os.killpg(proc.pid, signal.SIGSTOP)
        try:
            time.sleep(ms / 1000)
        finally:
            os.killpg(proc.pid, signal.SIGCONT)


def boot(kernel, initrd_a, log_a, initrd_b=None, log_b=None, pcap=None, timeout=900,
         append_a="", append_b=""):
    """Boot VM A (and VM B, given its initramfs) on one link; wait for them
    to power off, at most TIMEOUT seconds.  0 if they all powered off by
    themselves, 1 otherwise.  Nothing is left running."""
    single = not initrd_b
    if not single and not log_b:
        raise ValueError("VM B's initramfs needs its log")
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    for s in (a, b):
        os.set_inheritable(s.fileno(), True)
    guest_timeout = max(timeout - 30, 30)
    extra_a = []
    if pcap:
        extra_a = ["-object", f"filter-dump,id=f0,netdev=n0,file={pcap},maxlen=160"]
    procs = []
    try:
        procs.append(subprocess.Popen(
            qemu_cmd(kernel, initrd_a, a.fileno(), "52:54:00:5e:00:0a", log_a,
                     guest_timeout, extra_a, append_a),
            pass_fds=[a.fileno()], stdin=subprocess.DEVNULL, start_new_session=True))
        if not single:
            procs.append(subprocess.Popen(
                qemu_cmd(kernel, initrd_b, b.fileno(), "52:54:00:5e:00:0b", log_b,
                         guest_timeout, [], append_b),
                pass_fds=[b.fileno()], stdin=subprocess.DEVNULL, start_new_session=True))
            b.close()
        else:
            b.setblocking(False)
        a.close()
        deadline = time.monotonic() + timeout
        planter = Planter({"A": (log_a, procs[0])} if single else
                          {"A": (log_a, procs[0]), "B": (log_b, procs[1])})
        while time.monotonic() < deadline and any(p.poll() is None for p in procs):
            time.sleep(0.5)
            planter.poll()
            while single:
                try:
                    if not b.recv(1 << 16):
                        break
                except BlockingIOError:
                    break
        timed_out = any(p.poll() is None for p in procs)
        if timed_out:
            print(f"pair: VMs did not finish within {timeout} s", file=sys.stderr)
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
    if args.initrd_b and not args.log_b:
        ap.error("--initrd-b needs --log-b")
    # SIGTERM (a test's timeout) still stops the VMs, in boot()'s finally.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    return boot(args.kernel, args.initrd_a, args.log_a, args.initrd_b, args.log_b, args.pcap,
                args.timeout, args.append_a, args.append_b)


if __name__ == "__main__":
    sys.exit(main())

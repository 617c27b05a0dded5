#!/usr/bin/env python3
"""The VM harness's core (tools/testvm/vm.py is its command line):
what a console log says, the one QEMU command line, and boot(): start the
VMs, plant the stalls guests ask for, wait for them to power off at most a
deadline, leave nothing behind."""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass


HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
INIT = os.path.join(HERE, "init")


class HarnessError(Exception):
    """A run cannot be set up; status is the exit code its CLI returns."""

    def __init__(self, msg, status=2):
        super().__init__(msg)
        self.status = status


def cache_dir():
    """$SROCE_CACHE, else ~/.cache/sroce."""
    return os.environ.get("SROCE_CACHE") or os.path.expanduser("~/.cache/sroce")


def say(prog, msg):
    print(f"{prog}: {msg}", file=sys.stderr)


# ---------------------------------------------------------------- console

# What check-console fails a log on, one rule (a regex) a kind of kernel
# report: an oops, BUG, WARN, panic, KASAN or UBSAN report, a lockdep
# splat, a hung task, a kmemleak report, a general protection fault, a
# stack trace; and a run whose leaks no scan looked for (group.py: a
# shared boot's closing scan that did not complete).
REPORT_RULES = ["Oops", "BUG:", "WARNING:", "Kernel panic", "KASAN:", "UBSAN:",
                "possible recursive locking", "possible circular locking",
                "inconsistent lock state", "INFO: task .* blocked", "unreferenced object",
                "general protection fault", "Call Trace:", "kmemleak: .*new suspected",
                "kmemleak: no scan"]
REPORT_PATTERN = "|".join(REPORT_RULES)
REPORT_RX = re.compile(REPORT_PATTERN)
INIT_STARTED = "sroce-init: userspace started"
RESULT_RX = re.compile(r"SROCE-RESULT rc=([0-9]*)")


def read_lines(path):
    """The lines of a console log (bytes decoded leniently, no line ends)."""
    with open(path, "rb") as f:
        return [raw.decode("utf-8", "replace").rstrip("\r\n") for raw in f]


def console_reports(lines):
    """[(line number from 1, line)] of every kernel report in LINES."""
    return [(i, line) for i, line in enumerate(lines, 1) if REPORT_RX.search(line)]


def check_console(log):
    """True if LOG shows no kernel report; else print them, and False."""
    if not os.path.exists(log):
        say("check-console", f"no console log {log}")
        return False
    reports = console_reports(read_lines(log))
    for i, line in reports:
        print(f"{i}:{line}", file=sys.stderr)
    if reports:
        say("check-console", f"kernel reported a problem (above) in {log}")
    return not reports


def init_started(log):
    """LOG shows /init started."""
    return os.path.exists(log) and any(INIT_STARTED in line for line in read_lines(log))


def early_report(log):
    """A kernel report on LOG before /init started, or with no /init at all:
    the emulated boot's own (seen under TCG: a KASAN report in an early
    edge IRQ, before any module is loaded)."""
    if not os.path.exists(log):
        return False
    for line in read_lines(log):
        if INIT_STARTED in line:
            return False
        if REPORT_RX.search(line):
            return True
    return False


def panicked(log):
    """LOG shows a kernel panic."""
    return os.path.exists(log) and any("Kernel panic" in line for line in read_lines(log))


def result_rc(log):
    """The guest script's exit code from the last result marker, or None."""
    rc = None
    for line in read_lines(log):
        m = RESULT_RX.search(line)
        if m and m.group(1):
            rc = int(m.group(1))
    return rc


# ------------------------------------------------------------------ QEMU

# The one default set: every VM the tests boot, a pair's or one of its own.
#
# One vCPU, but room for two ("1,maxcpus=2"): QEMU's TCG (7.2) compiles a
# guest that can only ever have one CPU without parallel semantics, and then
# drops the host barrier of the guest's locked instructions and fences.
# virtio's event-index handshake is a store-then-load on each side (the
# guest publishes avail.idx and reads used_event; QEMU's I/O thread does
# the mirror image): with no barrier on the guest's side both can miss the
# other, the guest does not kick and QEMU never fetches again.  Seen with
# two make compare runs side by side: VM A's TX ring held 238 frames QEMU
# never took, its link dead for good.  With a possible second CPU, TCG
# keeps the barriers (the guest's one CPU runs as fast: rc's checks took
# the same time).  If a link still stops, boot() sees the guest's TX
# watchdog and ends the boot (EMULATOR_FAULT).
DEFAULTS = {"machine": "q35", "smp": "1,maxcpus=2", "memory": 1536, "loglevel": 5}

# The guest CPU: TCG's "max" without CMPXCHG16B.  Debian 12's QEMU (7.2)
# emulates that instruction with a helper that computes the flags from a
# stale condition-code state: after an interrupt's IRET it copies an
# unrelated register into RFLAGS (DF, TF, NT, even the VM bit).  A Debian
# 6.12 guest took a double fault that way in SLUB's fastpath (RFLAGS
# 0x820a2f02: the low half of RDI, from the add before the cmpxchg16b),
# and a leaked DF runs the next memset backwards.  QEMU 8.0 inlined the
# instruction; without CX16 the kernels use their cmpxchg16b emulation
# (this_cpu_cmpxchg16b_emu, interrupts off), and nothing reaches the helper.
CPU = "max,cx16=off"


# A kernel with kmemleak: each leak scan reads every page the guest has
# (the KASAN shadow and the page structs included), about 15 ms a MiB
# under TCG (a shared boot scans twice, at its end: group-guest.sh).  1 GiB
# holds the largest image (pyverbs') and every suite with room to spare.
KMEMLEAK_MEMORY = 1024


def kernel_config(kernel):
    """The .config beside a kernel build's arch/x86/boot/bzImage, or None
    (Debian's images are no build tree)."""
    cfg = os.path.join(os.path.dirname(kernel), "..", "..", "..", ".config")
    return cfg if os.path.isfile(cfg) else None


def memory_for(kernel):
    """The MiB a VM of KERNEL gets: KMEMLEAK_MEMORY where the kernel has
    kmemleak, the default elsewhere."""
    cfg = kernel_config(kernel)
    if cfg:
        with open(cfg, encoding="utf-8", errors="replace") as f:
            if "CONFIG_DEBUG_KMEMLEAK=y\n" in f.read():
                return KMEMLEAK_MEMORY
    return DEFAULTS["memory"]


def guest_budget(timeout):
    """The guest script's own timeout (sroce_init.timeout): the VM's less
    30 s for the boot and the power-off, at least 30 s."""
    return max(timeout - 30, 30)


def qemu_cmd(kernel, initrd, log, guest_timeout, *, machine=DEFAULTS["machine"],
             smp=DEFAULTS["smp"], memory=DEFAULTS["memory"], loglevel=DEFAULTS["loglevel"],
             append="", net_fd=None, mac=None, extra=()):
    """The QEMU (TCG) command line of one test VM.

    KERNEL and INITRD are booted with the console on the serial port,
    written to LOG; GUEST_TIMEOUT is the guest script's budget (init reads
    sroce_init.timeout); APPEND is more kernel command line.  NET_FD: an
    inherited stream socket that is the VM's link (a virtio NIC with MAC),
    or None: no NIC.  EXTRA: more QEMU arguments."""
    cmdline = (f"console=ttyS0 panic=-1 oops=panic loglevel={loglevel} "
               f"sroce_init.timeout={guest_timeout} rcupdate.rcu_cpu_stall_timeout=300 {append}")
    cmd = ["qemu-system-x86_64", "-machine", machine, "-cpu", CPU, "-smp", str(smp),
           "-m", str(memory), "-nographic", "-no-reboot", "-kernel", kernel, "-initrd", initrd,
           "-append", cmdline.rstrip(), "-serial", f"file:{log}", "-monitor", "none",
           "-display", "none"]
    if net_fd is None:
        cmd += ["-nic", "none"]
    else:
        cmd += ["-netdev", f"socket,id=n0,fd={net_fd}",
                "-device", f"virtio-net-pci,netdev=n0,mac={mac}"]
    return cmd + list(extra)


@dataclass
class Vm:
    """One VM to boot: its name (A, B), initramfs, console log and more
    kernel command line."""
    name: str
    initrd: str
    log: str
    append: str = ""


MACS = {"A": "52:54:00:5e:00:0a", "B": "52:54:00:5e:00:0b"}


# A VM's NIC that stopped sending: the guest kernel's TX watchdog (its
# queue stopped, the ring full, for 5 s: "NETDEV WATCHDOG", and
# virtio_net's own "TX timeout on queue").  Nothing sroce does reaches
# that ring (it hands packets to the IP stack, which queues in front of
# it): it is the emulator's fault (see DEFAULTS), and the rest of the
# boot would only wait for its budget on a dead link.
LINK_FAULT_RX = re.compile(rb"NETDEV WATCHDOG|TX timeout on queue")


class Planter:
    """What the consoles ask of the host, read as they grow.  Planted
    stalls: a console line "SROCE-PLANT-STALL <A|B> <ms>" stops that VM's
    QEMU process (SIGSTOP) for that long, as a busy host would
    (tools/testvm/stall-selftest.sh).  And a link fault (LINK_FAULT_RX):
    link_fault names the first VM whose console showed one."""
    RX = re.compile(rb"SROCE-PLANT-STALL ([AB]) ([0-9]+)")

    def __init__(self, vms):
        self.vms = vms                      # name -> (console log, Popen)
        self.seen = {name: 0 for name in vms}
        self.link_fault = None

    def poll(self):
        """Act on the complete lines the consoles got since the last poll."""
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
            if self.link_fault is None and LINK_FAULT_RX.search(data[:end]):
                self.link_fault = name

    def stall(self, name, ms):
        """Stop VM NAME for MS ms (at most a minute; not when it is gone)."""
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


def die_with_parent():
    """In the QEMU child before exec: SIGKILL when the harness dies, however
    it dies (it runs in a session of its own, so a kill of the harness's
    process group does not reach it; PR_SET_PDEATHSIG does).  Without
    libc's prctl, nothing: stop() still ends it on the paths it sees."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def stop(procs, grace=1.0):
    """End every process group of PROCS still running: SIGTERM, then after
    GRACE seconds SIGKILL; reap them all."""
    live = [p for p in procs if p.poll() is None]
    for p in live:
        os.killpg(p.pid, signal.SIGTERM)
    if live:
        time.sleep(grace)
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()


EARLY_REPORT = 3   # boot(stop_early=True): a VM showed a report before /init
EMULATOR_FAULT = 4  # boot(): a VM's link stopped (LINK_FAULT_RX); stopped at once


def boot(kernel, vms, timeout, *, link=True, pcap=None, poll=0.5, prog="pair",
         stop_early=False, **qemu):
    """Boot VMS (Vm, A first) and wait for them to power off, at most
    TIMEOUT seconds.  0 if they all powered off by themselves, 1 otherwise;
    nothing is left running.

    LINK: the VMs share one link, an AF_UNIX stream socket pair (no loss,
    no Nagle delay: TCP on 127.0.0.1 makes RDMA retransmit, UDP drops
    frames under load), each end inherited by one QEMU as its netdev; a
    lone VM A gets one end, the host drains and drops what comes out of
    the other.  PCAP: VM A's netdev is captured there (both directions).
    Without LINK the VMs have no NIC.  PROG names the harness in its
    messages.  QEMU: qemu_cmd()'s machine, smp, memory, loglevel, extra."""
    qemu.setdefault("memory", memory_for(kernel))
    ends = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) if link else (None, None)
    drain = ends[1] if link and len(vms) == 1 else None
    extra = list(qemu.pop("extra", ()))
    procs = []
    try:
        for spec, end in zip(vms, ends):
            fds = []
            more = list(extra)
            if end is not None:
                os.set_inheritable(end.fileno(), True)
                fds = [end.fileno()]
                if spec is vms[0] and pcap:
                    more += ["-object", f"filter-dump,id=f0,netdev=n0,file={pcap},maxlen=160"]
            cmd = qemu_cmd(kernel, spec.initrd, spec.log, guest_budget(timeout),
                           append=spec.append, net_fd=end.fileno() if end else None,
                           mac=MACS.get(spec.name), extra=more, **qemu)
            procs.append(subprocess.Popen(cmd, pass_fds=fds, stdin=subprocess.DEVNULL,
                                          start_new_session=True, preexec_fn=die_with_parent))
        # The QEMUs hold the link now: a VM that powers off closes its end.
        for end in ends:
            if end is not None and end is not drain:
                end.close()
        if drain is not None:
            drain.setblocking(False)
        deadline = time.monotonic() + timeout
        planter = Planter({spec.name: (spec.log, p) for spec, p in zip(vms, procs)})
        booting = list(vms) if stop_early else []
        while time.monotonic() < deadline and any(p.poll() is None for p in procs):
            time.sleep(poll)
            planter.poll()
            if planter.link_fault:
                say(prog, f"VM {planter.link_fault}'s NIC stopped sending (the guest's TX "
                          "watchdog fired): an emulator fault, stopping this boot")
                return EMULATOR_FAULT
            # A VM whose kernel panicked is gone (panic=-1, -no-reboot): its
            # peer would wait at its next barrier for the rest of the budget,
            # and every run after this one fails anyway.  Stop now.
            dead = [spec.name for spec, p in zip(vms, procs)
                    if p.poll() is not None and panicked(spec.log)]
            if dead and any(p.poll() is None for p in procs):
                say(prog, f"VM {dead[0]}'s kernel panicked: stopping this boot")
                return 1
            # stop_early: a report before /init dooms the boot (see
            # early_report()); stop it now, not after the whole run.
            if booting and any(early_report(spec.log) for spec in booting):
                say(prog, "kernel report during boot, before /init: stopping this boot")
                return EARLY_REPORT
            booting = [spec for spec in booting if not init_started(spec.log)]
            while drain is not None:
                try:
                    if not drain.recv(1 << 16):
                        break
                except BlockingIOError:
                    break
        timed_out = any(p.poll() is None for p in procs)
        if timed_out:
            say(prog, f"VMs did not finish within {timeout} s")
        return 1 if timed_out or any(p.returncode not in (0, None) for p in procs) else 0
    finally:
        for end in ends:
            if end is not None:
                end.close()
        stop(procs)


def boot_retrying(kernel, vms, timeout, prog, **kw):
    """boot(), and once more if a console shows a kernel report from before
    /init started (the emulated boot's own, see early_report()) or a VM's
    link stopped (EMULATOR_FAULT); the first boot's logs are kept as
    <log>.boot1.log, minus the .log.  A second fault is the result."""
    for attempt in (1, 2):
        rc = boot(kernel, vms, timeout, prog=prog, stop_early=attempt == 1, **kw)
        if attempt == 1 and rc == EMULATOR_FAULT:
            say(prog, "a link stopped (emulator fault); booting the pair again")
        if attempt == 1 and (rc in (EARLY_REPORT, EMULATOR_FAULT) or
                             any(early_report(spec.log) for spec in vms)):
            if rc != EMULATOR_FAULT:
                say(prog, "kernel report during boot, before /init; booting the pair again")
            for spec in vms:
                if os.path.exists(spec.log):  # a QEMU that never started wrote none
                    shutil.copy(spec.log, re.sub(r"\.log$", "", spec.log) + ".boot1.log")
            continue
        return rc


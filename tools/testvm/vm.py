#!/usr/bin/env python3
"""The VM test harness: images, QEMU, timeouts and console checks, once.

    vm.py run-vm -k KDIR -s SCRIPT [-m MOD.ko]... [-f FILE]... [-i INITRAMFS]
                 [-t SECONDS] [-l CONSOLE.log] [-q "extra qemu args"]
    vm.py run-pair -A SCRIPT -B SCRIPT -o OUTDIR [-k KERNEL] [-f FILE]... [-s]
                 [-M SROCE.ko] [-t SECONDS] [-i IMAGE] [-P "PARAM=VALUE..."]
                 [-a rxe|sroce] [-b rxe|sroce] [-1]
    vm.py mkinitramfs [base|full|pyverbs]      the base image; its path last
    vm.py modroot KDIR|MODDIR [EXTRA.ko...]    a module root; its path last
    vm.py check-console CONSOLE.log            fail on a kernel report
    vm.py check-console --pattern              the report pattern (a regex)

run-vm.sh, run-pair.sh, mkinitramfs.sh, modroot.sh and check-console.sh
are shims for these; their options and outputs are the same (see
run_vm_main() and run_pair_main() for what each option means).

The pieces:
  qemu_cmd()      the one QEMU command line, for one VM of a pair or a VM
                  of its own (DEFAULTS: q35, one CPU, 1536 MiB);
  boot()          start the VMs, plant the stalls guests ask for, wait for
                  them to power off at most a deadline, leave nothing behind;
  cpio_gz(), base_image(), mod_root(), initrd()
                  the initramfs: a base root unpacked from Debian packages
                  (cached in $SROCE_CACHE/initramfs), a kernel's module
                  root (cached next to the kernel), and the /sroce tree a
                  run adds, each a gzipped newc cpio, concatenated;
                  every cached file is written to a temporary name and
                  renamed: other worktrees share the cache;
  console_reports(), check_console(), early_report(), result_rc()
                  what a console log says;
  book() / find_booking()
                  a run booked into a shared boot (group.py).
"""
import argparse
import glob
import hashlib
import inspect
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
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
# stack trace.
REPORT_RULES = ["Oops", "BUG:", "WARNING:", "Kernel panic", "KASAN:", "UBSAN:",
                "possible recursive locking", "possible circular locking",
                "inconsistent lock state", "INFO: task .* blocked", "unreferenced object",
                "general protection fault", "Call Trace:", "kmemleak: .*new suspected"]
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
DEFAULTS = {"machine": "q35", "smp": 1, "memory": 1536, "loglevel": 5}


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
    cmd = ["qemu-system-x86_64", "-machine", machine, "-cpu", "max", "-smp", str(smp),
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


class Planter:
    """Planted stalls, asked for by a guest: a console line
    "SROCE-PLANT-STALL <A|B> <ms>" stops that VM's QEMU process (SIGSTOP)
    for that long, as a busy host would (tools/testvm/stall-selftest.sh)."""
    RX = re.compile(rb"SROCE-PLANT-STALL ([AB]) ([0-9]+)")

    def __init__(self, vms):
        self.vms = vms                      # name -> (console log, Popen)
        self.seen = {name: 0 for name in vms}

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
    /init started (the emulated boot's own, see early_report()); the first
    boot's logs are kept as <log>.boot1.log, minus the .log."""
    for attempt in (1, 2):
        rc = boot(kernel, vms, timeout, prog=prog, stop_early=attempt == 1, **kw)
        if attempt == 1 and (rc == EARLY_REPORT or any(early_report(spec.log) for spec in vms)):
            say(prog, "kernel report during boot, before /init; booting the pair again")
            for spec in vms:
                if os.path.exists(spec.log):  # a QEMU that never started wrote none
                    shutil.copy(spec.log, re.sub(r"\.log$", "", spec.log) + ".boot1.log")
            continue
        return rc


# ---------------------------------------------------------------- images

def write_atomically(dest, fill):
    """Call FILL(tmp) to write a file next to DEST, then rename it to DEST:
    a reader (another worktree on the same cache) sees all or nothing."""
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(dest)),
                               prefix=os.path.basename(dest) + ".tmp")
    os.close(fd)
    try:
        fill(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dest


def cpio_gz(root, dest):
    """DEST: a gzipped newc cpio of the tree ROOT (written atomically)."""
    def fill(tmp):
        names = subprocess.run(["find", ".", "-print0"], cwd=root, check=True,
                               stdout=subprocess.PIPE).stdout
        with open(tmp, "wb") as f:
            cp = subprocess.Popen(["cpio", "--null", "-o", "-H", "newc", "--quiet"], cwd=root,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            gz = subprocess.Popen(["gzip", "-1"], stdin=cp.stdout, stdout=f)
            cp.stdout.close()
            cp.communicate(names)
            if gz.wait() != 0 or cp.returncode != 0:
                raise HarnessError(f"cannot pack {root}", 1)
    return write_atomically(dest, fill)


def concat(parts, dest):
    """DEST: the files PARTS one after the other (cpio archives concatenate
    into one initramfs; later ones add to and override earlier ones)."""
    with open(dest, "wb") as out:
        for part in parts:
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out)
    return dest


def initrd(parts, payload_root, work, name):
    """WORK/initrd-NAME.cpio.gz: the cached images PARTS, then the tree
    PAYLOAD_ROOT (packed as WORK/NAME.cpio.gz)."""
    payload = cpio_gz(payload_root, os.path.join(work, f"{name}.cpio.gz"))
    return concat(list(parts) + [payload], os.path.join(work, f"initrd-{name}.cpio.gz"))


def base_packages(flavour):
    """The Debian packages of a base image flavour (base, full, pyverbs).
    libgcc-s1: glibc dlopens libgcc_s.so.1 for pthread_exit() (rping),
    which ldd cannot see."""
    if flavour not in ("base", "full", "pyverbs"):
        raise HarnessError(f"mkinitramfs: no image flavour '{flavour}' (base, full, pyverbs)")
    pkgs = ["busybox-static", "kmod"]
    if flavour in ("full", "pyverbs"):
        pkgs += ["rdma-core", "ibverbs-providers", "libibverbs1", "librdmacm1", "libibumad3",
                 "libpci3", "perftest", "ibverbs-utils", "rdmacm-utils", "iproute2",
                 "netcat-openbsd", "libgcc-s1"]
    if flavour == "pyverbs":
        pkgs += ["python3-minimal", "python3.11-minimal", "libpython3.11-minimal",
                 "libpython3.11-stdlib", "libpython3.11", "python3-pyverbs"]
    return pkgs


def host_install(pkgs):
    """Install PKGS on the host too: ldd resolves their libraries there."""
    subprocess.run([os.path.join(TOP, "tools", "deps.sh"), "cpio", "gzip", "file"] + pkgs,
                   check=True)


def apt_download(debs, pkgs):
    """Download the .debs of PKGS into DEBS."""
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    if subprocess.run(["apt-get", "download"] + pkgs, cwd=debs, **quiet).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "download"] + pkgs, cwd=debs, check=True,
                       stdout=subprocess.DEVNULL)


def newest_deb(debs, pkg):
    """The newest DEBS/PKG_*.deb (by version)."""
    found = glob.glob(os.path.join(debs, f"{pkg}_*.deb"))
    if not found:
        raise HarnessError(f"mkinitramfs: no .deb of {pkg} in {debs}", 1)
    key = [re.split(r"(\d+)", os.path.basename(f)) for f in found]
    key = [[int(x) if x.isdigit() else x for x in k] for k in key]
    return max(zip(key, found))[1]


def merge_usr(root):
    """/bin, /sbin, /lib, /lib64 as links into /usr, as on Debian 12."""
    for d in ("bin", "sbin", "lib", "lib64"):
        top, usr = os.path.join(root, d), os.path.join(root, "usr", d)
        os.makedirs(usr, exist_ok=True)
        if os.path.isdir(top) and not os.path.islink(top):
            shutil.copytree(top, usr, symlinks=True, dirs_exist_ok=True)
            shutil.rmtree(top)
        if os.path.lexists(top):
            os.unlink(top)
        os.symlink(f"usr/{d}", top)


def elf_files(root):
    """The executables and shared objects under ROOT/usr that are ELF."""
    out = []
    for d, _, files in os.walk(os.path.join(root, "usr")):
        for n in files:
            p = os.path.join(d, n)
            if os.path.islink(p) or not (os.access(p, os.X_OK) or ".so" in n):
                continue
            with open(p, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    out.append(p)
    return out


def host_libs(files):
    """The host's shared libraries the ELF FILES need (by ldd)."""
    libs = set()
    for f in files:
        r = subprocess.run(["ldd", f], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        for line in r.stdout.splitlines():
            m = re.search(r"=> (/\S+)", line) or re.match(r"\t(/lib64/\S+)", line)
            if m:
                libs.add(m.group(1))
    return sorted(libs)


def copy_host_file(root, path):
    """The host's PATH (followed) at the same path under ROOT, if absent."""
    dest = root + path
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    if not os.path.lexists(dest):
        shutil.copy(os.path.realpath(path), dest)


def busybox_links(root):
    """A link to busybox for every applet the root has no file for."""
    r = subprocess.run([os.path.join(root, "usr/bin/busybox"), "--list-full"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for applet in r.stdout.split():
        dest = os.path.join(root, applet)
        if not os.path.lexists(dest) and os.path.isdir(os.path.dirname(dest)):
            os.symlink("/usr/bin/busybox", dest)


def make_base_root(root, debs, pkgs, init):
    """The base root in ROOT: the packages unpacked, merged /usr, the
    host's libraries their ELF files need (the packages are installed on
    the host too), busybox applets for the rest, INIT as /init."""
    for p in pkgs:
        subprocess.run(["dpkg-deb", "-x", newest_deb(debs, p), root], check=True)
    merge_usr(root)
    for lib in host_libs(elf_files(root)):
        copy_host_file(root, lib)
        if lib.startswith(("/lib/", "/lib64/")):
            copy_host_file(root, "/usr" + lib)
    if os.path.exists("/lib64/ld-linux-x86-64.so.2"):   # the loader at its canonical path
        os.makedirs(os.path.join(root, "usr/lib64"), exist_ok=True)
        shutil.copy(os.path.realpath("/lib64/ld-linux-x86-64.so.2"),
                    os.path.join(root, "usr/lib64/ld-linux-x86-64.so.2"))
    busybox_links(root)
    for d in ("proc", "sys", "dev", "tmp", "run", "mnt", "etc", "sroce"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    with open(os.path.join(root, "etc/passwd"), "w") as f:
        f.write("root:x:0:0:root:/root:/bin/sh\n")
    with open(os.path.join(root, "etc/group"), "w") as f:
        f.write("root:x:0:\n")
    shutil.copy(init, os.path.join(root, "init"))
    os.chmod(os.path.join(root, "init"), 0o755)
    subprocess.run(["ldconfig", "-r", root], stderr=subprocess.DEVNULL)


# The base image's key: what makes it (the recipe's source) and what goes in.
BASE_RECIPE = (make_base_root, merge_usr, elf_files, host_libs, copy_host_file,
               busybox_links, newest_deb)


def recipe_hash(funcs, *more):
    """A hash of the source of FUNCS and of the strings MORE."""
    h = hashlib.sha256()
    for f in funcs:
        h.update(inspect.getsource(f).encode())
    for m in more:
        h.update(m.encode() if isinstance(m, str) else m)
    return h.hexdigest()[:12]


def base_image(flavour="base", cache=None, *, pkgs=None, init=INIT, install=host_install,
               download=apt_download):
    """The base initramfs of FLAVOUR (base_packages()), cached in
    CACHE/initramfs keyed by the package list and their host versions,
    INIT and the recipe: its path.  INSTALL(pkgs) installs the packages on
    the host; on a cache miss DOWNLOAD(debs, pkgs) puts their .debs into
    CACHE/debs."""
    cache = cache or cache_dir()
    pkgs = pkgs or base_packages(flavour)
    install(pkgs)
    versions = subprocess.run(["dpkg-query", "-W"] + pkgs, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL).stdout
    with open(init, "rb") as f:
        key = recipe_hash(BASE_RECIPE, "\n".join(pkgs), f.read(), versions)
    out = os.path.join(cache, "initramfs", f"{flavour}-{key}.cpio.gz")
    if os.path.isfile(out) and os.path.getsize(out) > 0:
        return out
    debs = os.path.join(cache, "debs")
    os.makedirs(debs, exist_ok=True)
    download(debs, pkgs)
    with tempfile.TemporaryDirectory() as work:
        root = os.path.join(work, "root")
        os.makedirs(root)
        make_base_root(root, debs, pkgs, init)
        return cpio_gz(root, out)


# What the two-VM tests load on a stock kernel (absent or built-in ones are
# skipped): the NIC, the RDMA core and stock rxe, the UDP tunnels, VLANs,
# the CRC32 implementations rxe asks the crypto API for, netem.
STOCK_WANT = ("virtio_pci virtio_net ib_core ib_uverbs ib_umad rdma_ucm rdma_cm rdma_rxe "
              "udp_tunnel ip6_udp_tunnel 8021q crc32_generic crc32_pclmul crc32c_generic "
              "crc32c_intel libcrc32c sch_netem").split()
STOCK_NEEDED = ("virtio_net", "ib_core", "rdma_rxe")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def modinfo(field, ko):
    """A field of a module's modinfo (name, depends, vermagic)."""
    return subprocess.run(["modinfo", "-F", field, ko], check=True, stdout=subprocess.PIPE,
                          text=True).stdout.strip()


def install_tree(kdir, mods):
    """A test kernel's modules (modules_install, stripped) into MODS."""
    with tempfile.TemporaryDirectory() as stage:
        src = os.path.realpath(os.path.join(kdir, "source"))
        subprocess.run(["make", "-s", "-C", src, f"O={kdir}", f"INSTALL_MOD_PATH={stage}",
                        "INSTALL_MOD_STRIP=1", "DEPMOD=/bin/true", "modules_install"],
                       check=True, stdout=sys.stderr)
        shutil.move(os.path.join(stage, "lib/modules"), mods)


def install_closure(kdir, ver, extras, mods):
    """From a stock lib/modules/VER tree KDIR into MODS/VER: the closure of
    STOCK_WANT and of the EXTRAS' dependencies (modprobe --show-depends),
    modules.order and modules.builtin*.  Fails if a needed one is missing."""
    base = os.path.dirname(os.path.dirname(os.path.dirname(kdir)))
    names = list(STOCK_WANT)
    for m in extras:
        names += modinfo("depends", m).replace(",", " ").split()
    files = set()
    for n in names:
        r = subprocess.run(["modprobe", "-d", base, "-S", ver, "--show-depends", n],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        files.update(m.group(1) for m in re.finditer(r"^insmod (\S+)", r.stdout, re.M))
    dest = os.path.join(mods, ver)
    os.makedirs(dest)
    for f in sorted(files):
        rel = os.path.relpath(f, os.path.join(base, "lib/modules", ver))
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy(f, os.path.join(dest, rel))
    for f in ("modules.order", "modules.builtin", "modules.builtin.modinfo"):
        shutil.copy(os.path.join(kdir, f), dest)
    with open(os.path.join(kdir, "modules.builtin")) as f:
        builtin = f.read()
    for n in STOCK_NEEDED:
        if not re.search(rf"^kernel/.*/{n}\.ko", builtin, re.M) and \
                not glob.glob(os.path.join(dest, "**", f"{n}.ko*"), recursive=True):
            raise HarnessError(f"modroot: {n} missing from {kdir}", 1)


def add_extras(mods, ver, extras, name_of=lambda ko: modinfo("name", ko)):
    """The out-of-tree EXTRAS into MODS/VER/updates/, each named as the
    module calls itself (depmod names it by its file), compressed (.ko.xz,
    from DKMS) or not."""
    if not extras:
        return
    os.makedirs(os.path.join(mods, ver, "updates"), exist_ok=True)
    for m in extras:
        suffix = m[m.rindex(".ko") + 3:]
        shutil.copy(m, os.path.join(mods, ver, "updates", f"{name_of(m)}.ko{suffix}"))


def mod_root_target(kdir, extras):
    """(kind, kernel version, cache path) of the module root of KDIR:
    "tree", a test kernel's build tree (kept next to it, keyed by the tree,
    its build stamp and the extras), or "stock", an unpacked
    <root>/lib/modules/<ver> (kept in <root>, keyed as well by the recipe)."""
    extras_key = "".join(f"{sha256_file(m)}  {m}\n" for m in extras)
    if os.path.isfile(os.path.join(kdir, "include/config/kernel.release")):
        with open(os.path.join(kdir, "include/config/kernel.release")) as f:
            ver = f.read().strip()
        try:
            stamp = f"{int(os.stat(os.path.join(kdir, '.done')).st_mtime)}\n"
        except OSError:
            stamp = ""
        # The key modroot.sh gave it: its cached roots stay valid.
        key = hashlib.sha256(f"{kdir}\n{stamp}{extras_key}".encode()).hexdigest()[:12]
        return "tree", ver, os.path.join(kdir, f"modroot-{key}.cpio.gz")
    if os.path.isfile(os.path.join(kdir, "modules.dep")) and \
            os.path.isfile(os.path.join(kdir, "modules.order")):
        kdir = os.path.abspath(kdir)
        ver = os.path.basename(kdir)
        base = os.path.dirname(os.path.dirname(os.path.dirname(kdir)))
        if os.path.join(base, "lib/modules", ver) != kdir:
            raise HarnessError(f"modroot: {kdir} is not <root>/lib/modules/<ver>")
        mtime = int(os.stat(os.path.join(kdir, "modules.dep")).st_mtime)
        key = recipe_hash((install_closure, add_extras, build_mod_root),
                          kdir, " ".join(STOCK_WANT), str(mtime), extras_key)
        return "stock", ver, os.path.join(base, f"modroot-{key}.cpio.gz")
    raise HarnessError(f"modroot: {kdir} is neither a kernel build tree nor a "
                       "lib/modules/<ver> tree")


def build_mod_root(dest, ver, fill, extras, name_of=None):
    """DEST: the cpio.gz of usr/lib/modules (FILL(mods) puts the kernel's
    modules there), the EXTRAS under VER/updates, depmod'ed."""
    with tempfile.TemporaryDirectory() as work:
        root = os.path.join(work, "root")
        mods = os.path.join(root, "usr/lib/modules")
        os.makedirs(os.path.dirname(mods))
        fill(mods)
        add_extras(mods, ver, extras, **({"name_of": name_of} if name_of else {}))
        subprocess.run(["depmod", "-b", os.path.join(root, "usr"), ver], check=True)
        return cpio_gz(root, dest)


def mod_root(kdir, extras=()):
    """The module root of a kernel for the merged-/usr initramfs
    (usr/lib/modules/<ver>, depmod'ed), with the out-of-tree EXTRAS under
    updates/ (modprobe and `rdma link add ... type sroce` find them through
    modules.alias): its cached path.  KDIR: a test kernel's build tree
    (all its modules), or an unpacked stock kernel's lib/modules/<ver>
    (only the closure of what the tests load).  Compressed modules (.ko.xz,
    deb6.12) are kept as Debian ships them: Debian 12's kmod loads them."""
    kind, ver, out = mod_root_target(kdir, extras)
    if os.path.isfile(out) and os.path.getsize(out) > 0:
        return out
    if kind == "tree":
        def fill(mods):
            install_tree(kdir, mods)
    else:
        def fill(mods):
            install_closure(os.path.abspath(kdir), ver, extras, mods)
    return build_mod_root(out, ver, fill, extras)


# ----------------------------------------------------------- run-vm CLI

def sroce_tree(root, script, files=(), mods=(), settings=None):
    """ROOT/sroce, a run's /sroce: SCRIPT as run.sh, FILES copied in,
    MODS copied and listed in order in /sroce/modules (init insmods them),
    SETTINGS {name: text} as files."""
    d = os.path.join(root, "sroce")
    os.makedirs(d, exist_ok=True)
    for name, text in (settings or {}).items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    if mods:
        with open(os.path.join(d, "modules"), "w") as f:
            for m in mods:
                shutil.copy(m, d)
                f.write(os.path.basename(m) + "\n")
    for f in files:
        if os.path.isdir(f):
            shutil.copytree(f, os.path.join(d, os.path.basename(f.rstrip("/"))),
                            dirs_exist_ok=True)
        else:
            shutil.copy(f, d)
    shutil.copy(script, os.path.join(d, "run.sh"))
    os.chmod(os.path.join(d, "run.sh"), 0o755)
    return root


def run_vm_main(argv):
    """Boot a test kernel, load modules, run a script, power off (run-vm.sh).

    Fails when the script fails, when the VM does not finish, or when the
    console shows a kernel report, whatever the script returned."""
    ap = argparse.ArgumentParser(prog="run-vm.sh", description=run_vm_main.__doc__)
    ap.add_argument("-k", dest="kdir", required=True,
                    help="kernel build directory (bzImage under arch/x86/boot/)")
    ap.add_argument("-s", dest="script", required=True,
                    help="run as /sroce/run.sh in the guest; its exit code is the result")
    ap.add_argument("-m", dest="mods", action="append", default=[],
                    help="module copied to /sroce/ and insmod'ed before the script, in order")
    ap.add_argument("-f", dest="files", action="append", default=[],
                    help="extra file copied to /sroce/")
    ap.add_argument("-i", dest="initrd", help="the base initramfs (default: mkinitramfs base)")
    ap.add_argument("-t", dest="timeout", type=int, default=600,
                    help="hard timeout of the VM (default 600 s); the script gets 30 s less")
    ap.add_argument("-l", dest="log", help="where to keep the console log "
                    "(default: kept in $SROCE_LOG_KEEP or /tmp, path printed)")
    ap.add_argument("-q", dest="qemu", default="", help="extra qemu arguments")
    args = ap.parse_args(argv)
    bz = os.path.join(args.kdir, "arch/x86/boot/bzImage")
    if not os.path.isfile(bz):
        raise HarnessError(f"run-vm: no {bz}")
    base = args.initrd or base_image("base")
    with tempfile.TemporaryDirectory() as work:
        log = args.log or os.path.join(work, "console.log")
        root = sroce_tree(os.path.join(work, "root"), args.script, args.files, args.mods,
                          {"modules": ""})
        img = initrd([base], root, work, "vm")
        # KUnit's VM: two CPUs and 2 GiB, quiet, as its counts were measured.
        rc = boot(bz, [Vm("A", img, log, "quiet")], args.timeout, link=False, prog="run-vm",
                  machine="pc", smp=2, memory=2048, loglevel=4, extra=shlex.split(args.qemu))
        if not args.log and os.path.exists(log):
            keep = os.path.join(os.environ.get("SROCE_LOG_KEEP", "/tmp"),
                                f"sroce-console-{os.getpid()}.log")
            shutil.copy(log, keep)
            say("run-vm", f"console log kept in {keep}")
        if not check_console(log) or rc != 0:
            return 1
        res = result_rc(log)
        if res is None:
            say("run-vm", "no result marker in the console log")
            return 1
        return res


# --------------------------------------------------------- run-pair CLI

STOCK_BOOT = 60     # more seconds for a stock kernel's slower boot under TCG


@dataclass
class Kernel:
    """What a run boots: the kernel image, its release, its modules (a
    build tree or an unpacked lib/modules/<kver>), what sroce is built
    against, and how many seconds its boot adds to a run's budget."""
    image: str
    kver: str
    moddir: str
    kbuild: str
    boot_extra: int = 0


def last_line(cmd, status=None):
    """The last line of CMD's stdout (its stderr goes through); a failure
    ends the run with STATUS, else with CMD's status."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise HarnessError(f"{os.path.basename(cmd[0])} failed", status or r.returncode)
    return r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""


def resolve_kernel(flavour, need_headers):
    """The Kernel of FLAVOUR: a test kernel (normal, debug), built or
    reused, or a Debian stock kernel by its tools/stock-kernels.sh name
    (its linux-headers installed when NEED_HEADERS, to build sroce)."""
    if flavour in ("normal", "debug"):
        kbuild = last_line([os.path.join(HERE, "build-kernel.sh"), flavour])
        with open(os.path.join(kbuild, "include/config/kernel.release")) as f:
            kver = f.read().strip()
        return Kernel(os.path.join(kbuild, "arch/x86/boot/bzImage"), kver, kbuild, kbuild)
    r = subprocess.run([os.path.join(HERE, "stock-kernel.sh"), flavour], stdout=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        raise HarnessError(f"no stock kernel {flavour}")
    info = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    kbuild = info["STOCK_KDIR"]
    if need_headers:
        kbuild = last_line([os.path.join(TOP, "tools/stock-kernels.sh"), "--headers", flavour], 2)
    return Kernel(info["STOCK_VMLINUZ"], info["STOCK_KVER"], info["STOCK_MODULES"], kbuild,
                  STOCK_BOOT)


def sroce_module(kernel, flavour, ko):
    """sroce.ko for KERNEL: KO, else built with `make module-for` into
    build/FLAVOUR; its vermagic must name the kernel."""
    if not ko:
        subprocess.run(["make", "-s", "-C", TOP, "module-for", f"KDIR={kernel.kbuild}",
                        f"BUILD={TOP}/build/{flavour}"], check=True, stdout=sys.stderr)
        ko = os.path.join(TOP, "build", flavour, "sroce.ko")
    if not os.path.isfile(ko):
        raise HarnessError(f"run-pair: no module {ko}")
    magic = modinfo("vermagic", ko).split(" ")[0]
    if magic != kernel.kver:
        raise HarnessError(f"run-pair: {ko} is built for '{magic}', the {flavour} kernel is "
                           f"{kernel.kver}")
    say("run-pair", f"{flavour} kernel {kernel.kver}, sroce from {ko}")
    return ko


def pair_tree(root, side, script, files, provider, single):
    """ROOT/sroce of VM SIDE of a pair: its role, provider, single flag,
    guest-lib.sh, FILES and SCRIPT as run.sh."""
    settings = {"role": side + "\n"}
    if provider:
        settings["provider"] = provider + "\n"
    if single:
        settings["single"] = ""
    return sroce_tree(root, script, [os.path.join(HERE, "guest-lib.sh")] + list(files),
                      settings=settings)


def book(group, trees, meta):
    """Book a run into the shared boot GROUP: GROUP/NN (NN the booking's
    number) gets the run's /sroce trees TREES {side: root} and its
    settings META (group.py reads them).  Its directory."""
    os.makedirs(group, exist_ok=True)
    n = sum(1 for e in os.scandir(group) if e.is_dir())
    d = os.path.join(group, f"{n:02d}")
    os.mkdir(d)
    for side, root in trees.items():
        shutil.copytree(os.path.join(root, "sroce"), os.path.join(d, side), symlinks=True)
    with open(os.path.join(d, "meta"), "w") as f:
        for k, v in meta.items():
            f.write(f"{k}={v}\n")
    return d


def find_booking(group, out):
    """The directory of GROUP's booking whose output is OUT, or None."""
    for meta in sorted(glob.glob(os.path.join(group, "*", "meta"))):
        with open(meta) as f:
            if f"out={out}" in f.read().splitlines():
                return os.path.dirname(meta)
    return None


def judge(out, sides):
    """0 if every VM's console in OUT (a.log, b.log) is free of kernel
    reports and ends in result 0, else 1."""
    rc = 0
    for side in sides:
        log = os.path.join(out, f"{side.lower()}.log")
        if not check_console(log):
            rc = 1
        r = result_rc(log) if os.path.exists(log) else None
        if r != 0:
            say("run-pair", f"VM {side} failed (rc={'none' if r is None else r}), see {log}")
            rc = 1
    return rc


def param_list(value):
    """-P's PARAM=VALUE words, checked, as sroce.PARAM=VALUE."""
    out = []
    for kv in value.split():
        if not re.fullmatch(r"[a-z_][a-z0-9_]*=[A-Za-z0-9_,.-]+", kv):
            raise HarnessError(f"run-pair: -P wants PARAM=VALUE, got '{kv}'")
        out.append("sroce." + kv)
    return out


def run_pair_main(argv):
    """Boot two test VMs on one link and run a guest script in each
    (run-pair.sh; its header says what each option means).

    OUTDIR gets a.log, b.log (consoles; no b.log with -1) and link.pcap.
    Fails if a guest script fails, a VM does not finish, or either console
    shows a kernel report.  With $SROCE_GROUP, SROCE_GROUP_PHASE=book books
    the run into that shared boot (group.py) instead, and =replay judges
    the slice of the shared boot group.py wrote to OUTDIR."""
    ap = argparse.ArgumentParser(prog="run-pair.sh", description=run_pair_main.__doc__)
    ap.add_argument("-A", dest="script_a", help="VM A's script (10.0.0.1)")
    ap.add_argument("-B", dest="script_b", help="VM B's script (10.0.0.2)")
    ap.add_argument("-o", dest="out", help="the output directory")
    ap.add_argument("-k", dest="flavour", default="debug", help="normal|debug|deb6.1|deb6.12")
    ap.add_argument("-f", dest="files", action="append", default=[], help="copied to /sroce/")
    ap.add_argument("-s", dest="sroce", action="store_true", help="install sroce.ko")
    ap.add_argument("-M", dest="ko", help="this prebuilt sroce.ko (implies -s)")
    ap.add_argument("-t", dest="timeout", type=int, default=1200, help="budget (1200 s)")
    ap.add_argument("-i", dest="rootfs", default="full", help="base image flavour (full)")
    ap.add_argument("-P", dest="params", action="append", default=[],
                    help="sroce module parameters of VM B (of A with -1)")
    ap.add_argument("-a", dest="prov_a", choices=("rxe", "sroce"), help="VM A's provider")
    ap.add_argument("-b", dest="prov_b", choices=("rxe", "sroce"), help="VM B's provider")
    ap.add_argument("-1", dest="single", action="store_true", help="VM A only, no peer")
    args = ap.parse_args(argv)
    if not (args.script_a and (args.script_b or args.single) and args.out):
        ap.print_usage(sys.stderr)
        return 2
    params = " ".join(p for v in args.params for p in param_list(v))
    with_sroce = args.sroce or bool(args.ko) or "sroce" in (args.prov_a, args.prov_b)
    ko = args.ko or (os.environ.get("SROCE_KO") if with_sroce else None)
    sides = ["A"] if args.single else ["A", "B"]
    os.makedirs(args.out, exist_ok=True)
    kernel = resolve_kernel(args.flavour, with_sroce and not ko)
    timeout = args.timeout + kernel.boot_extra
    base = base_image(args.rootfs)
    extras = [sroce_module(kernel, args.flavour, ko)] if with_sroce else []
    mods = mod_root(kernel.moddir, extras)
    group = os.environ.get("SROCE_GROUP")
    phase = os.environ.get("SROCE_GROUP_PHASE") if group else None
    if group and phase not in ("book", "replay"):
        raise HarnessError("run-pair: SROCE_GROUP needs SROCE_GROUP_PHASE book or replay")
    out = os.path.abspath(args.out)
    if phase == "replay":
        if not find_booking(group, out):
            raise HarnessError(f"run-pair: {out} was not booked in {group}", 1)
        return judge(out, sides)
    scripts = {"A": args.script_a, "B": args.script_b}
    provs = {"A": args.prov_a, "B": args.prov_b}
    with tempfile.TemporaryDirectory() as work:
        trees = {s: pair_tree(os.path.join(work, s), s, scripts[s], args.files, provs[s],
                              args.single) for s in sides}
        if phase == "book":
            d = book(group, trees, {
                "out": out, "flavour": args.flavour, "kernel": kernel.image, "mods": mods,
                "rootfs": args.rootfs, "timeout": timeout, "single": int(args.single),
                "append_a" if args.single else "append_b": params})
            say("run-pair", f"booked into {d} (group {group})")
            return 0
        # -1: sroce's parameters go to the one VM.
        appends = {"A": params if args.single else "", "B": params}
        vms = [Vm(s, initrd([base, mods], trees[s], work, s),
                  os.path.join(out, f"{s.lower()}.log"), appends[s]) for s in sides]
        rc = boot_retrying(kernel.image, vms, timeout, "run-pair",
                           pcap=os.path.join(out, "link.pcap"))
    return max(judge(out, sides), 1 if rc else 0)


# ------------------------------------------------------------ small CLIs

def check_console_main(argv):
    """check-console.sh LOG: 1 (and the reports) if LOG shows a kernel
    report, else 0; --pattern prints the pattern."""
    if len(argv) != 1:
        say("check-console", "usage: check-console.sh CONSOLE.log | --pattern")
        return 2
    if argv[0] == "--pattern":
        print(REPORT_PATTERN)
        return 0
    return 0 if check_console(argv[0]) else 1


def mkinitramfs_main(argv):
    """mkinitramfs.sh [base|full|pyverbs]: the base image's path."""
    print(base_image(argv[0] if argv else "base"))
    return 0


def modroot_main(argv):
    """modroot.sh KDIR|MODDIR [EXTRA.ko...]: the module root's path."""
    if not argv:
        say("modroot", "usage: modroot.sh KDIR|MODDIR [EXTRA.ko...]")
        return 2
    print(mod_root(argv[0], argv[1:]))
    return 0


COMMANDS = {"run-vm": run_vm_main, "run-pair": run_pair_main, "mkinitramfs": mkinitramfs_main,
            "modroot": modroot_main, "check-console": check_console_main}


def main(argv):
    if not argv or argv[0] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return 2
    # SIGTERM (a test's timeout) still stops the VMs, in boot()'s finally.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(1))
    try:
        return COMMANDS[argv[0]](argv[1:])
    except HarnessError as e:
        print(e, file=sys.stderr)
        return e.status
    except subprocess.CalledProcessError as e:
        print(f"{os.path.basename(str(e.cmd[0]))} failed ({e.returncode})", file=sys.stderr)
        return 1 if e.returncode == 0 else e.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

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

The pieces (vmboot.py: the console, QEMU and boot; vmimage.py: the
images; here: the command lines, and booking into a shared boot):
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
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmboot import (  # noqa: E402
    HERE, HarnessError, REPORT_PATTERN, TOP, Vm, boot, boot_retrying, check_console, result_rc,
    say,
)
from vmimage import (  # noqa: E402
    base_image, initrd, mod_root, modinfo,
)


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
        # KUnit's VM: two CPUs, quiet, as its counts were measured; the
        # memory as vmboot.memory_for() says (it scans for leaks).
        rc = boot(bz, [Vm("A", img, log, "quiet")], args.timeout, link=False, prog="run-vm",
                  machine="pc", smp=2, loglevel=4, extra=shlex.split(args.qemu))
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

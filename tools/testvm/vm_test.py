#!/usr/bin/env python3
"""Unit tests of tools/testvm/vm.py, the VM harness, with no VM: the QEMU
command line, the image builder on a temporary cache with fake packages
and modules, the deadline and the stalls with a fake QEMU (a script that
writes a console and sleeps), the console rules with planted reports, the
run-vm CLI end to end and the bookings group.py reads.

    python3 tools/testvm/vm_test.py      (prints "vm-check: P passed, F failed")
"""
import gzip
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import group  # noqa: E402
import vm  # noqa: E402
import vmboot  # noqa: E402
import vmimage  # noqa: E402

CLEAN = ["Linux version 6.1", "rcu: \tRCU lockdep checking is enabled.",
         "kmemleak: Kernel memory leak detector initialized", vmboot.INIT_STARTED,
         "SROCE-RESULT rc=0"]
# Real report lines, each matched by only one rule of check-console (the
# lockdep ones as older kernels print them, without "WARNING:").
PLANTED = {
    "Oops": "Oops: 0000 [#1] PREEMPT SMP",
    "BUG:": "BUG: sleeping function called from invalid context at mm/slab.h:1",
    "WARNING:": "WARNING: CPU: 0 PID: 1 at drivers/x.c:1 f+0x0/0x1",
    "Kernel panic": "Kernel panic - not syncing: Fatal exception",
    "KASAN:": "KASAN: null-ptr-deref in range [0x0000000000000008-0x000000000000000f]",
    "UBSAN:": "UBSAN: shift-out-of-bounds in net/x.c:1:2",
    "possible recursive locking": "[ INFO: possible recursive locking detected ]",
    "possible circular locking": "[ INFO: possible circular locking dependency detected ]",
    "inconsistent lock state": "[ INFO: inconsistent lock state ]",
    "INFO: task .* blocked": "INFO: task kworker/0:1:12 blocked for more than 120 seconds.",
    "unreferenced object": "unreferenced object 0xffff888003a1b000 (size 64):",
    "general protection fault": "general protection fault, probably for non-canonical address",
    "Call Trace:": " Call Trace:",
    "kmemleak: .*new suspected": "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
    "kmemleak: no scan": "kmemleak: no scan: the boot's closing leak scan did not complete",
}
# And the first lines of the reports as the debug kernel prints them.
REPORTS = list(PLANTED.values()) + [
    "BUG: KASAN: slab-out-of-bounds in sroce_resp_rx+0x1/0x2",
    "WARNING: possible circular locking dependency detected",
    "WARNING: possible recursive locking detected",
    "WARNING: inconsistent lock state",
]


class Tmp(unittest.TestCase):
    """A test with a temporary directory, self.tmp."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, text, mode=0o644):
        p = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, mode)
        return p


class Console(Tmp):
    def test_a_clean_log_passes(self):
        self.assertEqual(vmboot.console_reports(CLEAN), [])
        self.assertTrue(vmboot.check_console(self.write("c.log", "\n".join(CLEAN) + "\n")))

    def test_every_rule_catches_its_own_report(self):
        self.assertEqual(sorted(vmboot.REPORT_RULES), sorted(PLANTED))
        for rule, line in PLANTED.items():
            with self.subTest(rule=rule):
                self.assertEqual([r for r in vmboot.REPORT_RULES if re.search(r, line)], [rule])
                self.assertEqual(vmboot.console_reports(CLEAN + [line]), [(len(CLEAN) + 1, line)])

    def test_every_report_kind_is_caught(self):
        for report in REPORTS:
            with self.subTest(report=report):
                log = self.write("r.log", "\n".join(CLEAN + [report]) + "\n")
                self.assertEqual(vmboot.console_reports(vmboot.read_lines(log)),
                                 [(len(CLEAN) + 1, report)])
                self.assertFalse(vmboot.check_console(log))

    def test_the_shim_says_so_by_its_status(self):
        sh = os.path.join(HERE, "check-console.sh")
        clean = self.write("c.log", "\n".join(CLEAN) + "\n")
        bad = self.write("b.log", "\n".join(CLEAN + [REPORTS[1]]) + "\n")
        run = lambda log: subprocess.run([sh, log], stderr=subprocess.PIPE, text=True)  # noqa
        self.assertEqual(run(clean).returncode, 0)
        r = run(bad)
        self.assertEqual(r.returncode, 1)
        self.assertIn("check-console: kernel reported a problem", r.stderr)
        self.assertIn(f"{len(CLEAN) + 1}:{REPORTS[1]}", r.stderr)

    def test_a_missing_log_fails(self):
        self.assertFalse(vmboot.check_console(os.path.join(self.tmp, "none.log")))

    def test_early_reports_are_those_before_init(self):
        before = self.write("1.log", "\n".join([REPORTS[0]] + CLEAN) + "\n")
        after = self.write("2.log", "\n".join(CLEAN + [REPORTS[0]]) + "\n")
        no_init = self.write("3.log", "Linux version 6.1\n" + REPORTS[0] + "\n")
        self.assertTrue(vmboot.early_report(before))
        self.assertFalse(vmboot.early_report(after))
        self.assertTrue(vmboot.early_report(no_init))
        self.assertFalse(vmboot.early_report(os.path.join(self.tmp, "none.log")))

    def test_the_last_result_marker_counts(self):
        log = self.write("r.log", "SROCE-RESULT rc=0\n[ 1.0] x SROCE-RESULT rc=7\r\n")
        self.assertEqual(vmboot.result_rc(log), 7)
        self.assertIsNone(vmboot.result_rc(self.write("n.log", "Linux\n")))


class QemuCmd(unittest.TestCase):
    def opt(self, cmd, name):
        return cmd[cmd.index(name) + 1]

    def test_one_default_set(self):
        cmd = vmboot.qemu_cmd("/k/bz", "/i.gz", "/l.log", 570)
        self.assertEqual(cmd[0], "qemu-system-x86_64")
        self.assertEqual(self.opt(cmd, "-machine"), "q35")
        # One vCPU that TCG still runs with parallel semantics (the host
        # barriers virtio's notifications need: vmboot.DEFAULTS).
        self.assertEqual(self.opt(cmd, "-smp"), "1,maxcpus=2")
        self.assertEqual(self.opt(cmd, "-m"), "1536")
        # QEMU 7.2's CMPXCHG16B leaks stale flags (vmboot.CPU): no CX16.
        self.assertEqual(self.opt(cmd, "-cpu").split(","), ["max", "cx16=off"])
        self.assertEqual(self.opt(cmd, "-kernel"), "/k/bz")
        self.assertEqual(self.opt(cmd, "-initrd"), "/i.gz")
        self.assertEqual(self.opt(cmd, "-serial"), "file:/l.log")
        self.assertEqual(self.opt(cmd, "-nic"), "none")
        self.assertIn("-no-reboot", cmd)
        append = self.opt(cmd, "-append").split()
        for word in ("console=ttyS0", "panic=-1", "oops=panic", "loglevel=5",
                     "sroce_init.timeout=570", "rcupdate.rcu_cpu_stall_timeout=300"):
            self.assertIn(word, append)

    def test_the_link_and_the_callers_choices(self):
        cmd = vmboot.qemu_cmd("/k/bz", "/i.gz", "/l.log", 30, machine="pc", smp=2, memory=2048,
                          loglevel=4, append="sroce.x=1", net_fd=7, mac="52:54:00:5e:00:0b",
                          extra=["-object", "filter-dump"])
        self.assertEqual(self.opt(cmd, "-machine"), "pc")
        self.assertEqual(self.opt(cmd, "-smp"), "2")
        self.assertEqual(self.opt(cmd, "-m"), "2048")
        self.assertNotIn("-nic", cmd)
        self.assertEqual(self.opt(cmd, "-netdev"), "socket,id=n0,fd=7")
        self.assertEqual(self.opt(cmd, "-device"), "virtio-net-pci,netdev=n0,mac=52:54:00:5e:00:0b")
        self.assertEqual(cmd[-2:], ["-object", "filter-dump"])
        append = self.opt(cmd, "-append").split()
        self.assertEqual(append[-1], "sroce.x=1")
        self.assertIn("loglevel=4", append)

    def test_the_guest_budget(self):
        self.assertEqual(vmboot.guest_budget(600), 570)
        self.assertEqual(vmboot.guest_budget(40), 30)


def fake_deb(dest, name, files):
    """DEST/NAME_1.0_amd64.deb holding FILES {path: (text, mode)}."""
    tree = tempfile.mkdtemp()
    try:
        os.makedirs(os.path.join(tree, "DEBIAN"))
        with open(os.path.join(tree, "DEBIAN/control"), "w") as f:
            f.write(f"Package: {name}\nVersion: 1.0\nArchitecture: amd64\n"
                    "Maintainer: t <t@t>\nDescription: fake\n")
        for path, (text, mode) in files.items():
            p = os.path.join(tree, path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
            os.chmod(p, mode)
        deb = os.path.join(dest, f"{name}_1.0_amd64.deb")
        subprocess.run(["dpkg-deb", "--root-owner-group", "-b", tree, deb], check=True,
                       stdout=subprocess.DEVNULL)
        return deb
    finally:
        shutil.rmtree(tree)


def unpack(cpio_gz, dest):
    """Unpack the first archive of a cpio.gz into DEST."""
    os.makedirs(dest, exist_ok=True)
    with gzip.open(cpio_gz) as f:
        data = f.read()
    subprocess.run(["cpio", "-idm", "--quiet", "--no-absolute-filenames"], cwd=dest, input=data,
                   check=True)
    return dest


FAKE_BUSYBOX = "#!/bin/sh\n[ \"$1\" = --list-full ] && printf 'bin/sh\\nusr/bin/ls\\nsbin/ifconfig\\n'\n"


class Images(Tmp):
    def test_cpio_round_trip(self):
        root = os.path.join(self.tmp, "root")
        self.write("root/sroce/run.sh", "#!/bin/sh\n", 0o755)
        self.write("root/sroce/modules", "a.ko\n")
        os.symlink("sroce/run.sh", os.path.join(root, "link"))
        out = vmimage.cpio_gz(root, os.path.join(self.tmp, "out", "p.cpio.gz"))
        self.assertEqual(os.listdir(os.path.dirname(out)), ["p.cpio.gz"])   # no temporaries
        with gzip.open(out) as f:
            self.assertEqual(f.read(6), b"070701")      # newc, which the kernel unpacks
        got = unpack(out, os.path.join(self.tmp, "x"))
        self.assertTrue(os.stat(os.path.join(got, "sroce/run.sh")).st_mode & stat.S_IXUSR)
        self.assertEqual(os.readlink(os.path.join(got, "link")), "sroce/run.sh")
        with open(os.path.join(got, "sroce/modules")) as f:
            self.assertEqual(f.read(), "a.ko\n")

    def test_a_failed_write_leaves_the_old_file_and_no_temporary(self):
        dest = self.write("c/img", "old")

        def fill(tmp):
            with open(tmp, "w") as f:
                f.write("half")
            raise RuntimeError("interrupted")
        with self.assertRaises(RuntimeError):
            vmimage.write_atomically(dest, fill)
        self.assertEqual(os.listdir(os.path.dirname(dest)), ["img"])
        with open(dest) as f:
            self.assertEqual(f.read(), "old")

    def test_the_initrd_is_the_parts_then_the_payload(self):
        base, mods = self.write("base", "BASE"), self.write("mods", "MODS")
        root = vm.sroce_tree(os.path.join(self.tmp, "root"), self.write("s.sh", "echo"),
                             mods=[self.write("m/b.ko", "b"), self.write("m/a.ko", "a")],
                             files=[self.write("f/data", "d")], settings={"role": "A\n"})
        img = vmimage.initrd([base, mods], root, self.tmp, "A")
        with open(img, "rb") as f:
            data = f.read()
        self.assertTrue(data.startswith(b"BASEMODS"))
        got = os.path.join(self.tmp, "got")
        with open(os.path.join(self.tmp, "p.gz"), "wb") as f:
            f.write(data[8:])
        unpack(os.path.join(self.tmp, "p.gz"), got)
        with open(os.path.join(got, "sroce/modules")) as f:
            self.assertEqual(f.read(), "b.ko\na.ko\n")      # insmod'ed in the order given
        for name in ("a.ko", "b.ko", "data", "role"):
            self.assertTrue(os.path.exists(os.path.join(got, "sroce", name)), name)
        self.assertTrue(os.access(os.path.join(got, "sroce/run.sh"), os.X_OK))

    def base(self, init, downloads):
        return vmimage.base_image("base", os.path.join(self.tmp, "cache"), pkgs=["fakebox"],
                             init=init, install=lambda pkgs: None,
                             download=lambda debs, pkgs: downloads.append(pkgs))

    def test_the_base_image_from_packages(self):
        debs = os.path.join(self.tmp, "cache", "debs")
        os.makedirs(debs)
        fake_deb(debs, "fakebox", {"bin/busybox": (FAKE_BUSYBOX, 0o755),
                                   "usr/share/doc/x": ("doc", 0o644)})
        init = self.write("init", "#!/bin/sh\necho init\n")
        downloads = []
        img = self.base(init, downloads)
        self.assertEqual(downloads, [["fakebox"]])
        self.assertTrue(img.startswith(os.path.join(self.tmp, "cache", "initramfs", "base-")))
        got = unpack(img, os.path.join(self.tmp, "x"))
        self.assertEqual(os.readlink(os.path.join(got, "bin")), "usr/bin")   # merged /usr
        self.assertTrue(os.path.isfile(os.path.join(got, "usr/bin/busybox")))
        self.assertEqual(os.readlink(os.path.join(got, "usr/bin/ls")), "/usr/bin/busybox")
        self.assertEqual(os.readlink(os.path.join(got, "usr/sbin/ifconfig")), "/usr/bin/busybox")
        self.assertFalse(os.path.islink(os.path.join(got, "usr/bin/busybox")))
        with open(os.path.join(got, "init")) as f:
            self.assertEqual(f.read(), "#!/bin/sh\necho init\n")
        self.assertTrue(os.access(os.path.join(got, "init"), os.X_OK))
        for d in ("proc", "sys", "dev", "tmp", "sroce"):
            self.assertTrue(os.path.isdir(os.path.join(got, d)), d)
        with open(os.path.join(got, "etc/passwd")) as f:
            self.assertTrue(f.read().startswith("root:x:0:0:"))
        # Cached: no second download; another /init is another image.
        self.assertEqual(self.base(init, downloads), img)
        self.assertEqual(len(downloads), 1)
        self.write("init", "#!/bin/sh\necho other\n")
        self.assertNotEqual(self.base(init, downloads), img)
        self.assertEqual(len(os.listdir(os.path.join(self.tmp, "cache", "initramfs"))), 2)

    def test_an_unknown_image_flavour_is_refused(self):
        with self.assertRaises(vmboot.HarnessError):
            vmimage.base_packages("huge")

    def fake_kdir(self):
        kdir = os.path.join(self.tmp, "kernel")
        self.write("kernel/include/config/kernel.release", "6.1.99-test\n")
        self.write("kernel/.done", "")
        return kdir

    def test_a_build_trees_key_is_the_one_modroot_sh_gave_it(self):
        kdir = self.fake_kdir()
        ko = self.write("sroce.ko", "module")
        kind, ver, out = vmimage.mod_root_target(kdir, [ko])
        old = subprocess.run(["bash", "-c", 'k=$1; shift; { echo "$k"; stat -c %Y "$k/.done"; '
                              'for m; do sha256sum "$m"; done; } | sha256sum | cut -c1-12',
                              "-", kdir, ko], stdout=subprocess.PIPE, text=True).stdout.strip()
        self.assertEqual((kind, ver, out),
                         ("tree", "6.1.99-test", os.path.join(kdir, f"modroot-{old}.cpio.gz")))
        self.write("sroce.ko", "another module")
        self.assertNotEqual(vmimage.mod_root_target(kdir, [ko])[2], out)

    def test_a_stock_tree_must_be_root_lib_modules_ver(self):
        mdir = os.path.join(self.tmp, "root/lib/modules/6.1.0-1-amd64")
        for f in ("modules.dep", "modules.order"):
            self.write(os.path.join(mdir, f), "")
        kind, ver, out = vmimage.mod_root_target(mdir, [])
        self.assertEqual((kind, ver), ("stock", "6.1.0-1-amd64"))
        self.assertEqual(os.path.dirname(out), os.path.join(self.tmp, "root"))
        os.rename(os.path.join(self.tmp, "root/lib"), os.path.join(self.tmp, "root/lob"))
        with self.assertRaises(vmboot.HarnessError):
            vmimage.mod_root_target(os.path.join(self.tmp, "root/lob/modules/6.1.0-1-amd64"), [])
        with self.assertRaises(vmboot.HarnessError):
            vmimage.mod_root_target(self.tmp, [])

    def test_the_module_root_has_the_extras_under_updates(self):
        ver = "6.1.99-test"

        def fill(mods):
            os.makedirs(os.path.join(mods, ver, "kernel"))
            for f in ("modules.order", "modules.builtin", "modules.builtin.modinfo"):
                open(os.path.join(mods, ver, f), "w").close()
        extras = [self.write("b/sroce_v2.ko", "x"), self.write("b/kunit.ko.xz", "y")]
        names = {extras[0]: "sroce", extras[1]: "sroce_kunit"}
        out = vmimage.build_mod_root(os.path.join(self.tmp, "c", "m.cpio.gz"), ver, fill, extras,
                                name_of=names.get)
        got = unpack(out, os.path.join(self.tmp, "x"))
        upd = os.path.join(got, "usr/lib/modules", ver, "updates")
        self.assertEqual(sorted(os.listdir(upd)), ["sroce.ko", "sroce_kunit.ko.xz"])
        self.assertTrue(os.path.exists(os.path.join(got, "usr/lib/modules", ver, "modules.dep")))


# A stand-in for qemu-system-x86_64: writes $FAKE_CONSOLE to its serial
# file, copies its initrd to $FAKE_INITRD, writes its pid to
# $FAKE_PIDS/<pid>, sends "hi" on its netdev socket and logs what it
# receives, then sleeps $FAKE_SLEEP and exits.  SIGTERM: it logs
# "terminated" and exits, or with $FAKE_WEDGED it carries on.
FAKE_QEMU = r'''#!/usr/bin/env python3
import os, re, shutil, signal, socket, sys, time
a = sys.argv[1:]
opt = lambda n: a[a.index(n) + 1] if n in a else None
log = opt("-serial")[len("file:"):]


def term(*_):
    if not os.environ.get("FAKE_WEDGED"):
        with open(log, "a") as f:
            f.write("terminated\n")
        sys.exit(1)


signal.signal(signal.SIGTERM, term)
open(os.path.join(os.environ["FAKE_PIDS"], str(os.getpid())), "w").close()
if os.environ.get("FAKE_INITRD"):
    shutil.copy(opt("-initrd"), os.environ["FAKE_INITRD"])
with open(log, "a") as f:
    f.write("cmdline: " + opt("-append") + "\nmem: " + opt("-m") + "\n" +
            os.environ.get("FAKE_CONSOLE", ""))
    nd = opt("-netdev")
    if nd:
        s = socket.socket(fileno=int(re.search(r"fd=([0-9]+)", nd).group(1)))
        s.sendall(b"hi")
        s.settimeout(2)
        try:
            f.write("link: " + s.recv(16).decode() + "\n")
        except OSError:
            f.write("link: nothing\n")
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
'''


class FakeQemu(Tmp):
    """Tests that run the harness with FAKE_QEMU first on PATH."""

    def setUp(self):
        super().setUp()
        self.write("bin/qemu-system-x86_64", FAKE_QEMU, 0o755)
        os.makedirs(os.path.join(self.tmp, "pids"))
        self.env = dict(os.environ)
        os.environ["PATH"] = os.path.join(self.tmp, "bin") + os.pathsep + os.environ["PATH"]
        os.environ["FAKE_PIDS"] = os.path.join(self.tmp, "pids")

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        super().tearDown()

    def assert_none_left(self):
        for pid in os.listdir(os.path.join(self.tmp, "pids")):
            with self.assertRaises(ProcessLookupError, msg=f"fake QEMU {pid} still runs"):
                os.kill(int(pid), 0)

    def read(self, name):
        with open(os.path.join(self.tmp, name)) as f:
            return f.read()


class Boot(FakeQemu):
    def vms(self, *names):
        return [vmboot.Vm(n, "/dev/null", os.path.join(self.tmp, f"{n.lower()}.log"), f"x.{n}=1")
                for n in names]

    def pair_boot(self, console, sleep, retrying=False):
        """A fresh pair boot (no console left from the last) whose fake VMs
        print CONSOLE and sleep SLEEP s: (its result, seconds it took)."""
        for n in ("a.log", "b.log"):
            if os.path.exists(os.path.join(self.tmp, n)):
                os.unlink(os.path.join(self.tmp, n))
        os.environ["FAKE_CONSOLE"] = console
        os.environ["FAKE_SLEEP"] = str(sleep)
        t0 = time.monotonic()
        if retrying:
            rc = vmboot.boot_retrying("/k", self.vms("A", "B"), 60, "t", poll=0.05)
        else:
            rc = vmboot.boot("/k", self.vms("A", "B"), 60, poll=0.05)
        return rc, time.monotonic() - t0

    def test_vms_that_power_off_in_time(self):
        os.environ["FAKE_CONSOLE"] = "SROCE-RESULT rc=0\n"
        self.assertEqual(vmboot.boot("/k", self.vms("A", "B"), 20, poll=0.05), 0)
        a, b = self.read("a.log"), self.read("b.log")
        self.assertIn("link: hi", a)        # each got what the other sent
        self.assertIn("link: hi", b)
        self.assertIn("sroce_init.timeout=30 ", a)
        self.assertTrue(a.split("\n")[0].endswith("x.A=1"))
        self.assertTrue(b.split("\n")[0].endswith("x.B=1"))
        self.assert_none_left()

    def test_a_kmemleak_kernel_gets_less_memory(self):
        # Each leak scan reads all of the guest's memory: a build tree whose
        # .config has kmemleak boots with KMEMLEAK_MEMORY, any other kernel
        # (a Debian image: no .config beside it) with the default.
        os.environ["FAKE_CONSOLE"] = "SROCE-RESULT rc=0\n"
        leak = self.write("leak/arch/x86/boot/bzImage", "")
        self.write("leak/.config", "CONFIG_KASAN=y\nCONFIG_DEBUG_KMEMLEAK=y\n")
        plain = self.write("plain/arch/x86/boot/bzImage", "")
        self.write("plain/.config", "CONFIG_KASAN=y\n# CONFIG_DEBUG_KMEMLEAK is not set\n")
        for kernel, mib in ((leak, vmboot.KMEMLEAK_MEMORY), (plain, vmboot.DEFAULTS["memory"]),
                            ("/boot/vmlinuz-6.1.0-57-amd64", vmboot.DEFAULTS["memory"])):
            self.assertEqual(vmboot.boot(kernel, self.vms("A"), 20, poll=0.05), 0)
            self.assertIn(f"mem: {mib}\n", self.read("a.log"), kernel)
            os.unlink(os.path.join(self.tmp, "a.log"))
        self.assertLess(vmboot.KMEMLEAK_MEMORY, vmboot.DEFAULTS["memory"])
        # A caller's own choice stands.
        self.assertEqual(vmboot.boot(leak, self.vms("A"), 20, poll=0.05, memory=2048), 0)
        self.assertIn("mem: 2048\n", self.read("a.log"))

    def test_an_early_report_stops_the_boot_at_once_and_it_boots_again(self):
        # A report before /init: with stop_early the boot ends within a
        # poll or two, not at the VM's own end 30 s later.
        os.environ["FAKE_CONSOLE"] = "BUG: KASAN: wild-memory-access in do_raw_spin_lock\n"
        os.environ["FAKE_SLEEP"] = "30"
        t0 = time.monotonic()
        self.assertEqual(vmboot.boot("/k", self.vms("A", "B"), 60, poll=0.05, stop_early=True),
                         vmboot.EARLY_REPORT)
        self.assertLess(time.monotonic() - t0, 10)
        self.assert_none_left()
        # After /init, a report is the run's, not the boot's: no early stop.
        for n in ("a.log", "b.log"):
            os.unlink(os.path.join(self.tmp, n))
        os.environ["FAKE_CONSOLE"] = vmboot.INIT_STARTED + "\nBUG: KASAN: x\nSROCE-RESULT rc=0\n"
        os.environ["FAKE_SLEEP"] = "1"
        self.assertEqual(vmboot.boot("/k", self.vms("A", "B"), 60, poll=0.05, stop_early=True), 0)
        # boot_retrying boots once more after an early report, keeping the
        # first boot's consoles, and returns the second boot's result.
        for n in ("a.log", "b.log"):
            os.unlink(os.path.join(self.tmp, n))
        os.environ["FAKE_CONSOLE"] = "BUG: KASAN: early\n"
        os.environ["FAKE_SLEEP"] = "30"
        t0 = time.monotonic()
        self.assertEqual(vmboot.boot_retrying("/k", self.vms("A", "B"), 20, "t", poll=0.05), 1)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "a.boot1.log")))
        self.assertLess(time.monotonic() - t0, 40)  # the first boot stopped early

    def test_a_stopped_link_stops_the_boot_at_once_and_it_boots_again(self):
        # The guest's TX watchdog, any time in the run (after /init too):
        # the boot ends within a poll or two, as an emulator fault.
        for line in ("NETDEV WATCHDOG: eth0 (virtio_net): transmit queue 0 timed out",
                     "virtio_net virtio0 eth0: TX timeout on queue: 0, sq: output.0, vq: 0x1, "
                     "name: output.0, 5520000 usecs ago"):
            rc, took = self.pair_boot(f"{vmboot.INIT_STARTED}\nRC-CHECK x\n{line}\n", 30)
            self.assertEqual(rc, vmboot.EMULATOR_FAULT, line)
            self.assertLess(took, 10)
            self.assert_none_left()
        # A console without them runs to its end.
        rc, _ = self.pair_boot(f"{vmboot.INIT_STARTED}\nSROCE-RESULT rc=0\n", 1)
        self.assertEqual(rc, 0)
        # boot_retrying boots once more after it, keeping the first boot's
        # consoles; a second fault is the result, stopped at once too.
        rc, took = self.pair_boot(f"{vmboot.INIT_STARTED}\nNETDEV WATCHDOG: eth0\n", 30,
                                  retrying=True)
        self.assertEqual(rc, vmboot.EMULATOR_FAULT)
        self.assertLess(took, 20)
        self.assertIn("NETDEV WATCHDOG", self.read("a.boot1.log"))
        self.assert_none_left()

    def test_a_panicked_vm_stops_the_boot_at_once(self):
        # VM B panics and powers off at once; A would wait for its budget.
        fake = os.path.join(self.tmp, "bin/qemu-system-x86_64")
        with open(fake) as f:
            code = f.read()
        self.write("bin/qemu-system-x86_64", code.replace(
            'time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))',
            'time.sleep(0 if "x.B=1" in opt("-append") else float(os.environ.get("FAKE_SLEEP", "0")))'),
            0o755)
        rc, took = self.pair_boot(f"{vmboot.INIT_STARTED}\nKernel panic - not syncing: KASAN\n", 30)
        self.assertEqual(rc, 1)
        self.assertLess(took, 10)
        self.assert_none_left()
        # Both powering off in turn, no panic: the boot runs to its end.
        rc, took = self.pair_boot(f"{vmboot.INIT_STARTED}\nSROCE-RESULT rc=0\n", 2)
        self.assertEqual(rc, 0)
        self.assertGreater(took, 1.5)

    def test_a_lone_vm_talks_to_nobody(self):
        self.assertEqual(vmboot.boot("/k", self.vms("A"), 20, poll=0.05), 0)
        self.assertIn("link: nothing", self.read("a.log"))
        self.assertEqual(vmboot.boot("/k", self.vms("A"), 20, link=False, poll=0.05), 0)
        self.assertNotIn("link:", self.read("a.log").split("cmdline", 2)[2])

    def test_the_deadline_stops_them_all(self):
        os.environ["FAKE_SLEEP"] = "60"
        t0 = time.monotonic()
        self.assertEqual(vmboot.boot("/k", self.vms("A", "B"), 2, poll=0.05), 1)
        self.assertLess(time.monotonic() - t0, 10)
        self.assert_none_left()
        for log in ("a.log", "b.log"):         # asked to stop first (QEMU flushes its files)
            self.assertTrue(self.read(log).endswith("terminated\n"))

    def test_a_wedged_qemu_is_killed(self):
        os.environ["FAKE_SLEEP"] = "60"
        os.environ["FAKE_WEDGED"] = "1"
        t0 = time.monotonic()
        self.assertEqual(vmboot.boot("/k", self.vms("A"), 2, poll=0.05), 1)
        self.assertLess(time.monotonic() - t0, 10)
        self.assert_none_left()

    def test_a_planted_stall_stops_that_vm(self):
        sleeper = subprocess.Popen(["sleep", "30"], start_new_session=True)
        try:
            log = self.write("b.log", "SROCE-PLANT-STALL B 400\nSROCE-PLANT-STALL B 70000\n")
            planter = vmboot.Planter({"B": (log, sleeper)})
            state = []
            seen = threading.Timer(0.2, lambda: state.append(proc_state(sleeper.pid)))
            seen.start()
            t0 = time.monotonic()
            planter.poll()
            took = time.monotonic() - t0
            seen.join()
            self.assertEqual(state, ["T"])            # stopped while it lasted
            self.assertGreaterEqual(took, 0.4)      # the 70 s one is refused
            self.assertLess(took, 5)
            planter.poll()                          # seen once only
            self.assertLess(time.monotonic() - t0, 5)
            self.assertIsNone(sleeper.poll())
            self.assertNotEqual(proc_state(sleeper.pid), "T")   # running again
        finally:
            vmboot.stop([sleeper], grace=0)


def proc_state(pid):
    """The state letter of a process (R, S, T for stopped ...)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


class RunVm(FakeQemu):
    def run_vm(self, console, *more):
        os.environ["FAKE_CONSOLE"] = console
        os.environ["FAKE_INITRD"] = os.path.join(self.tmp, "seen.cpio.gz")
        self.write("k/arch/x86/boot/bzImage", "")
        args = ["-k", os.path.join(self.tmp, "k"), "-s", self.write("s.sh", "#!/bin/sh\n"),
                "-i", self.write("base.cpio.gz", "BASE"), "-l", os.path.join(self.tmp, "c.log")]
        return vm.run_vm_main(args + list(more))

    def test_the_scripts_status(self):
        self.assertEqual(self.run_vm("SROCE-RESULT rc=3\n", "-t", "20"), 3)
        with open(os.path.join(self.tmp, "seen.cpio.gz"), "rb") as f:
            self.assertEqual(f.read(4), b"BASE")
        log = self.read("c.log")
        for word in ("loglevel=4", "quiet", "sroce_init.timeout=30"):
            self.assertIn(word, log)
        self.assertEqual(self.run_vm("SROCE-RESULT rc=0\n", "-t", "20"), 0)

    def test_a_report_fails_a_passing_script(self):
        self.assertEqual(self.run_vm(REPORTS[0] + "\nSROCE-RESULT rc=0\n", "-t", "20"), 1)

    def test_no_marker_fails(self):
        self.assertEqual(self.run_vm("Kernel died quietly\n", "-t", "20"), 1)

    def test_a_hung_vm_fails(self):
        os.environ["FAKE_SLEEP"] = "60"
        self.assertEqual(self.run_vm("SROCE-RESULT rc=0\n", "-t", "2"), 1)
        self.assert_none_left()

    def test_no_kernel_is_a_usage_error(self):
        with self.assertRaises(vmboot.HarnessError):
            vm.run_vm_main(["-k", self.tmp, "-s", "x"])


class Bookings(Tmp):
    def test_a_booking_is_what_group_py_reads(self):
        gdir = os.path.join(self.tmp, "g")
        trees = {}
        for side in ("A", "B"):
            trees[side] = vm.pair_tree(os.path.join(self.tmp, side), side,
                                       self.write("s.sh", "#!/bin/sh\n"), [], "sroce", False)
        meta = {"out": "/o/x", "kernel": "/k", "mods": "/m", "rootfs": "full", "timeout": 660,
                "single": 0, "append_b": "sroce.a=1"}
        d0 = vm.book(gdir, trees, meta)
        d1 = vm.book(gdir, {"A": trees["A"]}, dict(meta, out="/o/y", single=1))
        self.assertEqual([os.path.basename(d) for d in (d0, d1)], ["00", "01"])
        books = group.bookings(gdir)
        self.assertEqual(books[0][2], {k: str(v) for k, v in meta.items()})
        self.assertEqual(group.plan(books)["timeout"], 2 * 660 + 120)
        for f in ("role", "provider", "guest-lib.sh", "run.sh"):
            self.assertTrue(os.path.exists(os.path.join(d0, "B", f)), f)
        self.assertFalse(os.path.exists(os.path.join(d1, "B")))
        self.assertEqual(vm.find_booking(gdir, "/o/y"), d1)
        self.assertIsNone(vm.find_booking(gdir, "/o"))

    def test_a_replay_judges_both_consoles(self):
        self.write("a.log", "\n".join(CLEAN) + "\n")
        self.write("b.log", "\n".join(CLEAN) + "\n")
        self.assertEqual(vm.judge(self.tmp, ["A", "B"]), 0)
        self.write("b.log", "\n".join(CLEAN[:-1]) + "\nSROCE-RESULT rc=2\n")
        self.assertEqual(vm.judge(self.tmp, ["A", "B"]), 1)
        self.assertEqual(vm.judge(self.tmp, ["A"]), 0)
        os.unlink(os.path.join(self.tmp, "a.log"))
        self.assertEqual(vm.judge(self.tmp, ["A"]), 1)

    def test_module_parameters(self):
        self.assertEqual(vm.param_list("ack_span_max=0 mode=a,b"),
                         ["sroce.ack_span_max=0", "sroce.mode=a,b"])
        for bad in ("Ack=1", "x", "x=1;reboot"):
            with self.assertRaises(vmboot.HarnessError):
                vm.param_list(bad)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import ktap  # noqa: E402
    sys.exit(ktap.run_unittests(sys.modules[__name__], "vm-check"))

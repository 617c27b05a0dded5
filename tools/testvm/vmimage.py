#!/usr/bin/env python3
"""The VM harness's images (tools/testvm/vm.py is its command line): the
base initramfs unpacked from Debian packages (cached in $SROCE_CACHE/initramfs),
a kernel's module root (cached next to the kernel), and the /sroce tree a
run adds, each a gzipped newc cpio, concatenated; every cached file is
written to a temporary name and renamed: other worktrees share the cache."""
import glob
import hashlib
import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile

from vmboot import TOP, INIT, HarnessError, cache_dir


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


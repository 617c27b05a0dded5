# SPDX-License-Identifier: GPL-2.0
#
# sroce: the Makefile for people.  Kbuild is for kbuild.
#
#   make                 build sroce.ko (and sroce_kunit.ko on KUnit kernels)
#                        against KDIR (default: the running kernel)
#   make test            everything CI runs (tools/run-tests.sh: its stage
#                        table): userspace tests, KUnit and the VM suites on
#                        the debug test kernel, Debian's stock kernels,
#                        rule coverage, the stock build, the C++ guards
#   make compare         the ACK-rate comparison with stock rxe on Debian's
#                        own 6.1 kernel (main job; no kernel build)
#   make kernel          build/reuse the test kernel (KASAN, lockdep,
#                        kmemleak, KUnit; kernel-debug is the same)
#   make kunit           KUnit in QEMU on the test kernel (kunit-debug too)
#   make utest           GoogleTest + ASan/UBSan, stream tests
#   make bench           decision benchmark (ns and instructions per decision)
#   make fuzz            run the libFuzzer target for FUZZ_SECONDS
#   make check-stock     build at W=1, warnings fatal, against every supported
#                        tree: Debian's 6.1 and 6.12 headers and both test
#                        kernels (tools/check-stock-build.sh)
#   make install         sroce.ko into /lib/modules/KVER/updates/ + depmod
#                        (KVER: KDIR's release; INSTALL_MOD_PATH: a root)
#   make uninstall       undo make install
#   make dkms-install    source to /usr/src/sroce-VERSION, dkms add, build
#                        and install for DKMS_KERNELS (default: every kernel
#                        whose headers are installed)
#   make dkms-remove     dkms remove, for every kernel, and the source
#   make deb             the sroce-dkms Debian package (build/deb/)
#   make check-guards    prove the C++ runtime/constructor guards fail the build
#   make coverage        spec rule -> KUnit cases; fails on a gap
#   make style           checkpatch on the C sources (EXPORT_SYMBOL ignored:
#                        the exported functions are defined in C++)
#   make clean

KDIR ?= /lib/modules/$(shell uname -r)/build
BUILD ?= $(CURDIR)/build/local
FUZZ_SECONDS ?= 60
# What a source package (DKMS) needs to build the module.
SRC_DIRS := Kbuild Makefile dkms.conf drivers include kunit
PROBE := drivers/sroce/compat/probe.sh
COMPAT_H := drivers/sroce/compat/config.h
# The version: debian/changelog's, without the Debian revision.
VERSION := $(shell sed -n '1s/^sroce (\([^-)]*\).*/\1/p' $(CURDIR)/debian/changelog 2>/dev/null)
# The release of the kernel in KDIR (not include/config/kernel.release:
# Debian's headers put the upstream version there).
KVER = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' $(KDIR)/include/generated/utsrelease.h)
INSTALL_MOD_PATH ?=
DKMS_KERNELS ?= $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/*/build)))

# kbuild compiles one file at a time unless make was given -j: then use
# the machine's CPUs (make run with -j, as DKMS runs it, keeps its own
# jobserver).  Halves each module build on two cores.
KBUILD_JOBS = $$(case " $$MAKEFLAGS " in *" -j"*) ;; *) echo -j$$(nproc) ;; esac)

all: module

# The kernel API probes run first (drivers/sroce/compat/probe.sh): they
# write the SROCE_HAVE_* header that compat.h includes.
module:
	$(PROBE) $(KDIR) $(CURDIR)/$(COMPAT_H)
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_JOBS) modules

# Build in a copy under $(BUILD), so several kernels can be built side by
# side.  The copy keeps the sources' timestamps (tar), and leaves out build
# products and the probes' header, so building into the same BUILD again
# is incremental: only what changed is recompiled (the probes rerun only
# when KDIR or the probes change: probe.sh's key).
#
# The compiler goes through ccache where it is installed (make deps), its
# cache beside the test kernels' ($SROCE_CACHE/ccache): a fresh clone that
# compiles what an earlier one did against the same kernel gets the
# objects back (and their warnings: ccache replays them), which make test
# does for five kernel trees.  kbuild compiles from the kernel's tree with
# the module's absolute path in every command, so each kernel tree builds
# through one path of its own that every clone shares: a symlink
# $SROCE_CACHE/build-links/<KDIR's hash> to this BUILD, set and used under
# a lock (two clones building against one kernel take turns).  kbuild
# keeps the path as given, so BUILD's own next build is incremental.  The
# kernel API probes of a kernel run once too ($SROCE_CACHE/probes:
# drivers/sroce/compat/probe.sh).
SROCE_CACHE ?= $(HOME)/.cache/sroce
CCACHE_ENV := $(if $(wildcard /usr/lib/ccache/gcc),PATH=/usr/lib/ccache:$$PATH \
	CCACHE_DIR=$(SROCE_CACHE)/ccache CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=2G)
BUILD_LINK = $(SROCE_CACHE)/build-links/$(shell printf '%s' '$(abspath $(KDIR))' | md5sum | cut -c1-16)
module-for:
	@mkdir -p $(BUILD) $(dir $(BUILD_LINK))
	@tar -C $(CURDIR) -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' --exclude='$(COMPAT_H)' \
		$(SRC_DIRS) | tar -C $(BUILD) -xf -
	SROCE_PROBE_CACHE=$(SROCE_CACHE)/probes $(PROBE) $(KDIR) $(BUILD)/$(COMPAT_H)
	flock $(BUILD_LINK).lock sh -c 'ln -sfn $(abspath $(BUILD)) $(BUILD_LINK) && \
		$(CCACHE_ENV) $(MAKE) -C $(KDIR) M=$(BUILD_LINK) W=1 $(KBUILD_JOBS) modules'

install:
	@test -f sroce.ko || { echo "install: no sroce.ko here: run make KDIR=$(KDIR) first"; exit 1; }
	@test -n "$(KVER)" || { echo "install: no kernel release in $(KDIR)"; exit 1; }
	install -D -m 0644 sroce.ko $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/updates/sroce.ko
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)

uninstall:
	@test -n "$(KVER)" || { echo "uninstall: no kernel release in $(KDIR)"; exit 1; }
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/updates/sroce.ko
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)

DKMS_SRC := /usr/src/sroce-$(VERSION)

dkms-src:
	@test -n "$(VERSION)" || { echo "dkms: no version in debian/changelog"; exit 1; }
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r $(SRC_DIRS) $(DKMS_SRC)/
	find $(DKMS_SRC) \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \
		-o -name config.h -path '*/compat/*' \) -delete
	sed -i 's/#MODULE_VERSION#/$(VERSION)/' $(DKMS_SRC)/dkms.conf

dkms-install: dkms-src
	dkms add sroce/$(VERSION)
	@set -e; for k in $(DKMS_KERNELS); do \
		dkms build sroce/$(VERSION) -k $$k && dkms install sroce/$(VERSION) -k $$k; done

dkms-remove:
	-dkms remove sroce/$(VERSION) --all
	rm -rf $(DKMS_SRC)

deb:
	tools/build-deb.sh

deps:
	tools/deps.sh build-essential cmake googletest libgtest-dev libbenchmark-dev \
		clang libclang-rt-14-dev valgrind qemu-system-x86 busybox-static kmod \
		python3 linux-headers-amd64 cpio file tshark ccache

kernel kernel-debug:
	tools/testvm/build-kernel.sh debug

kunit kunit-debug:
	tools/testvm/kunit.sh debug

utest:
	tools/utest/run.sh

bench:
	tools/utest/run.sh bench

fuzz:
	tools/utest/run.sh fuzz $(FUZZ_SECONDS)

check-stock:
	tools/check-stock-build.sh

check-guards:
	tools/check-guards.sh

coverage:
	tools/rule-coverage.sh build/debug/manifest.tsv build/debug/kunit-ok.txt

# checkpatch.pl from the test kernel's source (linux-source-6.1, fetched
# and unpacked once into the cache; no kernel build needed).
CHECKPATCH ?= $(shell tools/testvm/build-kernel.sh --source | tail -n1)/scripts/checkpatch.pl

style:
	@test -f "$(CHECKPATCH)" || { echo "style: no checkpatch.pl ($(CHECKPATCH))"; exit 1; }
	@# KTAP (tools/ktap.py counts it): one result per checkpatch run.
	@mkdir -p build
	@echo "KTAP version 1"; echo "1..3"
	@$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,EXPORT_SYMBOL,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
		-f $(filter-out drivers/sroce/lists.h drivers/sroce/trace.h,$(wildcard drivers/sroce/*.[ch])) \
		drivers/sroce/compat/probes/*.c kunit/*.c tools/kverbs/*.[ch] >build/style-1.log; \
		r=$$?; sed 's/^/# /' build/style-1.log; \
		echo "$$([ $$r = 0 ] || echo 'not ')ok 1 checkpatch: the driver, KUnit and tools/kverbs" >build/style.ktap
	@tail -n1 build/style.ktap
	@# The case tables are shared with userspace: fixed-width C types, a table DSL
	@# and the registry of the tables (X-macro lists, kunit/cases/suites.h).
	@$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,PREFER_KERNEL_TYPES,OPEN_ENDED_LINE,COMPLEX_MACRO,MACRO_ARG_REUSE \
		-f kunit/cases/*.[ch] >build/style-2.log; \
		r=$$?; sed 's/^/# /' build/style-2.log; \
		echo "$$([ $$r = 0 ] || echo 'not ')ok 2 checkpatch: the case tables (kunit/cases)" >>build/style.ktap
	@tail -n1 build/style.ktap
	@# The name lists (X-macros) and the tracepoints that expand them: not
	@# ordinary macros (a TRACE_DEFINE_ENUM per entry ends in a semicolon).
	@$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,COMPLEX_MACRO,MACRO_ARG_REUSE \
		--ignore TRAILING_SEMICOLON,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
		-f drivers/sroce/lists.h drivers/sroce/trace.h >build/style-3.log; \
		r=$$?; sed 's/^/# /' build/style-3.log; \
		echo "$$([ $$r = 0 ] || echo 'not ')ok 3 checkpatch: the name lists (drivers/sroce/lists.h, trace.h)" >>build/style.ktap
	@tail -n1 build/style.ktap
	@{ echo "KTAP version 1"; echo "1..3"; cat build/style.ktap; } | python3 tools/ktap.py count --name style

test:
	tools/run-tests.sh

compare:
	tools/compare.sh

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -f $(COMPAT_H)
	rm -rf build

.PHONY: all module module-for install uninstall dkms-src dkms-install dkms-remove deb deps kernel kernel-debug kunit kunit-debug utest bench fuzz \
	check-stock check-guards coverage style test compare clean

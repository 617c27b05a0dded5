# SPDX-License-Identifier: GPL-2.0
#
# sroce: the Makefile for people.  Kbuild is for kbuild.
#
#   make                 build sroce.ko (and sroce_kunit.ko on KUnit kernels)
#                        against KDIR (default: the running kernel)
#   make test            everything CI runs: userspace tests, KUnit on the
#                        normal and debug test kernels, rule coverage, the
#                        stock Debian headers build, the C++ guards
#   make compare         the ACK-rate comparison with stock rxe (main job)
#   make kernel          build/reuse the test kernel (kernel-debug: debug flavour)
#   make kunit           KUnit in QEMU on the normal test kernel (kunit-debug)
#   make utest           GoogleTest + ASan/UBSan, stream tests
#   make bench           decision benchmark (ns and instructions per decision)
#   make fuzz            run the libFuzzer target for FUZZ_SECONDS
#   make check-stock     build against Debian's linux-headers-amd64, W=1
#   make check-guards    prove the C++ runtime/constructor guards fail the build
#   make coverage        spec rule -> KUnit cases; fails on a gap
#   make style           checkpatch on the C sources (EXPORT_SYMBOL ignored:
#                        the exported functions are defined in C++)
#   make clean

KDIR ?= /lib/modules/$(shell uname -r)/build
BUILD ?= $(CURDIR)/build/local
FUZZ_SECONDS ?= 60
SRC_DIRS := Kbuild drivers include kunit

all: module

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Build in a copy under $(BUILD), so several kernels can be built side by side.
module-for:
	@mkdir -p $(BUILD)
	@cp -r $(SRC_DIRS) $(BUILD)/
	$(MAKE) -C $(KDIR) M=$(BUILD) W=1 modules

deps:
	tools/deps.sh build-essential cmake googletest libgtest-dev libbenchmark-dev \
		clang libclang-rt-14-dev valgrind qemu-system-x86 busybox-static kmod \
		python3 linux-headers-amd64 cpio file

kernel:
	tools/testvm/build-kernel.sh normal
kernel-debug:
	tools/testvm/build-kernel.sh debug

kunit:
	tools/testvm/kunit.sh normal
kunit-debug:
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

CHECKPATCH ?= $(firstword $(wildcard $(KDIR)/scripts/checkpatch.pl $(KDIR)/source/scripts/checkpatch.pl))

style:
	@test -n "$(CHECKPATCH)" || { echo "style: no checkpatch.pl under KDIR=$(KDIR)"; exit 1; }
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,EXPORT_SYMBOL,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
		-f drivers/sroce/*.[ch] kunit/sroce_kunit.c
	# The case tables are shared with userspace: fixed-width C types, a table DSL.
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES,PREFER_KERNEL_TYPES,OPEN_ENDED_LINE,COMPLEX_MACRO \
		-f kunit/cases/*.[ch]

test:
	tools/run-tests.sh

compare:
	tools/compare.sh

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf build

.PHONY: all module module-for deps kernel kernel-debug kunit kunit-debug utest bench fuzz \
	check-stock check-guards coverage style test compare clean

# SPDX-License-Identifier: GPL-2.0
#
# timeq: the module, built out of tree, and the test entry points.
#
#   make		build timeq.ko against $(KDIR)
#   make run		see it work: Debian's stock 6.12 kernel in qemu with
#			timeq.ko, running timeqctl demo and sim
#   make check		install what the tests need, run every suite, and end
#			with one line "N passed, N failed"
#   make bench-paths	the fast and slow paths' figures, in userspace
#   make bench-stall	the longest stall a user can cause through /dev/timeq,
#			in Debian's stock 6.12 kernel under qemu
#   make bench-flowtrack	flow time-outs on timeq against conntrack's design
#			on the same traffic, in Debian's stock 6.12 under qemu
#   make style		checkpatch --strict over module/, include/, kunit/ and
#			samples/, and clang-format over their lines new since the
#			kernel's .clang-format landed (tools/testing/gates)
#   make lint		style, and kernel-doc -Wall, W=1 with sparse against
#			Debian's 6.1, 6.12 and 6.12-rt headers, and a clang
#			(LLVM=1) build against Debian's 6.12 headers
#   make clean
#
# KDIR is the kernel build tree to build against: by default the running
# kernel's (/lib/modules/$(uname -r)/build) when it exists, else the newest
# Debian linux-headers-*-amd64 installed. Override: make KDIR=/path/to/tree

KDIR ?= $(or $(wildcard /lib/modules/$(shell uname -r)/build),\
	     $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1))

all: module

module:
	@test -n "$(KDIR)" || { echo "no kernel build tree: install linux-headers or set KDIR"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

run:
	tools/run.sh

check:
	tools/testing/check.sh

bench-paths:
	$(MAKE) -C tools/testing/queue OUT=$(CURDIR)/build/queue $(CURDIR)/build/queue/bench_paths
	build/queue/bench_paths

bench-stall:
	tools/testing/stall/run.sh

bench-flowtrack:
	tools/testing/flowtrack/bench.sh

# Each prints TAP and installs what it needs; make check runs them too.
STYLE := tools/testing/gates/checkpatch.sh tools/testing/gates/clang-format.sh
LINT := $(STYLE) tools/testing/gates/kernel-doc.sh tools/testing/module-builds.sh \
	tools/testing/gates/clang.sh

# Run every gate given, even after one fails; fail if any did.
run-gates = @failed=; for gate in $(1); do echo "== $$gate"; \
	    $$gate || failed="$$failed $$gate"; done; \
	    if [ -n "$$failed" ]; then echo "failed:$$failed"; exit 1; fi

style:
	$(call run-gates,$(STYLE))

lint:
	$(call run-gates,$(LINT))

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf build

.PHONY: all module run check bench-paths bench-stall bench-flowtrack style lint clean

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

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf build

.PHONY: all module run check bench-paths clean

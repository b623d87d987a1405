# SPDX-License-Identifier: GPL-2.0
#
# timeq: the module, built out of tree, and the test entry points.
#
#   make		build timeq.ko against $(KDIR)
#   make tools		timeqctl and libtimeq, in build/
#   make install	timeq.ko into /lib/modules/<release>/ (modules_install,
#			then depmod), and the uapi header, libtimeq, timeqctl
#			and timeq(4) under $(PREFIX); DESTDIR stages it all
#   make dkms-install	the module's sources into /usr/src/timeq-$(VERSION),
#			then dkms add, build and install (dkms-src: the copy
#			alone; dkms-uninstall: dkms remove)
#   make run		see it work: Debian's stock 6.12 kernel in qemu with
#			timeq.ko, running timeqctl demo and sim
#   make check		install what the tests need, run every suite, and end
#			with one line "N passed, N failed"; SUITES='kunit-uml
#			gate-*' runs those suites alone (shell globs)
#   make kunit		the KUnit suites in a User-Mode Linux kernel, through
#			the kernel's kunit.py (tools/testing/kunit/uml.sh);
#			SUITE=timeq_paths (a kunit.py filter glob) runs one
#   make selftests	the kselftests, built by the kernel's selftests
#			Makefile (TARGETS=timeq) into build/kselftest/timeq
#   make soak		/dev/timeq's hardening programs mixed, in the debug
#			kernel under qemu, for TIMEQ_SOAK_MINUTES (default 30);
#			figures after every round (tools/testing/vm/soak.sh)
#   make mutate		the mutation run: plausible one-line bugs planted in
#			module/queue.c, paths.c and .h, fast.c, handoff.c and
#			clock.c, one at a time in a copy, each against the
#			fast userspace suites; TAP and
#			"N mutants: K killed, S survived (E equivalent)"
#			(tools/testing/mutate/run.sh; about 15 minutes)
#   make bench		timeq against libuv, libevent, libev, the kernel's
#			rbtree, timerqueue, min_heap and timer wheel, in
#			userspace, in User-Mode Linux (native speed) and in
#			Debian's stock 6.12 under qemu, with
#			the tuning calibration, and through the ABI against
#			timerfd and io_uring; tables, CSV and plots in
#			build/bench/ (tools/bench/bench.sh; 6 to 11 minutes)
#   make bench-paths	the fast and slow paths' figures, in userspace
#   make bench-stall	the longest stall a user can cause through /dev/timeq,
#			in Debian's stock 6.12 kernel under qemu
#   make bench-flowtrack	flow time-outs on timeq against conntrack's design
#			on the same traffic, in Debian's stock 6.12 under qemu;
#			then the packet path natively, under User-Mode Linux
#   make htmldocs	Documentation/ in HTML, at build/htmldocs (Sphinx)
#   make style		checkpatch --strict over module/, include/, kunit/,
#			tools/lib/, samples/, the kselftests and timeqctl, and
#			clang-format over the first five's lines new since the
#			kernel's .clang-format landed (tools/testing/gates)
#   make lint		style, and kernel-doc -Wall, W=1 with sparse against
#			Debian's 6.1, 6.12 and 6.12-rt headers, a clang
#			(LLVM=1) build against Debian's 6.12 headers, and
#			the API of older kernels used nowhere but compat.h
#   make clean
#
# KDIR is the kernel build tree to build against: by default the running
# kernel's (/lib/modules/$(uname -r)/build) when it exists, else the newest
# Debian linux-headers-*-amd64 installed. Override: make KDIR=/path/to/tree

KDIR ?= $(or $(wildcard /lib/modules/$(shell uname -r)/build),\
	     $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1))

# The module's version, which dkms.conf and the install take.
VERSION := $(shell sed -n 's/^MODULE_VERSION("\(.*\)");$$/\1/p' $(CURDIR)/module/main.c)
PREFIX ?= /usr/local
DKMSDIR ?= $(DESTDIR)/usr/src/timeq-$(VERSION)

all: module

module:
	@test -n "$(KDIR)" || { echo "no kernel build tree: install linux-headers or set KDIR"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	$(MAKE) -C tools/timeqctl OUT=$(CURDIR)/build/timeqctl
	$(MAKE) -C tools/lib/timeq OUT=$(CURDIR)/build/lib

# modules_install skips depmod without the kernel's System.map, which
# header packages lack; so depmod runs here, for the release of $(KDIR).
install: module tools
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) modules_install
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $$(cat $(KDIR)/include/config/kernel.release)
	install -D -m 644 include/uapi/linux/timeq.h $(DESTDIR)$(PREFIX)/include/linux/timeq.h
	install -D -m 755 build/timeqctl/timeqctl $(DESTDIR)$(PREFIX)/bin/timeqctl
	install -D -m 644 man/timeq.4 $(DESTDIR)$(PREFIX)/share/man/man4/timeq.4
	$(MAKE) -C tools/lib/timeq OUT=$(CURDIR)/build/lib PREFIX=$(PREFIX) install

# What dkms builds: Kbuild, this Makefile, the module's sources and headers
# (no objects a build here has left).
dkms-src:
	rm -rf $(DKMSDIR)
	install -d $(DKMSDIR)
	cp Kbuild Makefile $(DKMSDIR)/
	cp --parents $$(find module include -name '*.[ch]') $(DKMSDIR)/
	sed 's/@VERSION@/$(VERSION)/' dkms.conf >$(DKMSDIR)/dkms.conf

dkms-install: dkms-src
	dkms add -m timeq -v $(VERSION)
	dkms build -m timeq -v $(VERSION)
	dkms install -m timeq -v $(VERSION)

dkms-uninstall:
	dkms remove -m timeq -v $(VERSION) --all
	rm -rf $(DKMSDIR)

run:
	tools/run.sh

check:
	tools/testing/check.sh

kunit:
	tools/testing/kunit/uml.sh $(SUITE)

# The kernel's own way: its tools/testing/selftests/Makefile, in the tree of
# make kunit, where tools/testing/selftests/timeq is a symlink to ours (whose
# physical path has no lib.mk beside it: KSFT says where it is).
selftests:
	tree=$$(tools/testing/kunit/uml.sh --tree) && \
	$(MAKE) -C $$tree/tools/testing/selftests TARGETS=timeq O=$(CURDIR)/build \
		KSFT=$$tree/tools/testing/selftests

soak:
	tools/testing/vm/soak.sh

mutate:
	tools/testing/mutate/run.sh

htmldocs:
	tools/testing/htmldocs.sh

bench:
	tools/bench/bench.sh

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
	tools/testing/gates/clang.sh tools/testing/gates/compat.sh \
	tools/testing/gates/types.sh

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

.PHONY: all module tools install dkms-src dkms-install dkms-uninstall run \
	check kunit selftests soak mutate htmldocs bench bench-paths bench-stall \
	bench-flowtrack style lint clean

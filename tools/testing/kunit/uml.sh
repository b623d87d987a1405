#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/testing/kunit/uml.sh - timeq's KUnit suites, and its in-kernel
# benchmark, in a User-Mode Linux kernel (ARCH=um, x86_64), through the
# kernel's own runner tools/testing/kunit/kunit.py, from Debian's
# linux-source-6.12.
#
# Usage:
#   uml.sh [--tap] [GLOB]       make kunit [SUITE=GLOB]: kunit.py run with
#                               kunit/.kunitconfig, GLOB its filter_glob
#                               (timeq_paths, 'timeq_*', timeq_queue.*fifo*);
#                               --tap prints one TAP line a case (make check)
#   uml.sh --bench [PARAM=V..]  the benchmark's kernel (tools/bench/kernel/
#                               .kunitconfig: no KASAN, no lockdep) built by
#                               kunit.py build and booted with timeq_bench's
#                               parameters; prints timeq_bench's lines
#   uml.sh --flowbench [ARG..]  the same for the flowtrack sample's packet
#                               path (tools/bench/kernel/flowtrack.kunitconfig:
#                               timeq, timeq_flowtrack and timeq_flowbench
#                               built in), booted with the kernel arguments
#                               given (timeq_flowtrack.mode=gc,
#                               timeq_flowbench.flows=3000); prints
#                               timeq_flowbench's lines and the sample's
#   uml.sh --build              build the kernel of make kunit, and run
#                               nothing (make check starts it early, in
#                               the background: the run waits on the lock)
#   uml.sh --tree               prepare the tree and print its path
#   uml.sh --deps               install what is missing, and stop there
#
# The kernel tree is Debian's tarball extracted once outside the clone, in
#     ${TIMEQ_CACHE:-$HOME/.cache/timeq}/uml-<key>/linux
# key = the first 16 hex digits of sha256(the package's version, the
# compiler's, $layout below), made in a temporary directory and renamed when
# complete. Two lines are added to it then, and nothing else:
#     Kconfig:  source "timeq/Kconfig"
#     Kbuild:   obj-y += timeq/
# and timeq/ is the overlay, written anew by each run (a file is replaced
# only when its text changes, so that make rebuilds nothing it need not):
#     timeq/Kconfig    CONFIG_TIMEQ, _DEBUG, _KUNIT_TEST, _BENCH,
#                      _FLOWTRACK and _FLOWBENCH
#     timeq/Makefile   includes this clone's Kbuild, the one list of
#                      timeq's objects, and builds into the kernel what
#                      Kconfig says (kunit.py's kernels load no module)
#     timeq/{module,include,kunit,tools,samples}
#                      symlinks to this clone's directories
#     tools/testing/selftests/timeq
#                      a symlink to this clone's kselftests, so that the
#                      kernel's `make -C tools/testing/selftests
#                      TARGETS=timeq` builds them (make selftests)
# Nothing is copied: make compiles this clone's files where they are. The
# builds (O=) are uml-<key>/build-kunit, build-bench and build-flowbench;
# when the overlay points at another clone than the last run's, the timeq
# objects of each are removed, so that no file of the other clone is
# taken as up to date.
# A lock (flock) serialises runs that share the cache.
#
# Environment: TIMEQ_CACHE, TIMEQ_JOBS (make -j, default nproc + 1),
# TIMEQ_KUNIT_TIMEOUT (seconds for the UML run, default 900).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../../.." && pwd)
pkg=linux-source-6.12
tarball=/usr/src/$pkg.tar.xz
CACHE=${TIMEQ_CACHE:-$HOME/.cache/timeq}
JOBS=${TIMEQ_JOBS:-$(($(nproc) + 1))}
TIMEOUT=${TIMEQ_KUNIT_TIMEOUT:-900}
# Bump when what is added to the extracted tree changes.
layout=1

mode=run tap=0 glob=
while [ $# -gt 0 ]; do
	case $1 in
	--tap) tap=1; shift ;;
	--bench) mode=bench; shift; break ;;
	--flowbench) mode=flowbench; shift; break ;;
	--tree) mode=tree; shift ;;
	--build) mode=build; shift ;;
	--deps) mode=deps; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	-*) echo "uml.sh: unknown option $1" >&2; exit 2 ;;
	*) glob=$1; shift ;;
	esac
done

log() { echo "uml.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# What a fresh machine lacks: the kernel's source and what its build needs,
# from Debian's packages.
missing=()
for p in "$pkg" build-essential bc bison flex libelf-dev libssl-dev \
	 python3 xz-utils; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || die "missing ${missing[*]}; install them as root"
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -qq &&
	  apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2 ||
		die "apt-get failed"
fi
[ $mode = deps ] && exit 0
version=$(dpkg-query -W -f='${Version}' "$pkg") || die "$pkg is not installed"
ccver=$(${CC:-gcc} --version | sed -n 1p)
key=$(printf '%s\n' "$pkg $version" "$ccver" "layout $layout" |
	sha256sum | cut -c1-16)
base=$CACHE/uml-$key
src=$base/linux

# --tree of a tree already prepared for this clone reads it, and does not
# wait for a build that holds the lock.
if [ $mode = tree ] && [ -f "$src/.timeq-extracted" ] &&
   [ "$(readlink "$src/timeq/module")" = "$top/module" ] &&
   [ "$(readlink "$src/tools/testing/selftests/timeq")" = "$top/tools/testing/selftests/timeq" ]; then
	echo "$src"
	exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/uml-$key.lock"
if ! flock -n 9; then
	log "another run holds $CACHE/uml-$key.lock; waiting for it"
	flock 9
fi

if [ ! -f "$src/.timeq-extracted" ]; then
	start=$(date +%s)
	log "extracting $tarball into $src"
	rm -rf "$src" "$src".tmp.*
	mkdir -p "$src.tmp.$$"
	tar -xJf "$tarball" -C "$src.tmp.$$" --strip-components=1
	echo 'source "timeq/Kconfig"' >>"$src.tmp.$$/Kconfig"
	printf '\n# timeq, from the overlay of tools/testing/kunit/uml.sh\nobj-y\t\t\t+= timeq/\n' \
		>>"$src.tmp.$$/Kbuild"
	touch "$src.tmp.$$/.timeq-extracted"
	mv "$src.tmp.$$" "$src"
	log "extracted in $(($(date +%s) - start)) s"
	# Only this key's tree is of use now.
	for old in "$CACHE"/uml-*; do
		case $old in
		"$base"|"$base".lock|"$CACHE/uml-$key.lock") ;;
		*.lock) [ -e "${old%.lock}" ] || rm -f "$old" ;;
		*) rm -rf "$old" ;;
		esac
	done
fi

# put FILE: stdin into FILE, unless FILE already says exactly that.
put() {
	local tmp=$1.tmp.$$

	cat >"$tmp"
	if cmp -s "$tmp" "$1"; then
		rm -f "$tmp"
	else
		mv "$tmp" "$1"
	fi
}

overlay=$src/timeq
mkdir -p "$overlay"
put "$overlay/Kconfig" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
# Generated by timeq's tools/testing/kunit/uml.sh: not part of the kernel.

menu "timeq (out of tree, from an overlay)"

config TIMEQ
	tristate "timeq: a timer facility on a two-head calendar queue"
	help
	  timeq.ko, built into the kernel so that kunit.py's User-Mode
	  Linux kernel runs its KUnit suites.

config TIMEQ_DEBUG
	bool "timeq: insertion numbers that prove FIFO order"
	depends on TIMEQ
	help
	  The TIMEQ_DEBUG=y of the out-of-tree build: the queues of the
	  KUnit suites keep each node's insertion number, and
	  timeq_check() proves FIFO order with them.

config TIMEQ_KUNIT_TEST
	tristate "KUnit tests for timeq" if !KUNIT_ALL_TESTS
	depends on TIMEQ && KUNIT
	default KUNIT_ALL_TESTS
	help
	  The suites timeq_queue and timeq_paths (kunit/).

config TIMEQ_BENCH
	tristate "timeq's workloads against the kernel's timer queues"
	depends on TIMEQ = n
	help
	  timeq_bench.ko (tools/bench/kernel), which runs at init. It
	  carries its own copy of timeq's data structure, whose symbols
	  would clash with timeq's built in: one or the other.

config TIMEQ_FLOWTRACK
	tristate "timeq_flowtrack: flow time-outs, the sample"
	depends on TIMEQ && INET && NETFILTER
	help
	  timeq_flowtrack.ko (samples/flowtrack); built in, its
	  parameters are kernel arguments (timeq_flowtrack.mode=gc).

config TIMEQ_FLOWBENCH
	tristate "timeq_flowbench: the sample's packet path, timed"
	depends on TIMEQ_FLOWTRACK
	help
	  timeq_flowbench.ko (tools/bench/kernel/flowbench.c), which
	  runs at init, after the sample's.

endmenu
EOF
put "$overlay/Makefile" <<EOF
# SPDX-License-Identifier: GPL-2.0
# Generated by timeq's tools/testing/kunit/uml.sh: not part of the kernel.
# timeq's own Kbuild, of the clone at $top,
# lists the objects; Kconfig says which of its modules are built in.
TIMEQ_KUNIT := \$(CONFIG_TIMEQ_KUNIT_TEST)
TIMEQ_DEBUG := \$(CONFIG_TIMEQ_DEBUG)
TIMEQ_BENCH := \$(CONFIG_TIMEQ_BENCH)
TIMEQ_FLOWBENCH := \$(CONFIG_TIMEQ_FLOWBENCH)
include $top/Kbuild
obj-m :=
obj-\$(CONFIG_TIMEQ) += timeq.o
obj-\$(CONFIG_TIMEQ_KUNIT_TEST) += timeq_test.o
obj-\$(CONFIG_TIMEQ_BENCH) += timeq_bench.o
obj-\$(CONFIG_TIMEQ_FLOWTRACK) += timeq_flowtrack.o
obj-\$(CONFIG_TIMEQ_FLOWBENCH) += timeq_flowbench.o
EOF
relinked=0
for d in module include kunit tools samples; do
	if [ "$(readlink "$overlay/$d" 2>/dev/null)" != "$top/$d" ]; then
		ln -sfn "$top/$d" "$overlay/$d"
		relinked=1
	fi
done
# The kselftests where the kernel's selftests Makefile looks for a TARGET.
ksft=$src/tools/testing/selftests/timeq
if [ "$(readlink "$ksft" 2>/dev/null)" != "$top/tools/testing/selftests/timeq" ]; then
	ln -sfn "$top/tools/testing/selftests/timeq" "$ksft"
fi
if [ $relinked = 1 ]; then
	log "overlay now points at $top: the timeq objects are rebuilt"
	rm -rf "$base"/build-*/timeq
fi

[ $mode = tree ] && { echo "$src"; exit 0; }

kunit=(python3 "$src/tools/testing/kunit/kunit.py")

# boot_bench NAME KUNITCONFIG BUILD SHOWN ARG..: build BUILD from
# KUNITCONFIG, boot it with the kernel arguments ARG.., and print the
# lines of the modules SHOWN (a sed alternation: NAME, or NAME\|OTHER)
# without their prefix; fail unless NAME said "done".
boot_bench() {
	local name=$1 config=$2 build=$3 shown=$4 start
	shift 4

	start=$(date +%s)
	"${kunit[@]}" build --arch=um --build_dir="$build" --jobs="$JOBS" \
		--kunitconfig="$config" >&2 ||
		die "the kernel of $name did not build ($build)"
	log "the kernel of $name ready in $(($(date +%s) - start)) s"
	# As kunit.py boots its kernel; no suite is built in, so KUnit only
	# halts the kernel once every initcall, the benchmark's too, is done.
	timeout "$TIMEOUT" "$build/linux" mem=1G console=tty kunit_shutdown=halt \
		"$@" </dev/null >"$build/bench.log" 2>&1 || true
	sed -n "s/\r\$//; s/^\(\[ *[0-9.]*\] \)\{0,1\}\($shown\): //p" \
		"$build/bench.log"
	grep -q "$name: done" "$build/bench.log" ||
		die "$name did not finish ($build/bench.log)"
}

if [ $mode = bench ]; then
	params=()
	for p in "$@"; do
		params+=("timeq_bench.$p")
	done
	boot_bench timeq_bench "$top/tools/bench/kernel/.kunitconfig" \
		"$base/build-bench" timeq_bench "${params[@]}"
	exit 0
fi
if [ $mode = flowbench ]; then
	boot_bench timeq_flowbench \
		"$top/tools/bench/kernel/flowtrack.kunitconfig" \
		"$base/build-flowbench" 'timeq_flowbench\|timeq_flowtrack' "$@"
	exit 0
fi

build=$base/build-kunit
start=$(date +%s)
if [ $mode = build ]; then
	"${kunit[@]}" build --arch=um --build_dir="$build" --jobs="$JOBS" \
		--kunitconfig="$top/kunit/.kunitconfig" >&2
	log "kunit.py build took $(($(date +%s) - start)) s"
	exit 0
fi
rc=0
# A build that fails must not leave the last run's results to be read.
rm -f "$build/test.log"
"${kunit[@]}" run --arch=um --build_dir="$build" --jobs="$JOBS" \
	--timeout="$TIMEOUT" --kunitconfig="$top/kunit/.kunitconfig" \
	${glob:+"$glob"} >&2 || rc=$?
log "kunit.py run took $(($(date +%s) - start)) s (exit status $rc)"
if [ $tap = 1 ]; then
	python3 "$here/ktap2tap.py" "$src/tools/testing/kunit" \
		"$build/test.log" ${glob:+"$glob"}
	exit
fi
exit $rc

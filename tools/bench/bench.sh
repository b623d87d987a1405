#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: timeq against the timer queues in use today, from a fresh
# Debian 12 machine (root, Debian's package registry), in six to eleven
# minutes. Prints the machine and the compiler, then:
#
#   1. the userspace benchmark (tools/bench/harness.c): W1 hold, W2 churn,
#      W3 refresh and its moves alone, W4 storm, at N = 10^3 .. 10^6 with
#      four jump distributions, timeq (bare and locked) against libuv,
#      libevent, libev, the kernel's rbtree, the bare hashed wheel (the
#      floor) and a direct-mapped array (the limit); tables, bytes per
#      element, the targets, CSV and plots
#   2. the calibration of the paper's costs b, c, d (calibrate.c)
#   3. the locking cost: tools/testing/queue/bench_paths, the fast path's
#      latency with the slow side flat out, beside one plain spinlock
#   4. in the kernel: timeq_bench against lib/timerqueue.c, min_heap.h and
#      the timer wheel, at native speed in a User-Mode Linux kernel
#      (tools/testing/kunit/uml.sh --bench: built in, no debug options,
#      one CPU) and as timeq_bench.ko in Debian's stock 6.12 under qemu
#      (TCG), then the two runs' ratios side by side
#   5. through the ABI: tools/bench/abi.c in the same kernel with timeq.ko,
#      one CPU: /dev/timeq with single ioctls and TIMEQ_BATCH against a
#      timerfd per timer under epoll and io_uring timeouts (liburing)
#
# Everything it writes is under build/bench/: bench.txt (all of the
# above), results.csv, calibrate.csv, <workload>.png and .svg, kernel.txt
# (qemu), kernel-uml.txt, kernel-ratios.txt, abi.txt.
# It fails (non-zero) if a correctness check fails anywhere; figures are
# printed, never judged.
#
# Environment: BENCH_OPS (operations per segment, default 100000),
# BENCH_N (default 1000,10000,100000,1000000), BENCH_VM=0 skips the
# qemu parts (4 under qemu, and 5), BENCH_UML=0 the User-Mode Linux run,
# BENCH_KERNEL_OPS (default 100000), BENCH_ABI=0
# skips part 5 alone, BENCH_ABI_ARGS (abi's options, default none: N =
# 10^3, 10^4, 10^5, three runs each).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/bench
vm=$top/tools/testing/vm
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
export HOME
mkdir -p "$out"
start=$(date +%s)
log=$out/bench.txt

die() {
	echo "make bench: $*" >&2
	exit 1
}

say() {
	echo "$*" | tee -a "$log"
}

# Install what is missing, quietly; the log keeps what apt said.
install() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing ${missing[*]}; install them as root"
	echo "make bench: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -qq &&
	  apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
		>>"$out/deps.log" 2>&1 || die "apt-get failed (build/bench/deps.log)"
}

: >"$log"
: >"$out/deps.log"
install gcc make libc6-dev libuv1-dev libevent-dev libev-dev gnuplot-nox \
	linux-source-6.12 xz-utils

say "timeq: make bench, $(date -u '+%Y-%m-%d %H:%M UTC')"
say "  CPU:      $(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores online"
say "  kernel:   $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
say "  compiler: $(gcc --version | head -n 1)"
say ""

echo "[1/5] userspace: building and running (about 6 minutes; progress below)"
make -s -C "$top/tools/bench" OUT="$out" >>"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; die "the build failed (build/bench/build.log)"; }
"$out/bench" --ops "${BENCH_OPS:-100000}" \
	--n "${BENCH_N:-1000,10000,100000,1000000}" --out "$out" \
	2> >(tee "$out/progress.log" >&2) | tee -a "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || die "the userspace benchmark failed a check (above)"
(cd "$out" && for gp in hold churn refresh move storm; do
	[ -f "$gp.gp" ] && gnuplot "$gp.gp"
done) >>"$out/build.log" 2>&1 || die "gnuplot failed (build/bench/build.log)"
say "plots: build/bench/{hold,churn,refresh,move,storm}.{png,svg}"
say ""

echo "[2/5] calibration (about 15 seconds)"
"$out/calibrate" --out "$out" 2>/dev/null | tee -a "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || die "the calibration failed"
(cd "$out" && gnuplot calibrate.gp) >>"$out/build.log" 2>&1 ||
	die "gnuplot failed (build/bench/build.log)"
say "plot: build/bench/calibrate.{png,svg}"
say ""

echo "[3/5] locking cost (about 15 seconds)"
say "== Locking cost: tools/testing/queue/bench_paths (module/paths.c, COMPAT_BENCH locks)"
make -s -C "$top/tools/testing/queue" OUT="$top/build/queue" \
	"$top/build/queue/bench_paths" >>"$out/build.log" 2>&1 ||
	die "bench_paths did not build (build/bench/build.log)"
"$top/build/queue/bench_paths" --seconds 2 | tee -a "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || die "bench_paths found a queue inconsistent"
say ""

: >"$out/kernel.txt"
: >"$out/kernel-uml.txt"
if [ "${BENCH_UML:-1}" = 0 ]; then
	say "[4/5] in the kernel, User-Mode Linux: skipped (BENCH_UML=0)"
else
	echo "[4/5] in the kernel: timeq_bench built into a User-Mode Linux kernel (seconds; the first time, its build: 4 to 15 minutes)"
	# 15 timed runs a cell rather than 5: seconds natively, and the
	# median then stands against the other work of a shared machine.
	"$top/tools/testing/kunit/uml.sh" --bench "ops=${BENCH_KERNEL_OPS:-100000}" \
		reps=15 >"$out/kernel-uml.txt" 2>"$out/uml.log" ||
		{ tail -n 20 "$out/uml.log" >&2; die "the UML run failed (build/bench/uml.log)"; }
	say "== In the kernel, natively: timeq_bench built into a User-Mode Linux 6.12 kernel"
	say "   (ARCH=um: the kernel's code runs as this machine's instructions, one CPU,"
	say "   no KASAN or lockdep; $(sed -n 's/^model name\t*: //p' /proc/cpuinfo | head -n 1))"
	tee -a "$log" <"$out/kernel-uml.txt"
	say ""
fi

if [ "${BENCH_VM:-1}" = 0 ]; then
	say "[4/5] in the kernel, qemu: skipped (BENCH_VM=0)"
	say "[5/5] through the ABI: skipped (BENCH_VM=0)"
else
	echo "[4/5] in the kernel: timeq_bench.ko in Debian's stock 6.12 under qemu (about 3 minutes)"
	# What run-stock.sh needs, and the stock 6.12 kernel with its headers
	# (bookworm ships it as linux-image-6.12-amd64, through security).
	install qemu-system-x86 busybox-static cpio kmod gzip
	release=$("$vm/run-stock.sh" 6.12 --print-release 2>>"$out/deps.log")
	case $release in
	[0-9]*) ;;
	*)	install linux-image-6.12-amd64 linux-headers-6.12-amd64
		release=$("$vm/run-stock.sh" 6.12 --print-release 2>>"$out/deps.log") ;;
	esac
	case $release in
	[0-9]*) ;;
	*) die "no stock 6.12 kernel with its headers (build/bench/deps.log)" ;;
	esac
	kdir=/usr/src/linux-headers-$release
	mod=$out/module
	rm -rf "$mod" && mkdir -p "$mod/tools/bench"
	cp -r "$top/Kbuild" "$top/module" "$top/include" "$top/kunit" "$mod/" &&
		cp -r "$top/tools/bench/kernel" "$top/tools/bench/bare.h" "$mod/tools/bench/" &&
		make -s -C "$kdir" M="$mod" TIMEQ_BENCH=y modules >>"$out/build.log" 2>&1 ||
		die "timeq_bench.ko did not build against $release (build/bench/build.log)"
	"$vm/run-stock.sh" 6.12 -k "$mod/timeq_bench.ko ops=${BENCH_KERNEL_OPS:-100000}" \
		--log "$out/console.log" --timeout 900 >"$out/vm.log" 2>&1
	rc=$?
	say "== In the kernel: Debian's $release under qemu (TCG), timeq_bench.ko"
	sed -n 's/^\[ *[0-9.]*\] timeq_bench: //p' "$out/console.log" |
		grep -v 'taints kernel\|verification failed' | tee "$out/kernel.txt" | tee -a "$log"
	[ "$rc" -eq 0 ] || { grep -A3 '^not ok' "$out/vm.log" >&2; die "the kernel run failed (build/bench/console.log)"; }
	say ""
	if [ -s "$out/kernel-uml.txt" ]; then
		say "== In the kernel: the other structure's time over timeq's (above 1: timeq"
		say "   is faster), natively in User-Mode Linux (UML) beside qemu's emulation"
		say "   (TCG) of the same code, on the same host; timeq's ns per operation first"
		awk -v uml="$out/kernel-uml.txt" -v tcg="$out/kernel.txt" \
			-f "$top/tools/bench/kernel/ratios.awk" |
			tee "$out/kernel-ratios.txt" | tee -a "$log"
		say ""
	fi

	if [ "${BENCH_ABI:-1}" = 0 ]; then
		say "[5/5] through the ABI: skipped (BENCH_ABI=0)"
	else
		echo "[5/5] through the ABI: abi with timeq.ko in the same kernel, one CPU (about a minute)"
		abi_start=$(date +%s)
		install liburing-dev
		make -s -C "$top/tools/bench" OUT="$out" abi >>"$out/build.log" 2>&1 ||
			die "abi did not build (build/bench/build.log)"
		# The timeq.ko of part 4's build. abi prints to the console; the
		# guest has one CPU, so a phase's time is all the work it caused.
		# The init splits the -b string into words: BENCH_ABI_ARGS too.
		"$vm/run-stock.sh" 6.12 -k "$mod/timeq.ko" \
			-b "$out/abi ${BENCH_ABI_ARGS:-}" --smp 1 \
			--log "$out/abi-console.log" --timeout 900 >"$out/abi-vm.log" 2>&1
		rc=$?
		say "== Through the ABI: Debian's $release under qemu (TCG), one CPU, tools/bench/abi.c"
		sed -n 's/\r$//; s/^\[ *[0-9.]*\] *//; s/^abi: \{0,1\}//p' "$out/abi-console.log" |
			tee "$out/abi.txt" | tee -a "$log"
		say "(part 5 took $(( $(date +%s) - abi_start )) s)"
		grep -q '^every check held' "$out/abi.txt" ||
			die "the ABI benchmark failed a check (build/bench/abi-console.log)"
		[ "$rc" -eq 0 ] || { grep -A3 '^not ok' "$out/abi-vm.log" >&2; die "the ABI run failed (build/bench/abi-console.log)"; }
	fi
fi

say ""
say "make bench: done in $(( $(date +%s) - start )) s, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end;"
say "every check held. Results: build/bench/ (Documentation/bench.rst reads them)"

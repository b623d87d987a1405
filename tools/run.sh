#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: see timeq work, from a fresh Debian 12 machine, in about two
# minutes once packages are installed. It installs what is missing, builds
# timeq.ko and timeq_flowtrack.ko for Debian's stock 6.12 kernel, timeqctl
# and flowgen, boots that kernel in qemu (TCG) with a busybox userland,
# loads veth and the modules, runs `timeqctl demo`, then flowgen (a few
# thousand UDP flows over a veth pair between two network namespaces,
# each refreshing its flow's idle time-out on timeq's fast path; the
# counters every second, then a summary), then a short `timeqctl sim`,
# and prints what they print as they print it. Exit status 0 only if the
# programs' own checks held (every timer fired once, none early; every
# flow expired exactly once, none early) and the kernel said nothing
# wrong. Logs: build/run/. TIMEQ_VM_TIMEOUT (default 400) is the guest's
# timeout, in seconds.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/run
vm=$top/tools/testing/vm
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
export HOME
mkdir -p "$out"

die() {
	echo "make run: $*" >&2
	exit 1
}

echo "[1/4] installing what is missing (log: build/run/deps.log)"
{ "$top/tools/testing/deps.sh" && "$vm/deps.sh"; } >"$out/deps.log" 2>&1 ||
	{ tail -n 20 "$out/deps.log" >&2; die "could not install the tools"; }
release=$("$vm/run-stock.sh" 6.12 --print-release 2>>"$out/deps.log") ||
	die "no stock 6.12 kernel (see build/run/deps.log)"
kdir=/usr/src/linux-headers-$release
if [ ! -d "$kdir" ]; then
	{ apt-get update -qq &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "linux-headers-$release"; } \
		>>"$out/deps.log" 2>&1 || die "could not install linux-headers-$release"
fi

echo "[2/4] building timeq.ko and timeq_flowtrack.ko for $release, timeqctl and flowgen"
"$top/tools/testing/build-module.sh" "$kdir" "$out/module" >"$out/build.log" 2>&1 &&
	make -C "$top/tools/timeqctl" OUT="$out" >>"$out/build.log" 2>&1 &&
	make -C "$top/tools/testing/flowtrack" OUT="$out" >>"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; die "the build failed (build/run/build.log)"; }
[ -f "$out/module/timeq_flowtrack.ko" ] || die "no timeq_flowtrack.ko: does $release have netfilter?"
# veth is a module in Debian's kernels: the guest loads it from the image.
veth=$(modinfo -k "$release" -n veth 2>/dev/null) || die "no veth module for $release"
vethk=()
[ -f "$veth" ] && vethk=(-k "$veth")

echo "[3/4] booting $release in qemu, loading timeq.ko and timeq_flowtrack.ko, running"
echo "      timeqctl demo, flowgen (about a minute) and timeqctl sim"
echo
# What the programs print, as they print it: console lines (not kernel
# ones) from each "TIMEQ-VM: run" to the next marker; run.sh copies the
# console to stderr with --verbose, and its verdict goes to checks.log.
"$vm/run-stock.sh" 6.12 "${vethk[@]}" -k "$out/module/timeq.ko" \
	-k "$out/module/timeq_flowtrack.ko timeout_ms=3000" \
	-b "$out/timeqctl demo --timers 12 --spread 600" \
	-b "$out/flowgen --flows 3000 --fill 12 --active 6:20 --again 25 --interval 500" \
	-b "$out/timeqctl sim --size 10000 --ops 20000 --stats" \
	-b "$out/timeqctl stats" \
	--timeout "${TIMEQ_VM_TIMEOUT:-400}" --verbose --log "$out/console.log" 2>&1 >"$out/checks.log" |
	awk '
		/TIMEQ-VM: run / { sub(/.*TIMEQ-VM: run /, ""); sub(/\r$/, "");
				   on = 1; print "$ " $0; fflush(); next }
		/^\[ *[0-9]+\.[0-9]+\] / { next }
		/TIMEQ-VM/ { on = 0; next }
		on { sub(/\r$/, ""); print "  " $0; fflush() }
	'
rc=${PIPESTATUS[0]}
echo

checks=$(grep -c '^ok ' "$out/checks.log")
failed=$(grep -c '^not ok ' "$out/checks.log")
echo "[4/4] $checks checks passed, $failed failed: the kernel booted, loaded"
echo "      the modules, ran every program with exit status 0, each program's"
echo "      own checks held, and it reported no panic, BUG or WARNING"
echo "      (build/run/checks.log)"
if [ "$rc" -ne 0 ]; then
	grep -A3 '^not ok ' "$out/checks.log" >&2
	die "FAILED (console: build/run/console.log)"
fi
echo "make run: OK. Next: make check (every test suite), and the README."

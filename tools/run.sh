#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: see timeq work, from a fresh Debian 12 machine, in about two
# minutes once packages are installed. It installs what is missing, builds
# timeq.ko for Debian's stock 6.12 kernel and timeqctl, boots that kernel
# in qemu (TCG) with a busybox userland, loads the module, runs
# `timeqctl demo` and a short `timeqctl sim`, and prints what they print.
# Exit status 0 only if the demo's own checks held (every timer fired once,
# none early) and the kernel said nothing wrong. Logs: build/run/.
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

echo "[2/4] building timeq.ko for $release, and timeqctl"
"$top/tools/testing/build-module.sh" "$kdir" "$out/module" >"$out/build.log" 2>&1 &&
	make -C "$top/tools/timeqctl" OUT="$out" >>"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; die "the build failed (build/run/build.log)"; }

echo "[3/4] booting $release in qemu, loading timeq.ko, running timeqctl"
"$vm/run-stock.sh" 6.12 -k "$out/module/timeq.ko" \
	-b "$out/timeqctl demo --timers 12 --spread 600" \
	-b "$out/timeqctl sim --size 10000 --ops 20000 --stats" \
	-b "$out/timeqctl stats" \
	--log "$out/console.log" >"$out/checks.log" 2>&1
rc=$?

echo
# What the programs printed: console lines (not kernel ones) from each
# "TIMEQ-VM: run" to the next marker.
awk '
	/^TIMEQ-VM: run / { on = 1; sub(/^TIMEQ-VM: run /, ""); print "$ " $0; next }
	/^\[ *[0-9]+\.[0-9]+\] / { next }
	/^TIMEQ-VM/ { on = 0; next }
	on { sub(/\r$/, ""); print "  " $0 }
' "$out/console.log"
echo

checks=$(grep -c '^ok ' "$out/checks.log")
failed=$(grep -c '^not ok ' "$out/checks.log")
echo "[4/4] $checks checks passed, $failed failed: the kernel booted, loaded"
echo "      timeq.ko, ran every program with exit status 0 and reported no"
echo "      panic, BUG or WARNING (build/run/checks.log)"
if [ "$rc" -ne 0 ]; then
	grep -A3 '^not ok ' "$out/checks.log" >&2
	die "FAILED (console: build/run/console.log)"
fi
echo "make run: OK. Next: make check (every test suite), and the README."

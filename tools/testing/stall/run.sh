#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [TREE]: `make bench-stall`. Build timeq.ko of TREE (default: this
# tree) for Debian's stock 6.12 kernel, and the stall probe (stall.c) of
# this tree; boot that kernel in qemu with them and print what the probe
# prints: the longest stall each workload caused, and its time per
# operation. A benchmark: its figures are printed, never judged, and
# absolute times are emulation. Pass an older checkout as TREE to measure
# the module before a change with the same probe.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
tree=$(cd "${1:-$top}" && pwd)
out=$top/build/stall
vm=$top/tools/testing/vm

mkdir -p "$out"
"$top/tools/testing/deps.sh" >"$out/deps.log" 2>&1 ||
	{ echo "run.sh: installing the dependencies failed (see $out/deps.log)" >&2; exit 1; }
"$vm/deps.sh" >>"$out/deps.log" 2>&1 ||
	{ echo "run.sh: installing the qemu dependencies failed (see $out/deps.log)" >&2; exit 1; }
kdir=$("$vm/run-stock.sh" 6.12 --print-kdir)
rm -rf "$out/module"
mkdir -p "$out/module"
cp -r "$tree/Kbuild" "$tree/module" "$tree/include" "$tree/kunit" "$out/module/"
make -s -C "$kdir" M="$out/module" modules >"$out/build.log" 2>&1 ||
	{ echo "run.sh: building timeq.ko of $tree failed (see $out/build.log)" >&2; exit 1; }
gcc -O2 -Wall -static -pthread -I"$top/include/uapi" -o "$out/stall" \
	"$here/stall.c"
echo "stall: timeq.ko of $tree ($(git -C "$tree" log -1 --format='%h %s' 2>/dev/null || echo 'not a git tree'))"
"$vm/run-stock.sh" 6.12 -k "$out/module/timeq.ko" -b "$out/stall" \
	--log "$out/console.log" >"$out/run.log" 2>&1 || true
sed -n 's/^\[[ 0-9.]*\] *//; /^stall:\|^  [a-z]* *[0-9]* ops/p' "$out/console.log"

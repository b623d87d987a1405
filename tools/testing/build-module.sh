#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KDIR OUT [VAR=VALUE ...]
#
# Build the modules of this tree against the kernel build tree KDIR, in a
# fresh copy of the sources at OUT, with W=1 and sparse (C=2) and the Kbuild
# variables given (TIMEQ_KUNIT=y, TIMEQ_SMOKE=y, TIMEQ_DEBUG=y). Fails, and
# shows what was said, if the compiler or sparse says anything at all.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 KDIR OUT [VAR=VALUE ...]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$1
out=$2
shift 2

rm -rf "$out"
mkdir -p "$out"
cp -r "$top/Kbuild" "$top/module" "$top/include" "$top/kunit" "$top/samples" "$out/"
# tools/bench/kernel: the sources of TIMEQ_BENCH=y and TIMEQ_FLOWBENCH=y.
mkdir -p "$out/tools/bench"
cp -r "$top/tools/bench/kernel" "$out/tools/bench/"
# -s leaves only what the tools say; BTF needs a vmlinux that headers lack.
said=$(make -s -C "$kdir" M="$out" W=1 C=2 "$@" modules 2>&1 |
       grep -v '^Skipping BTF generation' || true)
if [ -n "$said" ] || [ ! -f "$out/timeq.ko" ]; then
	printf '%s\n' "$said"
	exit 1
fi

#!/usr/bin/env bash
# tools/testing/vm/run-stock.sh - smoke-test modules on a stock Debian kernel in qemu.
#
# Usage:
#   run-stock.sh SERIES [-m MODSRC]... [-k 'MOD.ko [PARAM=V ...]']...
#                [-b 'PROG [ARG ...]']... [run.sh options...]
#   run-stock.sh SERIES --print-kdir     print the headers tree to build against
#   run-stock.sh SERIES --print-release  print the kernel release (uname -r)
#
#   SERIES     6.12, 6.12-rt or 6.1: the newest installed /boot/vmlinuz-SERIES.* that
#              has its headers (/usr/src/linux-headers-<release>) and modules
#   -m 'MODSRC [PARAM=V ...]'
#              an out-of-tree module source directory (with a Kbuild or
#              Makefile): copied to a scratch directory, built with
#              make -C /lib/modules/<release>/build M=<copy> modules,
#              and every resulting .ko is loaded (before the -k ones), with
#              the parameters given
#   -k, -b     modules (already built against --print-kdir) and programs,
#              as for run.sh
#   anything else is passed to run.sh (--timeout, --log, --verbose, -c ...)
#
# It boots /boot/vmlinuz-<release> with the same busybox initramfs and init as
# the debug kernel (run.sh): the Debian kernels have the 8250 serial console,
# devtmpfs and initramfs support built in, so busybox alone is enough.  The
# init insmods the modules (stock modules they depend on, e.g. from
# modinfo's depends=, are taken from /lib/modules/<release> and loaded
# first), runs the programs, rmmods the modules, and run.sh checks the log
# for splats as usual.  Stock kernels have no kmemleak: that check is skipped.
#
# A series that is not installed (deps.sh could not find it in the apt
# sources) is reported as skipped, not failed:
#   ok 1 - stock kernel SERIES # SKIP ...
# with exit status 0.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${TIMEQ_CACHE:-$HOME/.cache/timeq}
[ $# -ge 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 2; }
case $1 in -h|--help) sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;; esac
series=$1; shift

# The newest release of this series with image, headers and modules, of
# the generic flavour (6.12.117+deb12-amd64) or, for SERIES-rt, of the
# PREEMPT_RT one (6.12.117+deb12-rt-amd64): version order alone would put
# -rt-amd64 after -amd64 and boot the wrong kernel for the modules.
flavour=amd64
case $series in *-rt) flavour=rt-amd64; series=${series%-rt} ;; esac
release=
for img in $(ls -1 /boot/vmlinuz-"$series".* 2>/dev/null | sort -rV); do
	rel=${img#/boot/vmlinuz-}
	case $rel in
	*-rt-amd64) [ $flavour = rt-amd64 ] || continue ;;
	*-cloud-amd64) continue ;;
	*-amd64) [ $flavour = amd64 ] || continue ;;
	*) continue ;;
	esac
	if [ -d "/usr/src/linux-headers-$rel" ] && [ -d "/lib/modules/$rel/kernel" ]; then
		release=$rel
		break
	fi
done
if [ -z "$release" ]; then
	why="no stock $series kernel with headers installed"
	if grep -qx "$series unavailable" "$CACHE/stock-kernels" 2>/dev/null; then
		why="stock $series kernel not available in the apt sources"
	else
		why="$why (run $here/deps.sh)"
	fi
	echo "run-stock.sh: $why: skipped" >&2
	echo "TAP version 13"
	echo "ok 1 - stock kernel $series # SKIP $why"
	echo "1..1"
	exit 0
fi
kdir=/lib/modules/$release/build
[ -e "$kdir/Makefile" ] || kdir=/usr/src/linux-headers-$release

modsrcs=() mods=() rest=()
while [ $# -gt 0 ]; do
	case $1 in
	--print-kdir) echo "$kdir"; exit 0 ;;
	--print-release) echo "$release"; exit 0 ;;
	-m) modsrcs+=("$2"); shift 2 ;;
	-k) mods+=("$2"); shift 2 ;;
	*) rest+=("$1"); shift ;;
	esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/timeq-stock.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Build the -m sources against this kernel's headers.
built=()
i=0
for spec in "${modsrcs[@]+"${modsrcs[@]}"}"; do
	read -r src params <<<"$spec"
	i=$((i + 1))
	b=$work/build$i
	mkdir -p "$b"
	cp -r "$src"/. "$b"/
	echo "run-stock.sh: building $src against $kdir" >&2
	make -C "$kdir" M="$b" modules </dev/null >"$b.log" 2>&1 ||
		{ cat "$b.log" >&2; echo "run-stock.sh: module build against $release failed" >&2; exit 1; }
	for ko in "$b"/*.ko; do
		[ -e "$ko" ] && built+=("$ko${params:+ $params}")
	done
done

# Stock modules that ours depend on, in load order, before ours.
deps=()
declare -A seen=()
for spec in "${built[@]+"${built[@]}"}" "${mods[@]+"${mods[@]}"}"; do
	ko=${spec%% *}
	for d in $(modinfo -F depends "$ko" 2>/dev/null | tr , ' '); do
		while read -r verb path _; do
			[ "$verb" = insmod ] || continue
			[ -n "${seen[$path]:-}" ] && continue
			seen[$path]=1
			deps+=("$path")
		done < <(modprobe -S "$release" --show-depends "$d" 2>/dev/null)
	done
done

args=()
for ko in "${deps[@]+"${deps[@]}"}" "${built[@]+"${built[@]}"}" "${mods[@]+"${mods[@]}"}"; do
	args+=(-k "$ko")
done
echo "run-stock.sh: stock kernel $series = $release" >&2
rc=0
"$here/run.sh" --kernel "/boot/vmlinuz-$release" "${args[@]+"${args[@]}"}" "${rest[@]+"${rest[@]}"}" || rc=$?
exit $rc

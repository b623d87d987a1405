#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# clang.sh: build timeq with clang (LLVM=1: clang, ld.lld, llvm-ar, ...) at
# W=1 against Debian's 6.12 headers; anything the compiler, the linker or
# modpost says fails. A second compiler reads the code differently from
# gcc (-Wsometimes-uninitialized, -Wtautological-*, its own format and
# stack checks) and upstream builds the kernel with both.
#
#   1  timeq.ko, timeq_smoke.ko (TIMEQ_SMOKE=y), timeq_client.ko
#      (TIMEQ_CLIENT=y) and timeq_flowtrack.ko, linked and post-processed
#   2  timeq.o and timeq_test.o (TIMEQ_KUNIT=y TIMEQ_DEBUG=y, the KUnit
#      suites), compiled and linked but not through modpost: Debian's
#      Module.symvers has no KUnit symbols for it to resolve
#
# Each checks as well that clang, not gcc, compiled the objects.
#
# Why not plain `make LLVM=1`: Debian's kernels are built by gcc and their
# headers say so. .kernelvariables pins CC to gcc-12, so LLVM=1 alone is
# quietly built by gcc; with CC=clang too, clang rejects what the gcc
# configuration adds (-fconserve-stack, -mrecord-mcount,
# -mfunction-return=thunk-extern, -ftrivial-auto-var-init=zero without
# clang 14's enabler), because the Makefiles pick flags from CONFIG_CC_IS_GCC
# and the CONFIG_CC_HAS_* answers that Kconfig got from gcc. Filtering
# flags would be guessing. Instead this does what `make LLVM=1
# olddefconfig` does for any tree: Debian's own .config goes through
# Kconfig again with clang (the Kconfig files and Makefile of
# linux-source-6.12, from kernel-src.sh; the log says if its release is
# not the headers'), so that only what depends on the compiler changes
# (CC_IS_CLANG, CC_HAS_*, the mitigations clang 14 cannot build, ...; the
# log lists every changed line), and the result is put in a copy of the
# headers' build tree (9 MB: .config, include/config/,
# include/generated/autoconf.h). No kernel is built or rebuilt. For (2) a
# second copy also sets CONFIG_KUNIT=m. The modules are not for loading
# (their configuration is not the running kernel's): they are clang's
# verdict on our code, nothing more.
#
# The two trees are cached in ${TIMEQ_CACHE:-$HOME/.cache/timeq}/
# clang-kdir-<key>, key = the headers' release, the kernel source, the
# clang and ld.lld versions and this script: about half a minute the first
# time; the two builds take about 10 s.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

meta=linux-headers-6.12-amd64
cache=${TIMEQ_CACHE:-$HOME/.cache/timeq}
out=$top/build/clang

# The release a meta-package stands for, e.g. 6.12.117+deb12-amd64.
release_of() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\([0-9].*-amd64\)$/\1/p' | head -n 1
}

# make_config TREE CFG: run Kconfig for clang over CFG/.config and install
# the result in TREE, a copy of Debian's headers.
make_config() {
	local tree=$1 cfg=$2

	make -s -C "$ksrc" O="$cfg" LLVM=1 olddefconfig syncconfig </dev/null ||
		return
	cp -a "$hdr" "$tree" || return
	# Its links into linux-kbuild (scripts/, tools/) are relative.
	(cd "$hdr" && find . -type l) | while read -r link; do
		ln -sfn "$(readlink -f "$hdr/$link")" "$tree/$link"
	done
	cp "$cfg/.config" "$tree/.config" &&
	rm -rf "$tree/include/config" &&
	cp -a "$cfg/include/config" "$tree/include/config" &&
	cp "$cfg/include/generated/autoconf.h" "$cfg/include/generated/rustc_cfg" \
		"$tree/include/generated/" &&
	diff <(grep '^CONFIG_' "$hdr/.config") <(grep '^CONFIG_' "$tree/.config") |
		grep '^[<>]' >"$tree.config-diff"
	return 0
}

# prepare: make the two trees once for this key, under a lock.
prepare() {
	local tmp cfg old

	mkdir -p "$cache"
	exec 9>"$cache/clang-kdir.lock"
	flock 9
	if [ ! -f "$trees/kunit/.config" ]; then
		echo "clang.sh: configuring $hdr for clang in $trees" >&2
		rm -rf "$trees" "$trees".tmp.*
		tmp=$trees.tmp.$$
		cfg=$tmp/cfg
		mkdir -p "$cfg"
		cp "$hdr/.config" "$cfg/.config"
		make_config "$tmp/stock" "$cfg" || return
		echo "Debian's .config, as Kconfig sets it for $clang_version:" >&2
		cat "$tmp/stock.config-diff" >&2
		sed -i 's/^# CONFIG_KUNIT is not set$/CONFIG_KUNIT=m/' "$cfg/.config"
		make_config "$tmp/kunit" "$cfg" || return
		grep -qx 'CONFIG_KUNIT=m' "$tmp/kunit/.config" || return
		rm -rf "$cfg"
		mv "$tmp" "$trees"
		for old in "$cache"/clang-kdir-*; do
			[ "$old" = "$trees" ] || rm -rf "$old"
		done
	fi
	exec 9>&-
}

# build NAME TREE VAR=VALUE... TARGET...: build a fresh copy of the sources
# under build/clang/NAME against TREE; print what the tools said.
build() {
	local dir=$out/$1 tree=$2

	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r "$top/Kbuild" "$top/module" "$top/include" "$top/kunit" "$top/samples" "$dir/"
	# CC=clang: the headers' .kernelvariables would make it gcc-12 again.
	make -s -C "$tree" M="$dir" LLVM=1 CC=clang W=1 "$@" 2>&1 |
		grep -v '^Skipping BTF generation' | sed "s|$dir/||g"
}

# by_clang FILE...: every file was compiled by clang and none by gcc.
by_clang() {
	local f comment

	for f in "$@"; do
		comment=$(llvm-readelf -p .comment "$f" 2>/dev/null) || return 1
		grep -q 'clang version' <<<"$comment" || return 1
		! grep -q 'GCC:' <<<"$comment" || return 1
	done
}

if ! gate_install clang lld llvm flex bison make "$meta" >&2 || ! gate_kernel_src; then
	fail "clang: the compiler, the headers or the kernel's scripts could not be installed"
	finish
fi
release=$(release_of "$meta")
hdr=/usr/src/linux-headers-$release
if [ -z "$release" ] || [ ! -d "$hdr" ]; then
	fail "clang: no headers for $meta"
	finish
fi
source_version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
[ "${release%%+*}" = "${source_version%%-*}" ] ||
	echo "clang.sh: Kconfig of linux-source $source_version for headers $release" >&2
clang_version=$(clang --version | head -n 1)
key=$({ echo "$release"; echo "$ksrc"; echo "$clang_version"; ld.lld --version; cat "$0"; } |
	sha256sum | cut -c1-16)
trees=$cache/clang-kdir-$key
if ! prepare; then
	fail "clang: Kconfig could not configure $release for clang"
	finish
fi
echo "clang.sh: $(grep -c . "$trees/stock.config-diff") lines of Debian's .config differ for $clang_version; see $trees/stock.config-diff" >&2

said=$(build smoke "$trees/stock" TIMEQ_SMOKE=y TIMEQ_CLIENT=y modules)
if [ -n "$said" ]; then
	printf '%s\n' "$said" | note
	fail "timeq.ko, timeq_smoke.ko, timeq_client.ko and timeq_flowtrack.ko with $clang_version against $release: warnings or errors"
elif ! by_clang "$out/smoke/timeq.ko" "$out/smoke/timeq_smoke.ko" \
		"$out/smoke/timeq_client.ko" "$out/smoke/timeq_flowtrack.ko"; then
	fail "timeq.ko, timeq_smoke.ko, timeq_client.ko and timeq_flowtrack.ko against $release: not built by clang"
else
	pass "timeq.ko, timeq_smoke.ko, timeq_client.ko and timeq_flowtrack.ko build clean at W=1 with $clang_version (LLVM=1) against $release"
fi

said=$(build kunit "$trees/kunit" TIMEQ_KUNIT=y TIMEQ_DEBUG=y timeq.o timeq_test.o)
if [ -n "$said" ]; then
	printf '%s\n' "$said" | note
	fail "timeq.o and timeq_test.o (KUnit) with $clang_version against $release: warnings or errors"
elif ! by_clang "$out/kunit/timeq.o" "$out/kunit/timeq_test.o"; then
	fail "timeq.o and timeq_test.o against $release: not built by clang"
else
	pass "timeq.o and timeq_test.o (TIMEQ_KUNIT=y TIMEQ_DEBUG=y) compile clean at W=1 with $clang_version against $release with CONFIG_KUNIT=m"
fi
finish

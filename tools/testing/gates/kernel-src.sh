#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-src.sh: print the path of a directory holding the kernel's own
# checking tools, taken from Debian's linux-source-6.12 (the source of the
# debug kernel, so the gates and the kernel agree on the rules):
#
#   scripts/          checkpatch.pl with spelling.txt and
#                     const_structs.checkpatch, kernel-doc, and what Kconfig
#                     and the kernel Makefile need (the clang gate runs
#                     `make olddefconfig` with it)
#   Makefile, arch/x86/Makefile*, every Kconfig file
#   .clang-format
#
# Installs linux-source-6.12 when it is missing. It does not need the debug
# kernel: a fresh machine with TIMEQ_CHECK_VM=0 never builds one. The
# tarball is xz, so even these few paths cost a read of all of it (about
# 10 s): the result is cached in ${TIMEQ_CACHE:-$HOME/.cache/timeq}/
# kernel-src-<key>, key = the package version and this script, made in a
# temporary directory and renamed when complete, under a lock. The last
# line of stdout is the path; progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

pkg=linux-source-6.12
tarball=/usr/src/$pkg.tar.xz
cache=${TIMEQ_CACHE:-$HOME/.cache/timeq}

gate_install "$pkg" xz-utils >&2
version=$(dpkg-query -W -f='${Version}' "$pkg")
key=$({ echo "$pkg $version"; cat "$0"; } | sha256sum | cut -c1-16)
dir=$cache/kernel-src-$key

mkdir -p "$cache"
exec 9>"$cache/kernel-src.lock"
flock 9
if [ ! -f "$dir/scripts/checkpatch.pl" ]; then
	echo "kernel-src.sh: extracting the kernel's tools from $tarball" >&2
	rm -rf "$dir" "$dir".tmp.*
	tmp=$dir.tmp.$$
	mkdir -p "$tmp"
	tar -xJf "$tarball" -C "$tmp" --strip-components=1 --wildcards \
		--no-wildcards-match-slash "$pkg/Makefile" "$pkg/.clang-format" \
		"$pkg/arch/x86/Makefile*" \
		--wildcards-match-slash "$pkg/scripts/*" "$pkg/*/Kconfig*" \
		"$pkg/Kconfig"
	mv "$tmp" "$dir"
	# Only this key's copy is of use now.
	for old in "$cache"/kernel-src-*; do
		[ "$old" = "$dir" ] || rm -rf "$old"
	done
fi
echo "$dir"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make htmldocs`: Documentation/ in HTML, at build/htmldocs, with Debian's
# python3-sphinx and the kernel's own kernel-doc extension: kerneldoc.py
# from linux-source-6.12's Documentation/sphinx, which runs the
# scripts/kernel-doc of kernel-src.sh. Fails if Sphinx or kernel-doc says
# anything at all: a warning is a page that renders wrong, or a comment
# that documents nothing. Installs python3-sphinx when missing.
#
# The extension is extracted once into ${TIMEQ_CACHE:-$HOME/.cache/timeq}/
# kernel-sphinx-<key>, key = the package version and this script, made in
# a temporary directory and renamed when complete, under a lock. Other
# keys' entries (a few hundred KiB) are left alone: worktrees share the
# cache, and one that removed the others' would remove them mid-run.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=gates/lib.sh
. "$here/gates/lib.sh"

pkg=linux-source-6.12
out=$top/build/htmldocs
cache=${TIMEQ_CACHE:-$HOME/.cache/timeq}

# The directory holding Documentation/sphinx/, extracted when missing.
sphinx_ext() {
	local version key dir tmp

	version=$(dpkg-query -W -f='${Version}' "$pkg") || return
	key=$({ echo "$pkg $version"; cat "$0"; } | sha256sum | cut -c1-16)
	dir=$cache/kernel-sphinx-$key
	mkdir -p "$cache"
	exec 9>"$cache/kernel-sphinx.lock"
	flock 9
	if [ ! -f "$dir/Documentation/sphinx/kerneldoc.py" ]; then
		echo "htmldocs.sh: extracting the kernel's Sphinx extensions" >&2
		rm -rf "$dir" "$dir".tmp.*
		tmp=$dir.tmp.$$
		mkdir -p "$tmp"
		tar -xJf "/usr/src/$pkg.tar.xz" -C "$tmp" --strip-components=1 \
			--wildcards "$pkg/Documentation/sphinx/*" || return
		mv "$tmp" "$dir"
	fi
	exec 9>&-
	echo "$dir"
}

if ! gate_install python3-sphinx "$pkg" xz-utils >&2 || ! gate_kernel_src ||
   ! ext=$(sphinx_ext); then
	echo "htmldocs: python3-sphinx or the kernel's tools could not be had" >&2
	exit 1
fi
rm -rf "$out"
said=$(TIMEQ_KSRC=$ksrc TIMEQ_SPHINX=$ext/Documentation/sphinx \
	sphinx-build -q -b html -d "$out/.doctrees" "$top/Documentation" \
	"$out" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || [ -n "$said" ]; then
	printf '%s\n' "$said" | sed "s|$top/||g"
	echo "htmldocs: Sphinx or kernel-doc had something to say (status $rc)" >&2
	exit 1
fi
echo "htmldocs: $out/index.html"

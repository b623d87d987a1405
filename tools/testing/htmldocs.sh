#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make htmldocs`: Documentation/ in HTML, at build/htmldocs, with Debian's
# python3-sphinx and the kernel's kernel-doc extension (from linux-source,
# kernel-src.sh). Fails if Sphinx or kernel-doc says anything at all: a
# warning is a page that renders wrong, or a comment that documents
# nothing. Installs python3-sphinx when missing.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=gates/lib.sh
. "$here/gates/lib.sh"

out=$top/build/htmldocs
if ! gate_install python3-sphinx >&2 || ! gate_kernel_src; then
	echo "htmldocs: python3-sphinx or the kernel's tools could not be installed" >&2
	exit 1
fi
rm -rf "$out"
said=$(TIMEQ_KSRC=$ksrc sphinx-build -q -b html -d "$out/.doctrees" \
	"$top/Documentation" "$out" 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || [ -n "$said" ]; then
	printf '%s\n' "$said" | sed "s|$top/||g"
	echo "htmldocs: Sphinx or kernel-doc had something to say (status $rc)" >&2
	exit 1
fi
echo "htmldocs: $out/index.html"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-doc.sh [FILE...]: the kernel's scripts/kernel-doc -none -Wall
# from linux-source-6.12 (kernel-src.sh) over every .c and .h file in
# module/, include/, kunit/, tools/lib/ and samples/ (lib.sh), or over the
# FILEs given. One TAP line a file; any warning fails it. -Wall adds to
# the default checks (every parameter and member described, the comment's
# name matching the code) a Return: section wherever a function returns a
# value, a short description on every comment, and no text before the
# first section.
#
# It also fails a file with an EXPORT_SYMBOL*() whose symbol has no
# kernel-doc comment anywhere in module/ or include/: other modules use
# these, and DESIGN.md asks each to say its context and locking. Exports
# made only for the KUnit suites (EXPORT_SYMBOL_IF_KUNIT) are internals
# and are not asked.
#
# Why: `make htmldocs` would run the same script over the same comments;
# a comment it cannot parse documents nothing, and one that has drifted
# from its function misleads.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

if ! gate_install perl >&2 || ! gate_kernel_src; then
	fail "kernel-doc: the kernel's scripts could not be found or installed"
	finish
fi
kdoc=$ksrc/scripts/kernel-doc

# Every function and macro that has a kernel-doc comment somewhere.
documented=$(cd "$top" && find module include -type f -name '*.[ch]' -print0 |
	xargs -0 perl "$kdoc" -rst 2>/dev/null |
	sed -n 's/^\.\. c:\(function\|macro\):: \(.*[ *]\)\{0,1\}\([A-Za-z_][A-Za-z0-9_]*\)\( *(.*\)\{0,1\}$/\3/p' |
	sort -u)

while IFS= read -r f; do
	said=$(cd "$top" && perl "$kdoc" -none -Wall "$f" 2>&1)
	undoc=$(cd "$top" && grep -n 'EXPORT_SYMBOL\(_GPL\|_NS\|_NS_GPL\)\{0,1\}(' "$f" |
		sed 's/^\([0-9]*\):.*EXPORT_SYMBOL[A-Z_]*( *\([A-Za-z0-9_]*\).*/\1 \2/' |
		while read -r line sym; do
			grep -qx "$sym" <<<"$documented" ||
				echo "$f:$line: $sym is exported but has no kernel-doc comment"
		done)
	said=$(printf '%s\n%s' "$said" "$undoc" | grep .)
	verdict "$said" "$f: kernel-doc -Wall clean" \
		"$f: kernel-doc -Wall findings, above"
done < <(gate_sources "$@")
finish

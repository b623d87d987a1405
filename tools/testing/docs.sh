#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# docs.sh: the documentation renders without a warning, says what the ABI
# says, and its programs build. Prints TAP.
#
#   timeq(4)    rendered by groff -man -ww and by man -l --warnings, neither
#               saying anything; it names every command, every field of
#               every structure and every errno of include/uapi/linux/
#               timeq.h, whose DOC comment and kernel-doc are the ABI's
#               authority, so the page cannot drift from it unnoticed
#   examples    the programs of Documentation/examples and of timeq(4)'s
#               EXAMPLES build at -Wall -Wextra -Werror (the VM runs them)
#   htmldocs    `make htmldocs` (htmldocs.sh): Sphinx and kernel-doc
#               silent
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=gates/lib.sh
. "$here/gates/lib.sh"

page=$top/man/timeq.4
uapi=$top/include/uapi/linux/timeq.h

if ! gate_install groff-base man-db gcc make >&2; then
	fail "docs: groff or man could not be installed"
	finish
fi

said=$(groff -man -ww -z "$page" 2>&1)
if [ -z "$said" ]; then
	pass "timeq(4): groff -man -ww renders it without a warning"
else
	printf '%s\n' "$said" | note
	fail "timeq(4): groff -man -ww warns"
fi
said=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
if [ -z "$said" ]; then
	pass "timeq(4): man -l --warnings renders it without a warning"
else
	printf '%s\n' "$said" | note
	fail "timeq(4): man -l --warnings warns"
fi

# absent KIND WORD...: the words that the page does not name.
absent() {
	local kind=$1 word missing=

	shift
	for word in "$@"; do
		grep -qw -- "$word" "$page" || missing="$missing $word"
	done
	if [ -z "$missing" ]; then
		pass "timeq(4) names every $kind of the ABI ($# of them)"
	else
		fail "timeq(4) does not name these ${kind}s of the ABI:$missing"
	fi
}
mapfile -t commands < <(sed -n 's/^#define \(TIMEQ_[A-Z_]*\)[[:space:]]*_IO(.*/\1/p' "$uapi")
mapfile -t fields < <(sed -n 's/^\t__\(u32\|s32\|aligned_u64\) \([a-z_]*\).*;$/\2/p' "$uapi" | sort -u)
mapfile -t errnos < <(sed -n 's/^ \*  - \(E[A-Z0-9]*\):.*/\1/p' "$uapi")
absent command "${commands[@]}"
absent "structure field" "${fields[@]}"
absent errno "${errnos[@]}"

if said=$(make -C "$top/Documentation/examples" OUT="$top/build/examples" 2>&1); then
	pass "the examples of Documentation/ and of timeq(4) build at -Wall -Wextra -Werror"
else
	printf '%s\n' "$said" | tail -n 20 | note
	fail "the examples of Documentation/ or of timeq(4) do not build"
fi

if said=$("$here/htmldocs.sh" 2>&1); then
	pass "make htmldocs: Sphinx and kernel-doc build Documentation/ without a word"
else
	printf '%s\n' "$said" | tail -n 30 | note
	fail "make htmldocs: warnings, above"
fi
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# compat.sh [FILE...]: the kernel code is written against the newest
# kernel's API, and module/compat.h alone knows the older ones (its top
# comment). This gate fails a file that uses, outside compat.h:
#
#   - an API compat.h's table lists in its "before it" column (such as
#     hrtimer_init(), gone in 6.15, or from_timer(), gone in 6.16): a
#     call that builds here and not on a newer kernel;
#   - LINUX_VERSION_CODE or KERNEL_VERSION(): the version tests are
#     compat.h's;
#   - a symbol namespace written out in MODULE_IMPORT_NS() or
#     EXPORT_SYMBOL_NS*() rather than through TIMEQ_NS or TIMEQ_KUNIT_NS:
#     before 6.13 it is an identifier, from 6.13 on a string, so either
#     form breaks one side.
#
# Over the kernel sources of lib.sh (module/, include/, kunit/, tools/lib/,
# samples/), the in-kernel benchmark (tools/bench/kernel/) and the test
# bench's module (tools/testing/vm/selftest/), or over the FILEs given.
# One TAP line a file.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

compat=module/compat.h

# The table's rows: "since", the newer API, and what it replaces, separated
# by tabs; the names with "()" in the last column are the older API.
old=$(sed -n '/^ \*\tsince\t/,/^ \*$/p' "$top/$compat" |
	awk -F'\t+' 'NR > 1 && NF >= 4 { print $NF }' |
	grep -o '[A-Za-z_][A-Za-z0-9_]*()' | tr -d '()' | sort -u)
if [ -z "$old" ]; then
	fail "$compat: no older API found in its table"
	finish
fi
pattern=$(printf '%s\n' $old | paste -sd'|')

sources() {
	if [ $# -gt 0 ]; then
		gate_sources "$@"
		return
	fi
	gate_sources
	(cd "$top" && find tools/bench/kernel tools/testing/vm/selftest \
		-type f -name '*.[ch]' | LC_ALL=C sort)
}

while IFS= read -r f; do
	[ "$f" != "$compat" ] || continue
	said=$(cd "$top" && {
		grep -nwE "($pattern)" "$f" |
			sed "s|^|$f:|; s|\$|  (compat.h's older API)|"
		grep -nwE 'LINUX_VERSION_CODE|KERNEL_VERSION' "$f" |
			sed "s|^|$f:|; s|\$|  (a version test outside compat.h)|"
		grep -nE '(MODULE_IMPORT_NS|EXPORT_SYMBOL_NS(_GPL)?)[[:space:]]*\(' "$f" |
			grep -vE 'MODULE_IMPORT_NS\((TIMEQ_NS|TIMEQ_KUNIT_NS)\)|EXPORT_SYMBOL_NS(_GPL)?\([A-Za-z0-9_]+, *(TIMEQ_NS|TIMEQ_KUNIT_NS)\)' |
			sed "s|^|$f:|; s|\$|  (a namespace not through TIMEQ_NS)|"
	})
	verdict "$said" "$f: no version-sensitive API outside compat.h" \
		"$f: version-sensitive API outside compat.h, above"
done < <(sources "$@")
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh [FILE...]: the kernel's own style checker,
# scripts/checkpatch.pl --strict --no-tree from linux-source-6.12
# (kernel-src.sh), over every .c and .h file in module/, include/, kunit/,
# tools/lib/ and samples/ (gate_sources) and in the userspace programs,
# the kselftests in tools/testing/selftests/ and timeqctl in
# tools/timeqctl/ (gate_user_sources), or over the FILEs given. One TAP
# line a file; any ERROR, WARNING or CHECK fails that file and is shown as
# "# file:line: TYPE:NAME: message".
#
# Why: timeq is meant to read like kernel code and to be submittable as
# such; --strict adds the checks maintainers apply to new code (alignment
# to the open parenthesis, blank lines, spaces around operators, ...).
# The selftests would go upstream with the module, and timeqctl is
# written in the same style. --no-tree because this is not a kernel tree.
#
# What is relaxed (gate_checkpatch in lib.sh says it at length): in the
# userspace programs, USE_NEGATIVE_ERRNO alone, because errno values are
# positive in userspace and `errno == EINVAL` is right there; and in
# module/compat.h, whose purpose is to test the kernel's version, the two
# rules its version tests draw (LINUX_VERSION_CODE, CONSTANT_COMPARISON).
# Nothing else: a finding is fixed, or the line is rewritten so that the
# reason is plain.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

if ! gate_install perl >&2 || ! gate_kernel_src; then
	fail "checkpatch: the kernel's scripts could not be found or installed"
	finish
fi
while IFS= read -r f; do
	said=$(gate_checkpatch "$f" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ -z "$said" ]; then
		pass "$f: checkpatch --strict clean"
	else
		printf '%s\n' "$said" | note
		fail "$f: checkpatch --strict findings, above"
	fi
done < <(
	gate_sources "$@"
	[ $# -gt 0 ] || gate_user_sources
)
finish

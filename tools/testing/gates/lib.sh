# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What every gate in this directory shares; each gate sources it. A gate
# checks the code without running it (style, documentation, a second
# compiler), prints TAP ("ok N - ...", "not ok N - ...", findings as "# "
# lines, then "1..N") and exits non-zero if any line was "not ok", so that
# `make check` (tools/testing/check.sh) counts it and `make style` and
# `make lint` can run it alone.
#
# Provides:
#   top                the root of this tree
#   scratch            build/gates/, for the gates' temporary files
#   gate_sources [F..] the files the gates check: every .c and .h under
#                      module/, include/, kunit/, tools/lib/ (libtimeq,
#                      whose kernel-doc the documentation pulls in too)
#                      and samples/, or the files given (relative to
#                      $top), one per line
#   gate_user_sources  the userspace programs' .c and .h files: the
#                      kselftests (tools/testing/selftests/) and timeqctl
#                      (tools/timeqctl/), one per line
#   gate_install P..   install the Debian packages given that are missing
#   gate_kernel_src    set ksrc to the directory of the kernel's own tools
#                      (kernel-src.sh): scripts/, .clang-format, Kconfig
#   gate_checkpatch F.. the kernel's checkpatch.pl, as the checkpatch gate
#                      runs it, over files relative to $top: one finding a
#                      line, "file:line: TYPE:NAME: message"
#   pass/fail/skip     one TAP line each; note: stdin as TAP comments;
#   verdict S OK BAD   pass OK when the findings S are empty, else S as
#                      notes and fail BAD;
#   finish             the plan line, and the exit status

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
scratch=$top/build/gates
# The caches live under $HOME; CI's environment may not set it.
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
export HOME
mkdir -p "$scratch"

tap_n=0
tap_failed=0

pass() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

fail() {
	tap_n=$((tap_n + 1))
	tap_failed=1
	echo "not ok $tap_n - $*"
}

# skip WHAT WHY
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

note() {
	sed 's/^/# /'
}

verdict() {
	if [ -z "$1" ]; then
		pass "$2"
	else
		printf '%s\n' "$1" | note
		fail "$3"
	fi
}

finish() {
	echo "1..$tap_n"
	exit "$tap_failed"
}

gate_sources() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@"
		return
	fi
	(cd "$top" && find module include kunit tools/lib samples -type f -name '*.[ch]' |
		LC_ALL=C sort)
}

gate_user_sources() {
	(cd "$top" && find tools/testing/selftests tools/timeqctl -type f \
		-name '*.[ch]' | LC_ALL=C sort)
}

gate_install() {
	local missing=() p

	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing Debian packages: ${missing[*]}; install them as root" >&2
		return 1
	fi
	echo "installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	if [ -z "${TIMEQ_APT_UPDATED:-}" ]; then
		apt-get update -qq >&2 || return
		export TIMEQ_APT_UPDATED=1
	fi
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

gate_kernel_src() {
	[ -z "${ksrc:-}" ] || return 0
	ksrc=$("$top/tools/testing/gates/kernel-src.sh" | tail -n 1) &&
		[ -d "$ksrc" ]
}

# checkpatch caches the CamelCase names it finds in its working directory
# and reads options from ./.checkpatch.conf and ~/.checkpatch.conf: run it
# in a scratch directory with a scratch $HOME, so that it neither litters
# the tree nor depends on whoever runs it, and with no git directory, so
# that it learns the tree's own names from $top/include (--root) the same
# way in a clone and in an export. Paths in its output are made relative
# to $top again.
#
# One file is let off two rules: module/compat.h, whose whole purpose is
# to test the kernel's version, which code merged upstream never does
# (LINUX_VERSION_CODE), and which compares it the way kernel code does,
# "LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)", where checkpatch takes
# the version for a constant on the wrong side (CONSTANT_COMPARISON).
#
# Another, module/counters.h, is let off four: it holds X-macro lists,
# which checkpatch flags wherever the kernel has them (its trace headers'
# EM() lists, bpf.h's helper mapper). A list draws COMPLEX_MACRO and
# MACRO_ARG_REUSE; an entry's expansion, a struct member or a
# TRACE_DEFINE_ENUM(), draws TRAILING_SEMICOLON, and MACRO_ARG_UNUSED
# where it needs only one of an entry's two parts.
#
# The userspace programs (gate_user_sources) are let off one rule,
# USE_NEGATIVE_ERRNO, which takes every errno name compared or returned
# for the kernel's convention of negative error codes. In userspace errno
# and the values compared with it are positive: `errno == ENOENT`,
# EXPECT_EQ(EINVAL, errno), a model that returns the errno a call must
# fail with. Negating those would make the tests wrong. Where the ABI
# does carry a negative errno (a batch operation's result), the code
# already writes -ENOMEM, which the rule does not flag.
#
# Every other file, and every other rule there, is held to --strict.
gate_checkpatch() {
	local dir=$scratch/checkpatch f path rc=0 ignore

	gate_kernel_src || return 2
	mkdir -p "$dir"
	for f in "$@"; do
		case $f in
		/*) path=$f ;;
		*) path=$top/$f ;;
		esac
		ignore=
		case $path in
		*/module/compat.h) ignore=LINUX_VERSION_CODE,CONSTANT_COMPARISON ;;
		*/module/counters.h)
			ignore=COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_UNUSED
			ignore=$ignore,TRAILING_SEMICOLON ;;
		*/tools/testing/selftests/*.[ch] | */tools/timeqctl/*.[ch])
			ignore=USE_NEGATIVE_ERRNO ;;
		esac
		(cd "$dir" && HOME=$dir GIT_DIR=$dir/no-git \
			perl "$ksrc/scripts/checkpatch.pl" --strict --no-tree \
			--root="$top" --terse --no-summary --show-types \
			--color=never ${ignore:+--ignore "$ignore"} -f "$path") |
			sed "s|^$top/||"
		[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	done
	return "$rc"
}

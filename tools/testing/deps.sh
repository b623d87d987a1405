#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what `make check` needs, and only what is missing: a fresh Debian 12
# machine reaches Debian's package registry and nothing else. Needs root to
# install; without it, says what is missing and fails.
set -euo pipefail

missing=()

need() {	# need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 || missing+=("$2")
}

install() {
	[ $# -gt 0 ] || return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing $*; install them as root" >&2
		exit 1
	fi
	echo "deps: installing $*"
	export DEBIAN_FRONTEND=noninteractive
	if [ -z "${TIMEQ_APT_UPDATED:-}" ]; then
		apt-get update -qq
		export TIMEQ_APT_UPDATED=1
	fi
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

need gcc gcc
need make make
need clang clang
need valgrind valgrind
need perl perl
need sparse sparse
# What the gates, the spin model, module-builds, install and docs would
# install themselves when they run alone (make style, make lint): make
# check runs them side by side, where two apt-get cannot run at once, so
# they are installed here first.
need clang-format clang-format
need groff groff-base
need man man-db
need dkms dkms
need pkg-config pkg-config
need sphinx-build python3-sphinx
need git git
need ld.lld lld
need llvm-objcopy llvm
need flex flex
need bison bison
need xz xz-utils
need spin spin
for pkg in linux-source-6.12 linux-headers-amd64 linux-headers-6.12-amd64 \
	   linux-headers-6.12-rt-amd64; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$pkg")
done
install "${missing[@]}"

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT

# 32-bit builds (the queue with 32-bit words) need the i386 C library.
echo 'int main(void) { return 0; }' >"$probe/m.c"
gcc -m32 -o "$probe/m" "$probe/m.c" 2>/dev/null || install gcc-multilib

# libFuzzer and clang's sanitizer runtimes come in a versioned package.
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$probe/f.c"
if ! clang -fsanitize=fuzzer,address,undefined -o "$probe/f" "$probe/f.c" 2>/dev/null; then
	major=$(clang -dumpversion | cut -d. -f1)
	install "libclang-rt-$major-dev"
fi

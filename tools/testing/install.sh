#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# install.sh: the ways timeq is installed, each from a copy of the tree,
# none touching the machine's own directories. Prints TAP.
#
#   dkms      `make dkms-src` fills a private source tree with the version
#             from module/main.c, then `dkms add` and `dkms build` against
#             each Debian header package timeq supports (6.1, 6.12,
#             6.12-rt), into a private dkms tree; the module must come out
#             with that kernel's vermagic and the module's version
#   install   `make install DESTDIR=...` against the 6.12 headers: the
#             module where modules_install puts it and known to depmod,
#             the uapi header, libtimeq with its pkg-config file, timeqctl
#             and timeq(4)
#   library   a program built from that staging area with pkg-config, once
#             against the shared and once against the static library, runs
#             and gets a negative errno or a descriptor from timeqfd_open()
#   cli       the staged timeqctl refuses a number with a sign, beyond its
#             option's range or with garbage after it, with status 2,
#             before it opens anything
#
# dkms signs what it builds with a key it makes in /var/lib/dkms when
# there is none; the builds run in a mount namespace with a tmpfs there,
# so the key is thrown away. Installs dkms and pkg-config when missing.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=gates/lib.sh
. "$here/gates/lib.sh"

metas=(linux-headers-amd64 linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64)
work=$top/build/install
version=$(sed -n 's/^MODULE_VERSION("\(.*\)");$/\1/p' "$top/module/main.c")

release_of() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\([0-9].*-amd64\)$/\1/p' | head -n 1
}

# A copy of the tree at $work/tree, without build products.
copy_tree() {
	rm -rf "$work"
	mkdir -p "$work/tree"
	tar -C "$top" --exclude=./build --exclude=./.git -c . | tar -C "$work/tree" -x
}

# dkms RELEASE...: add once, then build for each release.
dkms_builds() {
	local src=$work/dkms-src tree=$work/dkms-tree rel ko said

	make -s -C "$work/tree" dkms-src DKMSDIR="$src/timeq-$version" ||
		{ fail "make dkms-src"; return; }
	grep -qx "PACKAGE_VERSION=\"$version\"" "$src/timeq-$version/dkms.conf" &&
		pass "make dkms-src: dkms.conf of version $version" ||
		fail "make dkms-src: dkms.conf does not say version $version"
	mkdir -p "$tree"
	for rel in "$@"; do
		said=$(in_namespace dkms add -m timeq -v "$version" \
			--sourcetree "$src" --dkmstree "$tree" 2>&1 &&
		       in_namespace dkms build -m timeq -v "$version" -k "$rel" \
			--sourcetree "$src" --dkmstree "$tree" 2>&1)
		ko=$(find "$tree/timeq/$version/$rel" -name 'timeq.ko*' 2>/dev/null | head -n 1)
		if [ -z "$ko" ]; then
			printf '%s\n' "$said" | tail -n 20 | note
			fail "dkms build against $rel"
		elif modinfo -F vermagic "$ko" | grep -q "^$rel " &&
		     [ "$(modinfo -F version "$ko")" = "$version" ]; then
			pass "dkms build against $rel: $(basename "$ko"), version $version"
		else
			fail "dkms build against $rel: $ko has vermagic $(modinfo -F vermagic "$ko")"
		fi
		in_namespace dkms remove -m timeq -v "$version" --all \
			--sourcetree "$src" --dkmstree "$tree" >/dev/null 2>&1
	done
}

# Run a command with /var/lib/dkms a tmpfs, if a mount namespace can be had.
in_namespace() {
	if [ -z "${namespace:-}" ]; then
		namespace=no
		unshare -m true 2>/dev/null && namespace=yes
		[ $namespace = yes ] ||
			echo "# no mount namespace: dkms keeps its key in /var/lib/dkms"
	fi
	if [ $namespace = yes ]; then
		unshare -m sh -c 'mount -t tmpfs tmpfs /var/lib/dkms && exec "$@"' sh "$@"
	else
		"$@"
	fi
}

# install RELEASE: make install into a staging root, and look at it.
staged_install() {
	local rel=$1 root=$work/root prefix=/usr/local f missing=
	local kdir=/usr/src/linux-headers-$1

	if ! make -C "$work/tree" install KDIR="$kdir" DESTDIR="$root" \
		PREFIX="$prefix" >"$work/install.log" 2>&1; then
		tail -n 20 "$work/install.log" | note
		fail "make install against $rel"
		return
	fi
	for f in "lib/modules/$rel/updates/timeq.ko*" \
		 "lib/modules/$rel/modules.dep" \
		 "$prefix/include/linux/timeq.h" \
		 "$prefix/include/timeq/timeq.h" \
		 "$prefix/lib/libtimeq.a" "$prefix/lib/libtimeq.so" \
		 "$prefix/lib/libtimeq.so.2" "$prefix/lib/pkgconfig/timeq.pc" \
		 "$prefix/bin/timeqctl" "$prefix/share/man/man4/timeq.4"; do
		# shellcheck disable=SC2086 # the module's name is a pattern
		compgen -G "$root/"$f >/dev/null || missing="$missing $f"
	done
	if [ -n "$missing" ]; then
		fail "make install against $rel: missing$missing"
	elif ! grep -q '^updates/timeq.ko[^:]*:' "$root/lib/modules/$rel/modules.dep"; then
		fail "make install against $rel: depmod does not list timeq"
	else
		pass "make install against $rel: module (depmod knows it), header, library, pkg-config, timeqctl, timeq(4)"
	fi
}

# library KIND: build a program with pkg-config from the staging root.
library() {
	local kind=$1 root=$work/root dir=$work/prog flags out=$work/prog/$1 said

	mkdir -p "$dir"
	cat >"$dir/prog.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <timeq/timeq.h>

/* A descriptor, or a negative errno: never -1 with errno set. */
int main(void)
{
	int fd = timeqfd_open(0);

	printf("timeqfd_open: %d (%s)\n", fd, fd < 0 ? strerror(-fd) : "open");
	return fd == -1 ? 1 : 0;
}
EOF
	flags=$(PKG_CONFIG_SYSROOT_DIR=$root \
		PKG_CONFIG_LIBDIR=$root/usr/local/lib/pkgconfig \
		pkg-config $([ "$kind" = static ] && echo --static) --cflags --libs timeq) ||
		{ fail "pkg-config timeq: not found in the staging root"; return; }
	# shellcheck disable=SC2086 # flags are words
	if ! said=$(gcc -Wall -Werror $([ "$kind" = static ] && echo -static) \
		    -o "$out" "$dir/prog.c" $flags 2>&1); then
		printf '%s\n' "$said" | note
		fail "a program built with pkg-config against the $kind libtimeq"
	elif said=$(LD_LIBRARY_PATH=$root/usr/local/lib "$out" 2>&1); then
		pass "a program built with pkg-config against the $kind libtimeq runs: $said"
	else
		printf '%s\n' "$said" | note
		fail "a program built with pkg-config against the $kind libtimeq"
	fi
}

# cli: the staged timeqctl's refusals of bad numbers, each an exit status
# of 2 (bounded in time, should one be taken); and, so that the refusals
# are its options' and not of every call, a number of each kind it takes.
cli() {
	local bin=$work/root/usr/local/bin/timeqctl want args rc bad=

	while read -r want args; do
		# shellcheck disable=SC2086 # the arguments are words
		timeout 60 "$bin" $args >/dev/null 2>&1
		rc=$?
		[ "$rc" -eq "$want" ] || bad="$bad \"$args\" ($rc, not $want)"
	done <<-EOF
		2 stats --fd -5
		2 stats --fd 4294967296
		2 demo --spread -1
		2 demo --spread 86400001
		2 demo --timers 5x
		0 tune --count 0x10 --mean-jump 100
		1 stats --fd 2147483647
	EOF
	if [ -n "$bad" ]; then
		fail "timeqctl's numbers:$bad"
	else
		pass "timeqctl refuses a sign, a number out of range and garbage with status 2, and takes numbers in range"
	fi
}

if ! gate_install dkms pkg-config "${metas[@]}" >&2; then
	fail "install: dkms, pkg-config or the headers could not be installed"
	finish
fi
releases=()
for meta in "${metas[@]}"; do
	rel=$(release_of "$meta")
	[ -n "$rel" ] && [ -d "/usr/src/linux-headers-$rel" ] && releases+=("$rel")
done
copy_tree
dkms_builds "${releases[@]}"
staged_install "$(release_of linux-headers-6.12-amd64)"
library shared
library static
cli
finish

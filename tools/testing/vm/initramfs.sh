#!/usr/bin/env bash
# tools/testing/vm/initramfs.sh - build the busybox initramfs of a timeq test guest.
#
# Usage:
#   initramfs.sh -o OUT.cpio.gz [-k 'MOD.ko [PARAM=V ...]']... \
#                [-b 'BINARY [ARG ...]']... [-i INIT] [-f SRC:DST]... \
#                [-c NAME=VALUE]...
#
#   -o OUT    the gzip-compressed newc cpio archive to write
#   -k SPEC   a kernel module and its insmod parameters (one word each, no
#             spaces inside a word); copied to /lib/modules/timeq/; loaded by
#             the init in the order given, unloaded in reverse order.
#             .ko.xz/.ko.gz/.ko.zst are decompressed here.
#   -b SPEC   a test program and its arguments; copied to /tests/.  Static
#             binaries need nothing else; for a dynamic one its libraries
#             (from ldd) are copied too.  Run in the order given.
#   -i INIT   the init script, installed as /init (default: init.sh beside
#             this script)
#   -f S:D    copy file S to path D inside the image (e.g. test data)
#   -c N=V    add 'N=V' to /etc/timeq-vm.conf (options read by init.sh, e.g.
#             -c TIMEQ_RMMOD=0, -c TIMEQ_TEST_TIMEOUT=300, -c TIMEQ_HANG=1)
#
# The image holds busybox-static at /bin/busybox with every applet as a
# symlink, the directories /dev /proc /sys /sys/kernel/debug /tmp (the init
# mounts them), /dev/console and /dev/null (when run as root), the modules in
# /lib/modules/timeq/, the programs in /tests/, and /etc/timeq-vm.conf, a
# shell fragment the init sources:
#     TIMEQ_MODULES  newline-separated "file.ko params..." in load order
#     TIMEQ_TESTS    newline-separated "program args..." in run order
# Paths with spaces are not supported.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out='' init=$here/init.sh
mods=() bins=() files=() confs=()
while getopts "o:k:b:i:f:c:h" opt; do
	case $opt in
	o) out=$OPTARG ;;
	k) mods+=("$OPTARG") ;;
	b) bins+=("$OPTARG") ;;
	i) init=$OPTARG ;;
	f) files+=("$OPTARG") ;;
	c) confs+=("$OPTARG") ;;
	h) sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	*) exit 2 ;;
	esac
done
set -f	# the word lists below are split on blanks, never globbed
die() { echo "initramfs.sh: ERROR: $*" >&2; exit 1; }
[ -n "$out" ] || die "no output path (-o)"
[ -r "$init" ] || die "init script $init not found"
BUSYBOX=${BUSYBOX:-/bin/busybox}
[ -x "$BUSYBOX" ] || die "$BUSYBOX missing: run $here/deps.sh (busybox-static)"
if ldd "$BUSYBOX" >/dev/null 2>&1; then die "$BUSYBOX is not static (install busybox-static)"; fi

stage=$(mktemp -d "${TMPDIR:-/tmp}/timeq-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cd "$stage"
mkdir -p bin sbin usr/bin usr/sbin etc dev proc sys tmp root tests lib/modules/timeq
cp "$BUSYBOX" bin/busybox
# Applets as symlinks to /bin/busybox, at the paths busybox itself names.
for a in $(bin/busybox --list-full); do
	[ "$a" = bin/busybox ] && continue
	mkdir -p "$(dirname "$a")"
	ln -sf /bin/busybox "$a"
done
# The kernel's built-in initramfs already has /dev/console; add our own
# nodes when we can (mknod needs root), the init mounts devtmpfs anyway.
if [ "$(id -u)" = 0 ]; then
	mknod -m 600 dev/console c 5 1
	mknod -m 666 dev/null c 1 3
fi
install -m 755 "$init" init

# copy_with_libs SRC DSTDIR: copy a program; for a dynamic one also its
# loader and libraries at their own paths.
copy_with_libs() {
	local src=$1 dst=$2 lib
	cp "$src" "$dst/"
	chmod +x "$dst/$(basename "$src")"
	if ldd "$src" >/dev/null 2>&1; then
		echo "initramfs.sh: $src is dynamic; copying its libraries" >&2
		for lib in $(ldd "$src" | grep -o '/[^ ]*'); do
			[ -e "$lib" ] || continue
			mkdir -p ".$(dirname "$lib")"
			cp -L "$lib" ".$lib"
		done
	fi
}

modlist='' testlist=''
for spec in "${mods[@]+"${mods[@]}"}"; do
	set -- $spec
	ko=$1; shift
	[ -r "$ko" ] || die "module $ko not found"
	base=$(basename "$ko")
	case $base in
	*.ko) cp "$ko" "lib/modules/timeq/$base" ;;
	*.ko.xz) base=${base%.xz}; xz -dc "$ko" > "lib/modules/timeq/$base" ;;
	*.ko.gz) base=${base%.gz}; gzip -dc "$ko" > "lib/modules/timeq/$base" ;;
	*.ko.zst) base=${base%.zst}; zstd -qdc "$ko" > "lib/modules/timeq/$base" ;;
	*) die "$ko: not a .ko file" ;;
	esac
	modlist+="$base${*:+ $*}"$'\n'
done
for spec in "${bins[@]+"${bins[@]}"}"; do
	set -- $spec
	bin=$1; shift
	[ -r "$bin" ] || die "test program $bin not found"
	copy_with_libs "$bin" tests
	testlist+="$(basename "$bin")${*:+ $*}"$'\n'
done
for f in "${files[@]+"${files[@]}"}"; do
	src=${f%%:*} dst=${f#*:}
	[ -r "$src" ] || die "file $src not found"
	mkdir -p ".$(dirname "/$dst")"
	cp "$src" "./$dst"
done

{
	echo "# written by initramfs.sh"
	printf "TIMEQ_MODULES='%s'\n" "$modlist"
	printf "TIMEQ_TESTS='%s'\n" "$testlist"
	for c in "${confs[@]+"${confs[@]}"}"; do
		printf "%s='%s'\n" "${c%%=*}" "${c#*=}"
	done
} > etc/timeq-vm.conf

mkdir -p "$(dirname "$out")"
find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs.sh: wrote $out ($(du -k "$out" | cut -f1) KiB; modules: $(echo -n "$modlist" | wc -l), programs: $(echo -n "$testlist" | wc -l))" >&2

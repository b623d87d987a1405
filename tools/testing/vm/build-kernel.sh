#!/usr/bin/env bash
# tools/testing/vm/build-kernel.sh - build (once) the timeq debug test kernel.
#
# Usage: tools/testing/vm/build-kernel.sh [--print-dir] [--force]
#
# Builds Debian's linux-source-6.12 (/usr/src/linux-source-6.12.tar.xz) with
# the fragment kernel.config beside this script applied on top of allnoconfig,
# outside the clone, in
#     ${TIMEQ_CACHE:-$HOME/.cache/timeq}/kernel-<key>
# key = first 16 hex digits of sha256(kernel.config, the linux-source package
# version, this script, the compiler version).  The tree is a normal in-tree
# kernel build, ready for out-of-tree modules:
#     make -C <tree> M=$PWD modules
# and holds the image at <tree>/arch/x86/boot/bzImage.
#
# A second run with the same key does nothing and prints the cached path.
# The LAST LINE of stdout is always the tree path (all progress goes to
# stderr), so callers can do  KDIR=$(build-kernel.sh | tail -n1).
#
#   --print-dir  print the path for the current key without building; exit 1
#                if that tree has not been built yet
#   --force      rebuild even if the tree for this key exists
#
# Environment:
#   TIMEQ_CACHE   cache directory (default $HOME/.cache/timeq)
#   TIMEQ_JOBS    make -j value (default: nproc + 1)
#   TIMEQ_KEEP    number of old kernel-* trees to keep besides this one (default 1)
#
# Atomicity: the tree is extracted and built in kernel-<key>.tmp.<pid> and only
# renamed to kernel-<key> once the build and the config check have succeeded,
# so an interrupted build is never taken as cached (leftover .tmp.* dirs are
# removed by the next run).  A lock file (flock) serialises concurrent runs.
# Non-interactive throughout (stdin is /dev/null for make), suitable for CI.
#
# Run deps.sh first (it installs linux-source-6.12 and the build tools).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
frag=$here/kernel.config
tarball=/usr/src/linux-source-6.12.tar.xz
srcpkg=linux-source-6.12
CACHE=${TIMEQ_CACHE:-$HOME/.cache/timeq}
JOBS=${TIMEQ_JOBS:-$(( $(nproc) + 1 ))}
KEEP=${TIMEQ_KEEP:-1}

print_only=0 force=0
for a in "$@"; do
	case $a in
	--print-dir) print_only=1 ;;
	--force) force=1 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	*) echo "build-kernel.sh: unknown option $a" >&2; exit 2 ;;
	esac
done

log() { echo "build-kernel.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[ -r "$tarball" ] || die "$tarball missing: run $here/deps.sh"
srcver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null) ||
	die "package $srcpkg not installed: run $here/deps.sh"
ccver=$(${CC:-gcc} --version 2>/dev/null | head -n1) || die "no C compiler: run $here/deps.sh"

key=$( { cat "$frag"; echo "$srcpkg $srcver"; cat "$0"; echo "$ccver"; } |
	sha256sum | cut -c1-16)
tree=$CACHE/kernel-$key

# check_config <.config>: every line of the fragment must hold in .config.
#   CONFIG_X=v               -> that exact line is in .config
#   # CONFIG_X is not set    -> CONFIG_X is neither =y nor =m
# Prints each violation with what .config has instead; returns 1 if any.
check_config() {
	local cfg=$1 line sym bad=0 have
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$cfg" && continue
			sym=${line%%=*}
			have=$(grep -E "^$sym=|^# $sym is not set" "$cfg" || true)
			log "CONFIG CHECK FAILED: want '$line', got '${have:-<absent: dependency missing>}'"
			bad=1 ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			if have=$(grep -E "^$sym=[ym]" "$cfg"); then
				log "CONFIG CHECK FAILED: want '$line', got '$have'"
				bad=1
			fi ;;
		esac
	done < "$frag"
	return $bad
}

if [ $print_only = 1 ]; then
	echo "$tree"
	[ -f "$tree/.timeq-built" ]
	exit
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/kernel-$key.lock"
if ! flock -n 9; then
	log "another build of kernel-$key is running; waiting for it"
	flock 9
fi

if [ $force = 0 ] && [ -f "$tree/.timeq-built" ]; then
	log "cached: $tree (key $key)"
	echo "$tree"
	exit 0
fi

# Clear leftovers of interrupted builds of this key (we hold its lock).
rm -rf "$CACHE/kernel-$key".tmp.*
tmp=$CACHE/kernel-$key.tmp.$$
trap '[ -f "$tmp/build.log" ] && cp "$tmp/build.log" "$CACHE/kernel-$key.failed.log"; rm -rf "$tmp"' EXIT
mkdir -p "$tmp"

start=$(date +%s)
log "building kernel-$key from $srcpkg $srcver with -j$JOBS (log: $tmp/build.log, renamed on success)"
log "extracting $tarball"
tar -xJf "$tarball" -C "$tmp" --strip-components=1
cd "$tmp"

log "configuring: allnoconfig + kernel.config, olddefconfig"
make -s KCONFIG_ALLCONFIG="$frag" allnoconfig </dev/null >>build.log 2>&1 ||
	{ tail -n 30 build.log >&2; die "allnoconfig failed"; }
make -s olddefconfig </dev/null >>build.log 2>&1 ||
	{ tail -n 30 build.log >&2; die "olddefconfig failed"; }
check_config .config || die "kconfig dropped required options (see above); fix kernel.config"
log "config check: all $(grep -cE '^(CONFIG_|# CONFIG_.* is not set)' "$frag") fragment lines hold"

log "make -j$JOBS bzImage modules_prepare (about 5 to 10 minutes on 2 cores)"
if ! make -j"$JOBS" bzImage modules_prepare </dev/null >>build.log 2>&1; then
	grep -E 'error|Error' build.log | head -n 20 >&2 || true
	tail -n 30 build.log >&2
	die "kernel build failed (log: $tmp/build.log, kept in $CACHE/kernel-$key.failed.log)"
fi
# 'modules' builds no module here (everything is built in) but runs modpost,
# which writes Module.symvers: with it, out-of-tree modules are checked for
# undefined symbols instead of getting a "Module.symvers is missing" warning.
make -j"$JOBS" modules </dev/null >>build.log 2>&1 ||
	{ tail -n 30 build.log >&2; die "make modules failed"; }
[ -s arch/x86/boot/bzImage ] || die "no bzImage produced"
[ -s Module.symvers ] || die "no Module.symvers produced"
check_config .config || die "the build changed .config (see above)"

end=$(date +%s)
{
	echo "key=$key"
	echo "source=$srcpkg $srcver"
	echo "compiler=$ccver"
	echo "release=$(cat include/config/kernel.release)"
	echo "build_seconds=$((end - start))"
} > .timeq-built
cd /
rm -rf "$tree"
mv "$tmp" "$tree"
trap - EXIT
log "built in $((end - start)) s: $tree"

# Keep the cache bounded: drop the oldest other kernel trees beyond $KEEP,
# newest first by when they were built. A kernel tree is one with the mark
# .timeq-built: the gates' kernel-src-* in the same cache is not one, nor
# is a .tmp.* dir, which may be a build in progress under another key.
old_trees=$(ls -1t "$CACHE"/kernel-*/.timeq-built 2>/dev/null |
	sed 's:/\.timeq-built$::' | grep -v '\.tmp\.' | grep -vxF "$tree" |
	tail -n +$((KEEP + 1))) || true
for old in $old_trees; do
	log "removing old tree $old"
	rm -rf "$old" "$old.lock" "$old.failed.log"
done
rm -f "$CACHE/kernel-$key.failed.log"

echo "$tree"

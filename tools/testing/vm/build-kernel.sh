#!/usr/bin/env bash
# tools/testing/vm/build-kernel.sh - build (once) a timeq test kernel.
#
# Usage: tools/testing/vm/build-kernel.sh [--config debug|kcsan] [--print-dir] [--force]
#
# Builds Debian's linux-source-6.12 (/usr/src/linux-source-6.12.tar.xz) with
# a kconfig fragment beside this script applied on top of allnoconfig,
# outside the clone. Two kernels, chosen by --config:
#   debug  (the default) kernel.config: KUnit, lockdep, KASAN, kmemleak,
#          debugobjects, failslab, ...; in ${TIMEQ_CACHE:-$HOME/.cache/timeq}/kernel-<key>
#   kcsan  kernel.config with the symbols of kernel-kcsan.config taken from
#          there: KCSAN instead of KASAN, the rest as debug; in
#          ${TIMEQ_CACHE:-$HOME/.cache/timeq}/kcsan-<key>
# key = first 16 hex digits of sha256(the fragment as applied, the
# linux-source package version, this script, the compiler version). Each
# kernel has its own key, tree, lock and cache, so the two can be built at
# the same time and neither build evicts the other. The tree is a normal
# in-tree kernel build, ready for out-of-tree modules:
#     make -C <tree> M=$PWD modules
# and holds the image at <tree>/arch/x86/boot/bzImage.
#
# A second run with the same key does nothing and prints the cached path.
# The LAST LINE of stdout is always the tree path (all progress goes to
# stderr), so callers can do  KDIR=$(build-kernel.sh | tail -n1).
#
#   --config C   debug (default) or kcsan
#   --print-dir  print the path for the current key without building; exit 1
#                if that tree has not been built yet
#   --force      rebuild even if the tree for this key exists
#
# Environment:
#   TIMEQ_CACHE   cache directory (default $HOME/.cache/timeq)
#   TIMEQ_JOBS    make -j value (default: nproc + 1)
#   TIMEQ_KEEP    number of old trees of the same --config to keep besides
#                 this one (default 1)
#
# Atomicity: the tree is extracted and built in <tree>.tmp.<pid> and only
# renamed to <tree> once the build and the config check have succeeded,
# so an interrupted build is never taken as cached (leftover .tmp.* dirs are
# removed by the next run).  A lock file (flock) serialises concurrent runs.
# Non-interactive throughout (stdin is /dev/null for make), suitable for CI.
#
# Run deps.sh first (it installs linux-source-6.12 and the build tools).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tarball=/usr/src/linux-source-6.12.tar.xz
srcpkg=linux-source-6.12
CACHE=${TIMEQ_CACHE:-$HOME/.cache/timeq}
JOBS=${TIMEQ_JOBS:-$(( $(nproc) + 1 ))}
KEEP=${TIMEQ_KEEP:-1}

print_only=0 force=0 config=debug
while [ $# -gt 0 ]; do
	case $1 in
	--config)
		[ $# -ge 2 ] || { echo "build-kernel.sh: --config needs debug or kcsan" >&2; exit 2; }
		config=$2; shift ;;
	--print-dir) print_only=1 ;;
	--force) force=1 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	*) echo "build-kernel.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
# The fragments applied, in order (a later one's symbols replace an
# earlier one's), and the name of the trees.
case $config in
debug) frags=("$here/kernel.config") prefix=kernel ;;
kcsan) frags=("$here/kernel.config" "$here/kernel-kcsan.config") prefix=kcsan ;;
*) echo "build-kernel.sh: --config $config: debug or kcsan" >&2; exit 2 ;;
esac

log() { echo "build-kernel.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[ -r "$tarball" ] || die "$tarball missing: run $here/deps.sh"
srcver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null) ||
	die "package $srcpkg not installed: run $here/deps.sh"
ccver=$(${CC:-gcc} --version 2>/dev/null | sed -n 1p) || die "no C compiler: run $here/deps.sh"

# merge_fragments FILE...: the fragment as applied. Each symbol's line
# ("CONFIG_X=v" or "# CONFIG_X is not set") comes from the last file that
# names it; the first file's comments are kept. For --config debug that is
# kernel.config as it is.
merge_fragments() {
	awk '
	function sym(l) {
		if (match(l, /^CONFIG_[A-Za-z0-9_]+=/)) return substr(l, 1, RLENGTH - 1)
		if (match(l, /^# CONFIG_[A-Za-z0-9_]+ is not set$/)) { l = substr(l, 3); sub(/ .*/, "", l); return l }
		return ""
	}
	FNR == 1 { nf++ }
	{ file[NR] = nf; line[NR] = $0; s = sym($0); if (s != "") last[s] = nf }
	END {
		for (i = 1; i <= NR; i++) {
			s = sym(line[i])
			if (s != "" ? last[s] == file[i] : file[i] == 1) print line[i]
		}
	}' "$@"
}
frag_text=$(merge_fragments "${frags[@]}")

key=$( { printf '%s\n' "$frag_text"; echo "$srcpkg $srcver"; cat "$0"; echo "$ccver"; } |
	sha256sum | cut -c1-16)
name=$prefix-$key
tree=$CACHE/$name

# check_config <.config>: every line of the fragment as applied must hold in .config.
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
	done <<< "$frag_text"
	return $bad
}

if [ $print_only = 1 ]; then
	echo "$tree"
	[ -f "$tree/.timeq-built" ]
	exit
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/$name.lock"
if ! flock -n 9; then
	log "another build of $name is running; waiting for it"
	flock 9
fi

if [ $force = 0 ] && [ -f "$tree/.timeq-built" ]; then
	log "cached: $tree (key $key)"
	echo "$tree"
	exit 0
fi

# Clear leftovers of interrupted builds of this key (we hold its lock).
rm -rf "$CACHE/$name".tmp.*
tmp=$CACHE/$name.tmp.$$
trap '[ -f "$tmp/build.log" ] && cp "$tmp/build.log" "$CACHE/$name.failed.log"; rm -rf "$tmp"' EXIT
mkdir -p "$tmp"

start=$(date +%s)
log "building $name (--config $config) from $srcpkg $srcver with -j$JOBS (log: $tmp/build.log, renamed on success)"
log "extracting $tarball"
tar -xJf "$tarball" -C "$tmp" --strip-components=1
cd "$tmp"

log "configuring: allnoconfig + ${frags[*]##*/}, olddefconfig"
printf '%s\n' "$frag_text" > timeq.config
make -s KCONFIG_ALLCONFIG=timeq.config allnoconfig </dev/null >>build.log 2>&1 ||
	{ tail -n 30 build.log >&2; die "allnoconfig failed"; }
make -s olddefconfig </dev/null >>build.log 2>&1 ||
	{ tail -n 30 build.log >&2; die "olddefconfig failed"; }
check_config .config || die "kconfig dropped required options (see above); fix ${frags[*]##*/}"
log "config check: all $(grep -cE '^(CONFIG_|# CONFIG_.* is not set)' timeq.config) fragment lines hold"

log "make -j$JOBS bzImage modules_prepare (minutes; the README's \"Test it\" has the figures on 2 cores)"
if ! make -j"$JOBS" bzImage modules_prepare </dev/null >>build.log 2>&1; then
	grep -E 'error|Error' build.log | head -n 20 >&2 || true
	tail -n 30 build.log >&2
	die "kernel build failed (log: $tmp/build.log, kept in $CACHE/$name.failed.log)"
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
	echo "config=$config"
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

# Keep the cache bounded: drop the oldest other trees of this --config
# beyond $KEEP, newest first by when they were built. A kernel tree is one
# with the mark .timeq-built: the gates' kernel-src-* in the same cache is
# not one, nor is a .tmp.* dir, which may be a build in progress under
# another key. The KCSAN trees are kcsan-*, never kernel-*, so that no
# run of either config (nor an older copy of this script, whose glob is
# kernel-*) drops the other's tree.
old_trees=$(ls -1t "$CACHE"/$prefix-*/.timeq-built 2>/dev/null |
	sed 's:/\.timeq-built$::' | grep -v '\.tmp\.' | grep -vxF "$tree" |
	tail -n +$((KEEP + 1))) || true
for old in $old_trees; do
	log "removing old tree $old"
	rm -rf "$old" "$old.lock" "$old.failed.log"
done
rm -f "$CACHE/$name.failed.log"

echo "$tree"

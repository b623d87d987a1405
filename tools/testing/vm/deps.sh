#!/usr/bin/env bash
# tools/testing/vm/deps.sh - install what the timeq qemu test bench needs.
#
# Usage: tools/testing/vm/deps.sh [--no-stock] [--check]
#
#   (no option)  install the build/boot tools and, when the apt sources have
#                them, the stock Debian kernels 6.12, 6.12-rt and 6.1 with
#                headers
#   --no-stock   skip the stock kernels (debug-kernel bench only)
#   --check      install nothing; exit 1 if something required is missing
#
# Every package is installed only when missing, with
#   apt-get update (once, only if something is missing)
#   apt-get install -y --no-install-recommends ...
# so a second run is fast and makes no network access.
#
# Stock kernels.  On Debian 12 (bookworm) the stock 6.1 kernel is the default
# one (linux-image-amd64 / linux-headers-amd64) and 6.12 is shipped through
# bookworm-security as linux-image-6.12-amd64 / linux-headers-6.12-amd64 (the
# "6.12.N+deb12" ABI).  On a newer release linux-image-amd64 may be 6.12
# itself.  For each wanted series we pick whichever meta-package resolves to
# that series; a series with no package is reported ("unavailable") and
# run-stock.sh then reports its run as skipped, not failed.  The result is
# recorded in $TIMEQ_CACHE/stock-kernels (lines "<series> <kernel-release>" or
# "<series> unavailable").
#
# Must run as root (or with sudo available) and non-interactively (CI).
set -euo pipefail

CACHE=${TIMEQ_CACHE:-$HOME/.cache/timeq}
want_stock=1
check_only=0
for a in "$@"; do
	case $a in
	--no-stock) want_stock=0 ;;
	--check) check_only=1 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	*) echo "deps.sh: unknown option $a" >&2; exit 2 ;;
	esac
done

export DEBIAN_FRONTEND=noninteractive
SUDO=
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null; then SUDO="sudo -n"; else
		echo "deps.sh: need root (or sudo) to install packages" >&2
	fi
fi

# Tools for building the debug kernel and booting it.
BASE_PKGS=(linux-source-6.12 build-essential bc bison flex libelf-dev
	libssl-dev cpio qemu-system-x86 busybox-static xz-utils kmod gzip
	coreutils python3)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'; }

updated=0
apt_install() {
	local missing=() p
	for p in "$@"; do installed "$p" || missing+=("$p"); done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ $check_only = 1 ]; then
		echo "deps.sh: missing: ${missing[*]}" >&2
		return 1
	fi
	if [ $updated = 0 ]; then
		echo "deps.sh: apt-get update" >&2
		$SUDO apt-get update -qq
		updated=1
	fi
	echo "deps.sh: installing ${missing[*]}" >&2
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# apt-cache needs package lists; on a fresh machine they may be empty.
ensure_lists() {
	if [ $updated = 0 ] && ! apt-cache show linux-source-6.12 >/dev/null 2>&1; then
		[ $check_only = 1 ] && return 0
		$SUDO apt-get update -qq
		updated=1
	fi
}

ensure_lists
apt_install "${BASE_PKGS[@]}"

[ $want_stock = 1 ] || exit 0

# candidate <pkg>: the candidate version apt would install, or empty
candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { if ($2 != "(none)") print $2 }'; }

# dep_of <meta>: the versioned linux-image-* package a meta-package depends on
# (awk reads to the end: a reader that leaves early can SIGPIPE apt-cache.)
dep_of() { apt-cache depends "$1" 2>/dev/null | awk '/Depends: linux-(image|headers)-[0-9]/ && !f { print $2; f = 1 }'; }

mkdir -p "$CACHE"
state=$CACHE/stock-kernels
: > "$state.tmp"
rc=0
for series in 6.12 6.12-rt 6.1; do
	img="" hdr=""
	# A meta-package named after the series (e.g. linux-image-6.12-amd64),
	# else the default meta-package if it is this series.
	for pair in "linux-image-$series-amd64 linux-headers-$series-amd64" \
		    "linux-image-amd64 linux-headers-amd64"; do
		set -- $pair
		v=$(candidate "$1")
		case $v in "${series%-rt}".*|"${series%-rt}"-*) ;; *) continue ;; esac
		[ -n "$(candidate "$2")" ] || continue
		img=$1 hdr=$2
		break
	done
	if [ -z "$img" ]; then
		echo "deps.sh: stock kernel $series: not available in the apt sources (its run will be skipped)" >&2
		echo "$series unavailable" >> "$state.tmp"
		continue
	fi
	# Install the concrete ABI packages the meta-packages point to, so a
	# meta-package for another series never drags in a second kernel.
	img_abi=$(dep_of "$img"); hdr_abi=$(dep_of "$hdr")
	[ -n "$img_abi" ] || img_abi=$img
	[ -n "$hdr_abi" ] || hdr_abi=$hdr
	if ! apt_install "$img_abi" "$hdr_abi"; then
		echo "deps.sh: stock kernel $series: install of $img_abi $hdr_abi failed (its run will be skipped)" >&2
		echo "$series unavailable" >> "$state.tmp"
		[ $check_only = 1 ] && rc=1
		continue
	fi
	release=${img_abi#linux-image-}
	release=${release%-unsigned}
	echo "deps.sh: stock kernel $series: $release" >&2
	echo "$series $release" >> "$state.tmp"
done
mv "$state.tmp" "$state"
exit $rc

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build timeq.ko, timeq_flowtrack.ko, timeq_flowbench.ko (TIMEQ_FLOWBENCH=y)
# and the test modules of TIMEQ_SMOKE=y
# and TIMEQ_CLIENT=y (Kbuild says which) against each Debian kernel timeq
# supports, with W=1 and sparse (C=2):
# bookworm's stock 6.1, 6.12 and 6.12-rt. Any line the compiler or sparse
# prints fails that build (build-module.sh). Installs the headers when
# missing. Each build happens in its own copy of the sources under
# build/module-<release>, where the stock-kernel boots find the modules.
# Then checks that a module built without TIMEQ_DEBUG links against a
# TIMEQ_DEBUG=y timeq.ko (one_layout below). Prints TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# Debian meta-packages: each depends on the headers of one current release.
metas=(linux-headers-amd64 linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64)

# The release a meta-package stands for, e.g. 6.12.117+deb12-rt-amd64.
release_of() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\([0-9].*-amd64\)$/\1/p' | head -n 1
}

missing=()
for meta in "${metas[@]}"; do
	dpkg-query -W -f='${Status}' "$meta" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$meta")
done
if [ ${#missing[@]} -gt 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
fi

n=0
failed=0
for meta in "${metas[@]}"; do
	n=$((n + 1))
	release=$(release_of "$meta")
	kdir=/usr/src/linux-headers-$release
	if [ -z "$release" ] || [ ! -d "$kdir" ]; then
		echo "not ok $n - $meta: no headers installed"
		failed=1
		continue
	fi
	if said=$("$top/tools/testing/build-module.sh" "$kdir" \
		  "$top/build/module-$release" TIMEQ_SMOKE=y TIMEQ_CLIENT=y \
		  TIMEQ_FLOWBENCH=y) &&
	   [ -f "$top/build/module-$release/timeq_flowtrack.ko" ] &&
	   [ -f "$top/build/module-$release/timeq_flowbench.ko" ]; then
		echo "ok $n - timeq.ko, timeq_smoke.ko, timeq_client.ko, timeq_flowtrack.ko and timeq_flowbench.ko build clean at W=1 with sparse against $release"
	else
		printf '%s\n' "$said" | sed 's/^/# /'
		echo "not ok $n - timeq.ko against $release: warnings or errors"
		failed=1
	fi
done
# struct timeq_node has one layout in every build: a TIMEQ_DEBUG=y timeq.ko
# keeps its insertion numbers in a table of its own (module/queue.h), and
# exports into the same namespace. The flowtrack sample, built without
# TIMEQ_DEBUG, must link against the symbols of a TIMEQ_DEBUG=y timeq.ko
# and against those of a plain one, with nothing said.
one_layout() {	# one_layout KDIR RELEASE
	local dbg=$top/build/module-debug-$2 work=$top/build/module-one-layout-$2
	local plain=$top/build/module-$2 said symbols

	"$top/tools/testing/build-module.sh" "$1" "$dbg" TIMEQ_DEBUG=y >/dev/null ||
		{ echo "#   the TIMEQ_DEBUG=y build failed"; return 1; }
	rm -rf "$work"
	mkdir -p "$work"
	cp -r "$top/module" "$top/include" "$top/samples" "$work/"
	# The sample's lines of the Kbuild, and its flags.
	cat >"$work/Kbuild" <<-'EOF'
	obj-m := timeq_flowtrack.o
	timeq_flowtrack-y := samples/flowtrack/flowtrack.o
	ccflags-y := -I$(src)/include -include $(src)/module/compat.h \
		     -D'pr_fmt(fmt)=KBUILD_MODNAME ": " fmt'
	EOF
	for symbols in "$dbg" "$plain"; do
		make -s -C "$1" M="$work" clean >/dev/null 2>&1
		said=$(make -s -C "$1" M="$work" \
			KBUILD_EXTRA_SYMBOLS="$symbols/Module.symvers" \
			modules 2>&1 | grep -v '^Skipping BTF generation')
		if [ -n "$said" ] || [ ! -f "$work/timeq_flowtrack.ko" ]; then
			echo "#   against the symbols of $symbols it did not link clean:"
			printf '%s\n' "$said" | head -n 5 | sed 's/^/#   /'
			return 1
		fi
	done
}

release=$(release_of linux-headers-6.12-amd64)
n=$((n + 1))
if said=$(one_layout "/usr/src/linux-headers-$release" "$release"); then
	echo "ok $n - a module built without TIMEQ_DEBUG links against a TIMEQ_DEBUG=y timeq.ko ($release) and a plain one"
else
	printf '%s\n' "$said"
	echo "not ok $n - one node layout and one namespace for TIMEQ_DEBUG and plain builds"
	failed=1
fi
echo "1..$n"
exit $failed

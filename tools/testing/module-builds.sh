#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build timeq.ko, timeq_smoke.ko, timeq_client.ko and timeq_flowtrack.ko
# against each Debian kernel timeq supports, with W=1 and sparse (C=2):
# bookworm's stock 6.1, 6.12 and 6.12-rt. Any line the compiler or sparse
# prints fails that build (build-module.sh). Installs the headers when
# missing. Each build happens in its own copy of the sources under
# build/module-<release>, where the stock-kernel boots find the modules.
# Prints TAP.
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
		  "$top/build/module-$release" TIMEQ_SMOKE=y TIMEQ_CLIENT=y) &&
	   [ -f "$top/build/module-$release/timeq_flowtrack.ko" ]; then
		echo "ok $n - timeq.ko, timeq_smoke.ko, timeq_client.ko and timeq_flowtrack.ko build clean at W=1 with sparse against $release"
	else
		printf '%s\n' "$said" | sed 's/^/# /'
		echo "not ok $n - timeq.ko against $release: warnings or errors"
		failed=1
	fi
done
echo "1..$n"
exit $failed

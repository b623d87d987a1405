#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/testing/vm/soak.sh [MINUTES] - make soak: /dev/timeq's hardening
# programs, mixed, for MINUTES (default $TIMEQ_SOAK_MINUTES, else 30) in
# the debug kernel under qemu (soak-guest.sh says what a round does).
# Not part of make check.
#
# Builds what it needs as make check does (the debug kernel, cached;
# timeq.ko and timeq_client.ko; the kselftests), boots the guest with 2
# GiB, and judges its log with run.sh: any splat, kmemleak report, lost
# element or failed program fails the soak. The figures of each round are
# printed as they come (--verbose copies the console here); the console
# log is kept in $TIMEQ_CACHE/logs. Prints run.sh's TAP at the end.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
vm=$top/tools/testing/vm
minutes=${1:-${TIMEQ_SOAK_MINUTES:-30}}
case $minutes in
'' | *[!0-9]*) echo "soak.sh: MINUTES must be a whole number" >&2; exit 2 ;;
esac
debug=$top/build/module-soak
st=$top/build/selftests

"$vm/deps.sh" >/dev/null
kdir=$("$vm/build-kernel.sh" | tail -n1)
"$top/tools/testing/build-module.sh" "$kdir" "$debug" TIMEQ_DEBUG=y TIMEQ_CLIENT=y
make -s -C "$top/tools/testing/selftests/timeq" \
	KSFT="$kdir/tools/testing/selftests" OUT="$st"

# The guest's own figures, as they come, are the lines soak-guest.sh
# starts with "# round" or "# soak"; the console has all of them.
# A timeout that only a hang reaches: the rounds end by themselves.
TIMEQ_VM_IGNORE='kmemleak: [0-9]+ new suspected memory leaks' \
exec "$vm/run.sh" --kernel "$kdir/arch/x86/boot/bzImage" --mem 2G \
	--timeout $((minutes * 60 * 2 + 1800)) --append no_hash_pointers \
	--verbose \
	-f "$debug/timeq.ko:/lib/modules/timeq/timeq.ko" \
	-f "$debug/timeq_client.ko:/lib/modules/timeq/timeq_client.ko" \
	-f "$st/timeq_fuzz:/tests/timeq_fuzz" \
	-f "$st/timeq_expiry:/tests/timeq_expiry" \
	-f "$st/timeq_enomem:/tests/timeq_enomem" \
	-f "$st/timeq_isolation:/tests/timeq_isolation" \
	-f "$st/timeq_teardown:/tests/timeq_teardown" \
	-b "$vm/soak-guest.sh $((minutes * 60))"

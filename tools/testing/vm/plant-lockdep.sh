#!/usr/bin/env bash
# tools/testing/vm/plant-lockdep.sh - prove that lockdep sees timeq's sync waits.
#
# Usage: tools/testing/vm/plant-lockdep.sh MODDIR
#
# MODDIR holds timeq.ko and timeq_lockdep_plant.ko built against the debug
# kernel (build-kernel.sh, which must have been built) with TIMEQ_CLIENT=y.
# Boots the debug guest once with both loaded: the plant calls
# timeq_delete_sync() holding a lock that the timer's callback took
# (kunit/lockdep_plant.c). Prints one TAP line, ok when:
#   - run.sh fails with "not ok - no lockdep report",
#   - the report is the plant's: a circular dependency in which the task
#     holding plant_lock takes the timer's class (&timer) in tq_sync(),
#   - and the plant's load returned (nothing hung).
# Without the class that tq_sync() takes and each callback holds
# (struct timeq_timer's @lockdep_map), the guest would run clean.
# The log goes to $TIMEQ_CACHE/logs/plant-lockdep.log (and .tap).
set -euo pipefail

[ $# = 1 ] || { echo "usage: $0 MODDIR" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${TIMEQ_CACHE:-$HOME/.cache/timeq}
mods=$1
log=$CACHE/logs/plant-lockdep.log tap=$CACHE/logs/plant-lockdep.tap
what='lockdep reports timeq_delete_sync() under a lock its callback takes'
rc=0

mkdir -p "$CACHE/logs"
kdir=$("$here/build-kernel.sh" --print-dir)
"$here/run.sh" --log "$log" --kernel "$kdir/arch/x86/boot/bzImage" \
	-k "$mods/timeq.ko" -k "$mods/timeq_lockdep_plant.ko" \
	> "$tap" 2>"$tap.err" || rc=$?
if [ $rc = 1 ] && grep -Eq '^not ok [0-9]+ - no lockdep report$' "$tap" &&
   grep -Eq '^ok [0-9]+ - insmod timeq_lockdep_plant' "$tap" &&
   grep -q 'WARNING: possible circular locking dependency detected' "$log" &&
   grep -Eq 'is trying to acquire lock:' "$log" &&
   grep -Eq '\(&timer\)\{[^}]*\}-\{[0-9:]+\}, at: tq_sync\+' "$log" &&
   grep -Eq '\(plant_lock\)\{[^}]*\}-\{[0-9:]+\}, at: timeq_lockdep_plant_init\+' "$log"; then
	echo "ok 1 - $what"
	rc=0
else
	echo "not ok 1 - $what"
	{ echo "run.sh exit status $rc"; grep '^not ok' "$tap"; tail -n 3 "$tap.err"
	  echo "log: $log"; } | sed 's/^/#   /'
	rc=1
fi
echo "1..1"
exit $rc

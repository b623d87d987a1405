#!/usr/bin/env bash
# tools/testing/vm/plant-lockdep.sh - prove that lockdep sees timeq's waits.
#
# Usage: tools/testing/vm/plant-lockdep.sh MODDIR
#
# MODDIR holds timeq.ko and timeq_lockdep_plant.ko built against the debug
# kernel (build-kernel.sh, which must have been built) with TIMEQ_CLIENT=y.
# Boots the debug guest once for each misuse of kunit/lockdep_plant.c,
# with both modules loaded:
#
#   case    the plant, holding plant_lock    lockdep's report: the task
#                                            holding plant_lock takes
#   sync    timeq_delete_sync() of a timer   the timer's class, &plant_timer,
#           whose callback took plant_lock   in tq_sync() (or a caller it
#                                            is inlined into)
#   expire  timeq_expire() of its base       the base's &base->expiry, in
#                                            tq_clock_run() (or a caller)
#
# sync needs the class that tq_sync() takes and each callback holds
# (struct timeq_timer's @lockdep_map); expire, that the callback's class
# leaves the expiry mutex before the locks the callback takes. Each case
# prints one TAP line, ok when run.sh fails with "not ok - no lockdep
# report" and no other check, the log holds that circular dependency, and
# the plant's load returned (nothing hung). Logs go to
# $TIMEQ_CACHE/logs/plant-lockdep-<case>.log (and .tap).
set -euo pipefail

[ $# = 1 ] || { echo "usage: $0 MODDIR" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${TIMEQ_CACHE:-$HOME/.cache/timeq}
mods=$1
n=0 failed=0
at='\{[^}]*\}-\{[0-9:]+\}, at:'

mkdir -p "$CACHE/logs"
kdir=$("$here/build-kernel.sh" --print-dir)

# plant CASE WHAT LOCK FUNCTIONS: boot with misuse=CASE and judge the log:
# the task holding plant_lock is to take LOCK in one of FUNCTIONS.
plant() {
	local name=$1 what=$2 lock=$3 fn=$4 rc=0
	local log=$CACHE/logs/plant-lockdep-$name.log tap=$CACHE/logs/plant-lockdep-$name.tap

	n=$((n + 1))
	"$here/run.sh" --log "$log" --kernel "$kdir/arch/x86/boot/bzImage" \
		-k "$mods/timeq.ko" -k "$mods/timeq_lockdep_plant.ko misuse=$name" \
		> "$tap" 2>"$tap.err" || rc=$?
	if [ $rc = 1 ] && [ "$(grep -c '^not ok' "$tap")" = 1 ] &&
	   grep -Eq '^not ok [0-9]+ - no lockdep report$' "$tap" &&
	   grep -Eq '^ok [0-9]+ - insmod timeq_lockdep_plant' "$tap" &&
	   grep -q 'WARNING: possible circular locking dependency detected' "$log" &&
	   grep -Eq "\($lock(#[0-9]+)?\)$at ($fn)\+" "$log" &&
	   grep -Eq "\(plant_lock\)$at timeq_lockdep_plant_init\+" "$log"; then
		echo "ok $n - $name: lockdep reports $what"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name: lockdep reports $what"
		{ echo "run.sh exit status $rc"; grep '^not ok' "$tap"; tail -n 3 "$tap.err"
		  echo "log: $log"; } | sed 's/^/#   /'
	fi
}

plant sync 'timeq_delete_sync() under a lock its callback takes' \
	'&plant_timer' 'tq_sync|tq_delete_sync|timeq_delete_sync'
plant expire 'timeq_expire() under a lock a callback of the base takes' \
	'&base->expiry' 'tq_clock_run|timeq_expire'
echo "1..$n"
[ $failed = 0 ]

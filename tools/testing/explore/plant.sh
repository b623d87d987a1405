#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Planted bugs: each must make the explorer fail. A planted bug is a small
# patch against module/ (plant/NAME.patch), or the reverse of a commit that
# fixed a defect (plant/reverts: "NAME COMMIT SCENARIO..."), applied to a
# copy of module/ and include/ under build/explore/plant/NAME, never to the
# tree. The explorer is built against the copy (make SRC=...) and run on the
# scenarios the patch names; the bug is caught if one of them fails where
# the same scenarios pass on the tree as it is (the baseline: so a failure
# is the planted bug's, not one the tree already has). Output is TAP, one
# line per planted bug.
#
#	plant.sh [NAME...]		every planted bug, or those named
#
# A patch file starts with a few header lines, then the unified diff
# (paths a/module/... b/module/..., or a/include/...):
#
#	Planted: what the patch breaks, in a sentence or two
#	Caught-by: scenario [scenario...]
#	Explore: extra options for explore (optional; the default budget is
#		 PLANT_SCHEDULES schedules of PCT, then as many random)
#
# The patches here were written against a28c087. When one no longer
# applies to the code it is meant for, the line says so: regenerate it.
# plant/reverts lists the fixing commits of the defects README lists, so
# that each fix, undone, is caught by the scenario written for that defect.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=${OUT:-$top/build/explore}/plant
schedules=${PLANT_SCHEDULES:-20000}
tests=0
failed=0

tap() {
	tests=$((tests + 1))
	if [ "$1" = ok ]; then
		echo "ok $tests - $2"
	else
		echo "not ok $tests - $2"
		failed=$((failed + 1))
	fi
}

# copy NAME: a fresh copy of the tree's module/ and include/.
copy() {
	local dir=$out/$1

	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r "$top/module" "$top/include" "$dir/"
	echo "$dir"
}

# explore BINARY LOG SCHED OPTIONS SCENARIOS...: one campaign; its status.
explore() {
	local bin=$1 log=$2 sched=$3 opts=$4 sc args=()
	shift 4

	for sc in "$@"; do
		args+=(--scenario "$sc")
	done
	[ "$sched" = given ] || args+=(--sched "$sched")
	# shellcheck disable=SC2086
	"$bin" "${args[@]}" --schedules "$schedules" $opts >>"$log" 2>&1
}

# run NAME DIR OPTIONS SCENARIOS...: build against DIR and explore; tap.
# A scheduler counts only if the scenarios pass under it on the code
# without the bug (the baseline): a failure must be the planted bug's.
run() {
	local name=$1 dir=$2 opts=$3 log=$out/$1.log base=$out/$1.baseline.log
	local sched scheds=(pct random) tried=
	shift 3

	if ! make -s -C "$here" SRC="$dir" OUT="$dir/bin" "$dir/bin/explore" \
		>"$log" 2>&1; then
		sed 's/^/# /' "$log" | tail -n 20
		tap "not ok" "$name: the explorer does not build against it"
		return
	fi
	case " $opts " in *" --sched "*) scheds=(given) ;; esac
	: >"$base"
	for sched in "${scheds[@]}"; do
		if ! explore "$baseline" "$base" "$sched" "$opts" "$@"; then
			echo "# $name: the baseline fails under $sched; not counted"
			continue
		fi
		tried="$tried $sched"
		if ! explore "$dir/bin/explore" "$log" "$sched" "$opts" "$@"; then
			tap ok "$name: caught under $sched: $(grep -m1 -o '^# [a-z0-9-]*: [a-z]* after [0-9]* schedules' "$log" | sed 's/^# //')"
			return
		fi
	done
	if [ -z "$tried" ]; then
		grep '^# [a-z0-9-]*: [a-z]* after' "$base" | sed 's/^/# /'
		tap "not ok" "$name: its scenarios fail without the bug, under every scheduler ($*)"
	else
		tap "not ok" "$name: survived $schedules schedules under$tried on: $*"
	fi
}

plant_patch() {
	local patch=$1 name dir scenarios opts

	name=$(basename "$patch" .patch)
	scenarios=$(sed -n 's/^Caught-by: *//p' "$patch")
	opts=$(sed -n 's/^Explore: *//p' "$patch")
	dir=$(copy "$name")
	# Exactly (-F0): a hunk that fits only with fuzz may land elsewhere.
	if ! patch -s -p1 -F0 -d "$dir" <"$patch" >"$out/$name.log" 2>&1; then
		sed 's/^/# /' "$out/$name.log"
		tap "not ok" "$name: the patch no longer applies (regenerate it against the code it is for)"
		return
	fi
	# shellcheck disable=SC2086
	run "$name" "$dir" "$opts" $scenarios
}

plant_revert() {
	local name=$1 commit=$2 dir
	shift 2

	dir=$(copy "$name")
	if ! git -C "$top" diff "$commit^" "$commit" -- module include |
		patch -s -R -p1 -d "$dir" >"$out/$name.log" 2>&1; then
		sed 's/^/# /' "$out/$name.log"
		tap "not ok" "$name: the fix $commit no longer reverts cleanly"
		return
	fi
	run "$name" "$dir" "" "$@"
}

mkdir -p "$out"
make -s -C "$here" "$(cd "$here/../../.." && pwd)/build/explore/explore" >/dev/null || exit 1
baseline=${OUT:-$top/build/explore}/explore
want=("$@")
wanted() {
	[ ${#want[@]} -eq 0 ] && return 0
	local w
	for w in "${want[@]}"; do
		[ "$w" = "$1" ] && return 0
	done
	return 1
}

for patch in "$here"/plant/*.patch; do
	wanted "$(basename "$patch" .patch)" && plant_patch "$patch"
done
if [ -f "$here/plant/reverts" ]; then
	while read -r name commit scenarios; do
		case "$name" in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2086
		wanted "$name" && plant_revert "$name" "$commit" $scenarios
	done <"$here/plant/reverts"
fi
echo "1..$tests"
[ "$failed" -eq 0 ]

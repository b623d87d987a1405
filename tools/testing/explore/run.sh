#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The interleaving explorer's runs; each prints TAP (explore.c says what the
# explorer is, README what it found).
#
#   run.sh [check]    make check's budget, a count of schedules: the
#                     explorer's self-test, then every
#                     scenario under PCT (d = 3) for EXPLORE_SCHEDULES
#                     schedules (default 20000), under the random scheduler
#                     for a quarter of that, and under ASan (any touch of a
#                     freed timer) for a tenth, PCT; one line per scenario.
#                     About two minutes on two slow cores when every
#                     scenario passes.
#   run.sh long [N]   the long run: N schedules (default 1000000) per
#                     scenario under PCT with d = 2, 3 and 4 and under the
#                     random scheduler, each from its own base seed; hours.
#   run.sh find [C]   schedules to the first failure, for each scenario
#                     that fails: C campaigns (default 10) under PCT d = 3
#                     and under random, min and median (README, FINDINGS).
#   run.sh plant      the planted bugs (plant.sh): each must be caught.
#
# EXPLORE_SEED sets the base seed (default 1); a failure prints the seed
# and the command that replays it. Scenarios are expected to fail on code
# with the defects README lists (a28c087): that is what they are for.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=${OUT:-$top/build/explore}
seed=${EXPLORE_SEED:-1}

build() {
	make -s -C "$here" OUT="$out" >"$out.build.log" 2>&1 || {
		sed 's/^/# /' "$out.build.log" | tail -n 30
		echo "not ok 1 - explore: the build failed"
		echo "1..1"
		exit 1
	}
}

scenarios() {
	"$out/explore" --list | awk '{ print $1 }'
}

# campaign LOG BINARY ARGS...: one campaign; its TAP line goes to LOG.
campaign() {
	local log=$1 bin=$2
	shift 2
	"$bin" --seed "$seed" "$@" >>"$log" 2>&1
}

# sum LOG FIELD: add up a figure of the campaigns' TAP lines in LOG.
sum() {
	sed -n "s/.*: \([0-9]*\) schedules ([0-9]* distinct), \([0-9]*\) steps.*/\1 \2/p" "$1" |
		awk -v f="$2" '{ s += $f } END { print s + 0 }'
}

check() {
	local n=${EXPLORE_SCHEDULES:-20000} tests=0 failed=0 sc log start secs

	mkdir -p "$out"
	build
	# The detectors first: each planted toy bug found, each toy right.
	tests=1
	if "$out/explore" --selftest >"$out/selftest.log" 2>&1; then
		echo "ok 1 - explorer self-test: $(grep -c '^ok' "$out/selftest.log") toy programs, each bug found, each right one clean"
	else
		grep '^not ok' "$out/selftest.log" | sed 's/^/# /'
		echo "not ok 1 - explorer self-test: a detector is broken (above)"
		failed=1
	fi
	for sc in $(scenarios); do
		log=$out/check-$sc.log
		: >"$log"
		start=$EPOCHREALTIME
		campaign "$log" "$out/explore" --scenario "$sc" --schedules "$n" &&
		campaign "$log" "$out/explore" --scenario "$sc" --sched random \
			--schedules $((n / 4)) &&
		campaign "$log" "$out/explore_asan" --scenario "$sc" \
			--schedules $((n / 10))
		rc=$?
		secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
		tests=$((tests + 1))
		if [ "$rc" -eq 0 ]; then
			printf 'ok %d - %s: %d schedules (pct, random, asan), %d steps, %.1f s\n' \
				"$tests" "$sc" "$(sum "$log" 1)" "$(sum "$log" 2)" "$secs"
		else
			grep '^#' "$log" | head -n 45
			# ASan's own report, if that is what ended it.
			grep -m1 '^SUMMARY: AddressSanitizer' "$log" | sed 's/^/# /'
			printf 'not ok %d - %s: failed after %d schedules, %.1f s (the trace and the replay command are above)\n' \
				"$tests" "$sc" "$(sum "$log" 1)" "$secs"
			failed=$((failed + 1))
		fi
	done
	echo "1..$tests"
	[ "$failed" -eq 0 ]
}

long() {
	local n=${1:-1000000} tests=0 failed=0 sc how log

	mkdir -p "$out"
	build
	for sc in $(scenarios); do
		for how in "--depth 2" "--depth 3" "--depth 4" "--sched random"; do
			log=$out/long-$sc.log
			tests=$((tests + 1))
			# shellcheck disable=SC2086
			if "$out/explore" --scenario "$sc" $how --schedules "$n" \
				--seed "$((seed + tests))" >"$log" 2>&1; then
				echo "ok $tests - $sc ($how): $(sed -n 's/^ok [0-9]* - [^:]*: //p' "$log")"
			else
				grep '^#' "$log" | head -n 45
				echo "not ok $tests - $sc ($how)"
				failed=$((failed + 1))
			fi
		done
	done
	echo "1..$tests"
	[ "$failed" -eq 0 ]
}

findings() {
	local c=${1:-10} tests=0 sc how line

	mkdir -p "$out"
	build
	for sc in $(scenarios); do
		for how in "--depth 3" "--sched random"; do
			tests=$((tests + 1))
			# shellcheck disable=SC2086
			line=$("$out/explore" --scenario "$sc" $how --find "$c" \
				--schedules "${EXPLORE_SCHEDULES:-100000}" --seed "$seed")
			echo "ok $tests - $line"
		done
	done
	echo "1..$tests"
}

case "${1:-check}" in
check)	check ;;
long)	long "${2:-}" ;;
find)	findings "${2:-}" ;;
plant)	exec "$here/plant.sh" ;;
*)
	echo "usage: $0 [check|long [N]|find [C]|plant]" >&2
	exit 2
	;;
esac

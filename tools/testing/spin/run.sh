#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Model-check the concurrency protocol of module/paths.c, fast.c, handoff.c
# and clock.c (timeq.pml says what the model covers): each scope must pass
# over its whole state space, and each planted bug (a -D flag that reverts
# one rule of the code) must be caught. Prints TAP, one line per scope and
# per planted bug, with the states and the time in a diagnostic line; exits
# non-zero on any failure. Builds in build/spin/, never in the source
# directory.
#
#   run.sh            every scope and every planted bug
#   run.sh NAME...    only those (scope or bug names as printed)
#   run.sh --list     the names, one a line (make check runs the longest
#                     scope beside the others)
#
# JOBS (default 2) verifiers run at once; CC picks the compiler (default
# clang if installed, which compiles the verifier faster, else gcc).
#
# A check that passed is kept in ~/.cache/timeq/spin-results (TIMEQ_CACHE
# moves it) under a hash of everything its verdict depends on: the model's
# files, this script (the scopes, their flags and pan's options), the
# check's own flags, and the versions of spin, its preprocessor and the
# compiler. The search is
# exhaustive and deterministic, so the same inputs give the same verdict:
# a check kept so is printed as it passed, with a "# kept" line, and not
# run again. A change to any input runs it; a failure is never kept.
# SPIN_FRESH=1 runs every check.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=${OUT:-$top/build/spin}
jobs=${JOBS:-2}
cc=${CC:-$(command -v clang >/dev/null && echo clang || echo gcc)}
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
kept=${TIMEQ_CACHE:-$HOME/.cache/timeq}/spin-results

# Debian 12 has spin; make check runs as root.
if ! command -v spin >/dev/null; then
	apt-get install -y -qq spin >/dev/null 2>&1 ||
		{ apt-get update -qq && apt-get install -y -qq spin >/dev/null; } ||
		{ echo "1..0 # spin is missing and could not be installed"; exit 1; }
fi

# The scopes: name, mode, then spin's -D flags. Modes: safety (assertions
# only, -DSAFETY), full (assertions and invalid end states: a process
# blocked for ever), livelock (non-progress cycles, -DNP and pan -l: a
# process that runs for ever without the one it waits for ever running).
scopes=(
	"regions|safety|-DSLOW_OPS=1 -DFAST0_CALLS=1"
	"handoff|full|-DSCOPE_HANDOFF -DSLOW_OPS=1"
	"pull|safety|-DINIT_FIXED -DINIT_C0=4 -DINIT_C1=4 -DINIT_C2=3 -DSLOW_OPS=1"
	"doors|full|-DSCOPE_DOORS"
	"expiry|full|-DSCOPE_EXPIRY"
	"expiry-inline|full|-DSCOPE_EXPIRY -DINLINE_STORE"
	"room|full|-DSCOPE_ROOM"
	"stores|full|-DSCOPE_STORES"
	"stores-inline|full|-DSCOPE_STORES -DINLINE_STORE"
	"arming|full|-DSCOPE_ARMING"
	"livelock|livelock|-DSCOPE_DOORS"
)
# The planted bugs: name, and the scope that must catch it.
bugs=(
	"BUG_DRAIN_EARLY_READ|handoff"
	"BUG_HANDOFF_STALE_WANT|handoff"
	"BUG_SET_NO_WAIT|handoff"
	"BUG_SYNC_NO_WAIT|handoff"
	"BUG_NO_PENDING_RECHECK|handoff"
	"BUG_NEAR_NO_REGION_CHECK|regions"
	"BUG_FAR_NO_REGION_CHECK|regions"
	"BUG_FAR_MOVES_MIN|regions"
	"BUG_STALE_MIN|pull"
	"BUG_RUNNING_LATE|expiry"
	"BUG_SETTLE_NULL_FIRST|regions"
	"BUG_RELOCK_NO_FINISH|doors"
	"BUG_ARM_UNLOCKED|arming"
	"BUG_DEFERRED_DROPPED|room"
	"BUG_MIN_UNLOCKED|doors"
	"BUG_WAIT_SPINS|livelock"
	"BUG_APPLY_NO_RETAKE|room"
	"BUG_SET_ROOM_LATE|expiry"
	"BUG_STORE_DRAIN_OPEN|room"
	"BUG_STORE_DELETE_OPEN|expiry"
	"BUG_STORE_EXPIRY_IGNORED|expiry"
	"BUG_STORE_HANDOFF_OPEN|stores"
	"BUG_STORE_BLIND|expiry"
	"BUG_INLINE_STORE_NO_HANDED|stores-inline"
	"BUG_INLINE_STORE_NOWRITE_LATER|expiry-inline"
	"BUG_MOVE_NO_REFUSE|expiry"
	"BUG_MOVE_DUE_REFUSED|expiry"
)

if [ "${1:-}" = --list ]; then
	for s in "${scopes[@]}" "${bugs[@]}"; do
		echo "${s%%|*}"
	done
	exit 0
fi

start=$SECONDS

wanted() {
	local w
	[ $# -gt 1 ] || return 0
	for w in "${@:2}"; do
		[ "$w" = "$1" ] && return 0
	done
	return 1
}

field_of() {
	local s
	for s in "${scopes[@]}"; do
		[ "${s%%|*}" = "$1" ] && { echo "$s" | cut -d'|' -f"$2"; return; }
	done
}

# verify NAME MODE FLAGS: build and run pan in $out/NAME; its output is
# in $out/NAME/pan.out, the states and seconds in $out/NAME/figures.
# -O0 for most: their searches are short, and optimising the verifier's
# 400 kB of C is not; the regions scope's search of 21 million states
# takes almost twice as long unoptimised (140 s) as optimised compile and
# search together (80 s with clang -O2, 110 s with gcc -O2).
verify() {
	local name=$1 mode=$2 dir=$out/$1 t0=$SECONDS opt=-O0 cflags pflags
	shift 2
	case $mode in
	safety) cflags=-DSAFETY pflags='' ;;
	full) cflags='' pflags='' ;;
	livelock) cflags=-DNP pflags=-l ;;
	esac
	[ "$name" = regions ] && opt=-O2
	rm -rf "$dir" && mkdir -p "$dir" || return 2
	(
		cd "$dir" &&
			spin -a "$@" "$here/timeq.pml" >spin.out 2>&1 &&
			$cc $opt -w $cflags -DCOLLAPSE -o pan pan.c >cc.out 2>&1 &&
			./pan -m200000 -w24 $pflags >pan.out 2>&1
	)
	local rc=$?
	echo "$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' \
		"$dir/pan.out" 2>/dev/null) $((SECONDS - t0))" >"$dir/figures"
	return $rc
}

# A scope passes: no error, and the search was complete.
scope() {
	local name=$1 mode=$2 log=$out/$1/pan.out states secs
	shift 2
	verify "$name" "$mode" "$@"
	read -r states secs <"$out/$name/figures"
	echo "# $name ($mode): ${states:-?} states, ${secs} s"
	if grep -q 'errors: 0$' "$log" 2>/dev/null &&
		! grep -q 'Search not completed\|max search depth too small' "$log"; then
		echo "ok - scope $name: exhaustive, no violation"
	else
		grep -E 'violated|invalid end state|cycle|error|Search not|depth too' \
			"$log" "$out/$name"/spin.out "$out/$name"/cc.out 2>/dev/null |
			head -n 5 | sed 's/^/# /'
		echo "not ok - scope $name (replay: cd $out/$name && ./pan -r)"
	fi
}

# A planted bug is caught: its scope's search reports a violation.
planted() {
	local bug=$1 where=$2 log=$out/$1/pan.out states secs what
	# shellcheck disable=SC2046
	verify "$bug" "$(field_of "$where" 2)" $(field_of "$where" 3) -D"$bug"
	read -r states secs <"$out/$bug/figures"
	# pan's own report of what it found; its summary's "invalid end
	# states +" says only that it looked for them.
	what=$(grep -m1 -E '^pan:[0-9]+: ' "$log" 2>/dev/null)
	echo "# $bug in scope $where: ${states:-?} states, ${secs} s: ${what:-nothing found}"
	if [ -n "$what" ]; then
		echo "ok - planted $bug is caught in scope $where"
	else
		echo "not ok - planted $bug is not caught in scope $where"
	fi
}

# Each check writes its TAP lines to a file of its own, $jobs at a time
# (the longest first); they are printed in order once all are done.
mkdir -p "$out" || exit 1
# What every verdict depends on, but for the check's own arguments: each
# file by its name and text, spin, the preprocessor spin runs (cpp) and
# the compiler of the verifier.
inputs=$({
	(cd "$here" && sha256sum ./*.pml run.sh)
	spin -V
	cpp --version
	$cc --version
} | sha256sum | cut -c1-40)
results=()
run() {
	local file=$out/$1.tap key
	shift
	results+=("$file")
	key=$(printf '%s %s\n' "$inputs" "$*" | sha256sum | cut -c1-40)
	if [ "${SPIN_FRESH:-0}" != 1 ] && [ -f "$kept/$key" ]; then
		{
			cat "$kept/$key"
			echo "# kept: passed before with the same model, flags, spin and $cc"
		} >"$file"
		return
	fi
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	{
		"$@" >"$file" 2>&1
		if grep -q '^ok - ' "$file" && ! grep -q '^not ok' "$file"; then
			mkdir -p "$kept" && cp "$file" "$kept/$key.$BASHPID" &&
				mv "$kept/$key.$BASHPID" "$kept/$key"
		fi
	} &
}

for s in "${scopes[@]}"; do
	name=${s%%|*}
	wanted "$name" "$@" || continue
	rest=${s#*|}
	# shellcheck disable=SC2086
	run "$name" scope "$name" "${rest%%|*}" ${rest#*|}
done
for b in "${bugs[@]}"; do
	bug=${b%%|*}
	wanted "$bug" "$@" || continue
	run "$bug" planted "$bug" "${b#*|}"
done
wait

n=0
failed=0
for file in "${results[@]}"; do
	while IFS= read -r line; do
		case $line in
		"ok - "*) n=$((n + 1)); echo "ok $n ${line#ok }" ;;
		"not ok - "*)
			n=$((n + 1))
			failed=$((failed + 1))
			echo "not ok $n ${line#not ok }"
			;;
		*) echo "$line" ;;
		esac
	done <"$file"
done
echo "1..$n"
echo "# total $((SECONDS - start)) s ($jobs at a time)"
[ "$failed" -eq 0 ] && [ "$n" -gt 0 ]

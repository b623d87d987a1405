#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Model-check the concurrency protocol of module/paths.c (timeq.pml says
# what the model covers): each scope must pass over its whole state space,
# and each planted bug (a -D flag that reverts one rule of the code) must
# be caught. Prints TAP, one line per scope and per planted bug, with the
# states and the time in a diagnostic line; exits non-zero on any failure.
# Builds in build/spin/, never in the source directory.
#
#   run.sh            every scope and every planted bug
#   run.sh NAME...    only those (scope or bug names as printed)
#   run.sh --list     the names, one a line (make check runs the longest
#                     scope beside the others)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=${OUT:-$top/build/spin}

# Debian 12 has spin; make check runs as root.
if ! command -v spin >/dev/null; then
	apt-get install -y -qq spin >/dev/null 2>&1 ||
		{ apt-get update -qq && apt-get install -y -qq spin >/dev/null; } ||
		{ echo "1..0 # spin is missing and could not be installed"; exit 1; }
fi

# The scopes: name, then spin's -D flags.
scopes=(
	"handoff|-DSCOPE_HANDOFF -DSLOW_OPS=1"
	"regions|-DSLOW_OPS=1 -DFAST0_CALLS=1"
	"pull|-DINIT_FIXED -DINIT_C0=4 -DINIT_C1=4 -DINIT_C2=3 -DSLOW_OPS=1"
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
)

if [ "${1:-}" = --list ]; then
	for s in "${scopes[@]}" end-states "${bugs[@]}"; do
		echo "${s%%|*}"
	done
	exit 0
fi

n=0
failed=0
start=$SECONDS

wanted() {
	local w
	[ $# -gt 1 ] || return 0
	for w in "${@:2}"; do
		[ "$w" = "$1" ] && return 0
	done
	return 1
}

flags_of() {
	local s
	for s in "${scopes[@]}"; do
		[ "${s%%|*}" = "$1" ] && { echo "${s#*|}"; return; }
	done
}

# verify NAME SAFETY FLAGS: build and run pan in $out/NAME; its output is
# in $out/NAME/pan.out. -O0 for most: their searches are short, and gcc
# -O2 on the verifier's 400 kB of C is not; the regions scope's search
# of 21 million states takes three times as long at -O0 as -O2's compile
# and search together.
verify() {
	local dir=$out/$1 safety=$2 t0=$SECONDS opt=-O0
	[ "$1" = regions ] && opt=-O2
	shift 2
	rm -rf "$dir" && mkdir -p "$dir" || return 2
	(
		cd "$dir" &&
			spin -a "$@" "$here/timeq.pml" >spin.out 2>&1 &&
			gcc $opt -w $safety -DCOLLAPSE -o pan pan.c >gcc.out 2>&1 &&
			./pan -m200000 -w24 >pan.out 2>&1
	)
	local rc=$?
	secs=$((SECONDS - t0))
	states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$dir/pan.out" 2>/dev/null)
	return $rc
}

result() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# A scope passes: no error, and the search was complete.
scope() {
	local name=$1 safety=$2 label=$3 log
	shift 3
	verify "$name" "$safety" "$@"
	log=$out/$name/pan.out
	echo "# $label: ${states:-?} states, ${secs} s"
	if grep -q 'errors: 0$' "$log" 2>/dev/null &&
		! grep -q 'Search not completed\|max search depth too small' "$log"; then
		result ok "scope $label: exhaustive, no violation"
	else
		grep -E 'violated|invalid end state|error|Search not|depth too' \
			"$log" "$out/$name"/spin.out "$out/$name"/gcc.out 2>/dev/null |
			head -n 5 | sed 's/^/# /'
		result fail "scope $label (replay: cd $out/$name && spin -t -p -g $* $here/timeq.pml)"
	fi
}

for s in "${scopes[@]}"; do
	name=${s%%|*}
	wanted "$name" "$@" || continue
	# shellcheck disable=SC2086
	scope "$name" -DSAFETY "$name" ${s#*|}
done
# Deadlock: the same search with the default checks, built without
# -DSAFETY, for invalid end states (a process blocked on a lock for ever).
if wanted end-states "$@"; then
	# shellcheck disable=SC2086
	scope end-states "" "handoff, built without -DSAFETY: invalid end states" \
		$(flags_of handoff)
fi

for b in "${bugs[@]}"; do
	bug=${b%%|*}
	where=${b#*|}
	wanted "$bug" "$@" || continue
	# shellcheck disable=SC2086
	verify "$bug" -DSAFETY $(flags_of "$where") -D"$bug"
	log=$out/$bug/pan.out
	what=$(grep -m1 -E 'violated|invalid end state' "$log" 2>/dev/null)
	echo "# $bug in scope $where: ${states:-?} states, ${secs} s: ${what:-nothing found}"
	if [ -n "$what" ]; then
		result ok "planted $bug is caught in scope $where"
	else
		result fail "planted $bug is not caught in scope $where"
	fi
done

echo "1..$n"
echo "# total $((SECONDS - start)) s"
[ "$failed" -eq 0 ] && [ "$n" -gt 0 ]

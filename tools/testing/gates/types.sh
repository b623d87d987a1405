#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# types.sh: include/linux/timeq.h has two types, struct timeq (a queue of
# nodes, whose clock its caller moves) and struct timeq_base (a timer base
# that composes one and expires its timers). A call given the wrong one
# must not compile. This gate compiles, against include/linux/timeq.h and
# the userspace stand-ins of tools/testing/queue/compat/:
#
#   1  a use of every call with its own type, which must compile;
#   2+ one misuse a line, each of which must fail, and fail for the type
#      ("incompatible pointer type"), not for anything else.
#
# gcc with -Werror=incompatible-pointer-types: gcc 12 only warns of a
# mismatched pointer by default, gcc 14 refuses it.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

flags=(-fsyntax-only -Wall -Werror -Werror=incompatible-pointer-types
       -I"$top/tools/testing/queue/compat" -I"$top/include")

# compile NAME BODY: compile BODY inside a function that has a queue @q, a
# base @b, a node @n, a timer @t and a time @x; its diagnostics in
# $scratch/types-NAME.log.
compile() {
	local src=$scratch/types-$1.c

	cat >"$src" <<-END
	#include <linux/timeq.h>

	void use(struct timeq *q, struct timeq_base *b, struct timeq_node *n,
		 struct timeq_timer *t, u64 x);
	void use(struct timeq *q, struct timeq_base *b, struct timeq_node *n,
		 struct timeq_timer *t, u64 x)
	{
		$2
	}
	END
	gcc "${flags[@]}" "$src" >"$scratch/types-$1.log" 2>&1
}

right='timeq_insert(q, n, x); timeq_delete(q, n); timeq_update(q, n, x);
	timeq_delete_min(q); timeq_del_less_than(q, x, NULL, NULL);
	timeq_first(q); timeq_check(q, NULL, 0); timeq_min(q); timeq_now(q);
	timeq_count(q); timeq_bytes(q); timeq_destroy(q);
	timeq_timer_arm(b, t, x); timeq_timer_move(b, t, x);
	timeq_timer_delete(b, t); timeq_delete_sync(b, t);
	timeq_shutdown_sync(b, t); timeq_expire(b); timeq_fast_update(b, t, x);
	timeq_fast_min(b, &x); timeq_base_ticks(b); timeq_base_bytes(b);
	timeq_base_destroy(b);'

if compile right "$right"; then
	pass "every call compiles with its own type"
else
	note <"$scratch/types-right.log"
	fail "every call compiles with its own type"
	finish
fi

# Each misuse: a node call on a base, a timer call on a queue.
wrong=(
	'timeq_insert(b, n, x);'
	'timeq_update(b, n, x);'
	'timeq_delete_min(b);'
	'timeq_del_less_than(b, x, NULL, NULL);'
	'timeq_now(b);'
	'timeq_destroy(b);'
	'timeq_timer_arm(q, t, x);'
	'timeq_delete_sync(q, t);'
	'timeq_shutdown_sync(q, t);'
	'timeq_expire(q);'
	'timeq_fast_update(q, t, x);'
	'timeq_fast_min(q, &x);'
	'timeq_base_ticks(q);'
	'timeq_base_destroy(q);'
)
i=0
for call in "${wrong[@]}"; do
	i=$((i + 1))
	if compile "wrong$i" "$call"; then
		fail "$call does not compile: it did"
	elif grep -q 'incompatible pointer type' "$scratch/types-wrong$i.log"; then
		pass "$call does not compile (incompatible pointer type)"
	else
		note <"$scratch/types-wrong$i.log"
		fail "$call does not compile, for its type: it failed otherwise"
	fi
done
finish

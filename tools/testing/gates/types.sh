#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# types.sh: include/linux/timeq.h has two types, struct timeq (a queue of
# nodes, whose clock its caller moves) and struct timeq_base (a timer base
# that composes one and expires its timers). A call given the wrong one
# must not compile. The calls are read from the header's prototypes, so a
# call added there is checked with no change here. This gate compiles,
# against include/linux/timeq.h and the userspace stand-ins of
# tools/testing/queue/compat/:
#
#   1  every prototype of the header called with its own types, and each
#      creator's result kept in its own type: this must compile;
#   2  each prototype takes the type its name says (owner() below): a
#      loosened void * or a swapped type fails here;
#   3  every function the module exports (EXPORT_SYMBOL_NS_GPL under
#      module/) has a prototype there, so 1 and 4 cover them all;
#   4+ for each parameter of type struct timeq * or struct timeq_base *,
#      the call given the other type, and each creator's result kept in
#      the other type: each must fail, for that argument or that
#      assignment ("incompatible pointer type"), not for anything else.
#
# gcc with -Werror=incompatible-pointer-types: gcc 12 only warns of a
# mismatched pointer by default, gcc 14 refuses it.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

flags=(-fsyntax-only -Wall -Werror -Werror=incompatible-pointer-types
       -I"$top/tools/testing/queue/compat" -I"$top/include")

# compile NAME BODY: compile BODY inside a function that has one variable
# of each type the prototypes take; its diagnostics in
# $scratch/types-NAME.log.
compile() {
	local src=$scratch/types-$1.c

	cat >"$src" <<-END
	#include <linux/timeq.h>

	void use(struct timeq *q, struct timeq_base *b, struct timeq_node *n,
		 struct timeq_timer *t, struct timeq_fast_stats *fs, u64 x);
	void use(struct timeq *q, struct timeq_base *b, struct timeq_node *n,
		 struct timeq_timer *t, struct timeq_fast_stats *fs, u64 x)
	{
		unsigned int ui = 0;

		(void)ui;
		$2
	}
	END
	gcc "${flags[@]}" "$src" >"$scratch/types-$1.log" 2>&1
}

# The prototypes of the header, one a line: "name|type1,type2,...",
# whatever they return; the inline helpers and typedefs are not calls.
protos() {
	tr '\n' ' ' <"$top/include/linux/timeq.h" |
		sed 's|/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/||g' |
		grep -o '[A-Za-z_][A-Za-z0-9_ *]*[ *]timeq_[a-z0-9_]*([^;{)]*);' |
		sed 's/.*[ *]\(timeq_[a-z0-9_]*\)(\([^)]*\));/\1|\2/; s/  */ /g'
}

# arg TYPE: the variable of use() for a parameter's type (without name).
arg() {
	case $1 in
	*'struct timeq_base *'*)	echo b ;;
	*'struct timeq *'*)		echo q ;;
	*'struct timeq_node *'*)	echo n ;;
	*'struct timeq_timer *'*)	echo t ;;
	*'struct timeq_fast_stats *'*)	echo fs ;;
	*'u64 *'*)			echo '&x' ;;
	*'unsigned int *'*)		echo '&ui' ;;
	*'timeq_fn'*|*'void *'*|*'char *'*) echo NULL ;;
	*)				echo 0 ;;
	esac
}

# call NAME PARAMS [SWAP]: a call of NAME with use()'s variables; with SWAP
# (a parameter's index, from 1), that one given the other type.
call() {
	local name=$1 swap=${3:-0} i=0 out='' a p
	local -a params

	IFS=, read -ra params <<<"$2"
	for p in "${params[@]}"; do
		i=$((i + 1))
		a=$(arg "$p")
		if [ "$i" = "$swap" ]; then
			case $a in q) a=b ;; b) a=q ;; esac
		fi
		out+="${out:+, }$a"
	done
	echo "$name($out);"
}

mapfile -t all < <(protos)
if [ ${#all[@]} -lt 20 ]; then
	fail "types: only ${#all[@]} prototypes read from include/linux/timeq.h"
	finish
fi
right='struct timeq *q2 = timeq_create(0, 1, 0, 0, 0);
	struct timeq_base *b2 = timeq_base_create(1, 1, 0, 0, 0);

	(void)q2;
	(void)b2;'
for p in "${all[@]}"; do
	right+=$'\n\t'"$(call "${p%%|*}" "${p#*|}")"
done
if compile right "$right"; then
	pass "every call of the header's ${#all[@]} compiles with its own types"
else
	note <"$scratch/types-right.log"
	fail "every call of the header's ${#all[@]} compiles with its own types"
	finish
fi

# owner NAME: the type a call takes by its name: the timer calls and
# those named for the base take a base, the creators, the tuning rule and
# the names of reasons take neither, and the rest (the node calls) a queue.
owner() {
	case $1 in
	timeq_create|timeq_base_create|timeq_tune|timeq_defer_name) echo - ;;
	timeq_base_*|timeq_timer_*|timeq_fast_*|timeq_expire|timeq_delete_sync|\
	timeq_shutdown_sync|timeq_get_fast_stats) echo b ;;
	*) echo q ;;
	esac
}

bad=$(for p in "${all[@]}"; do
	want=$(owner "${p%%|*}") got=-
	IFS=, read -ra params <<<"${p#*|}"
	for t in "${params[@]}"; do
		case $(arg "$t") in q|b) got=$(arg "$t") ;; esac
	done
	[ "$want" = "$got" ] || echo "${p%%|*} takes ${got/-/neither}, not ${want/-/neither}"
done)
verdict "$bad" "each call takes the type its name says (a base, a queue or neither)" \
	"calls whose type is not the one their name says"

# comm reads both lists to their end: a reader that stops at its first
# match (grep -q) can leave its writer a SIGPIPE, which pipefail reports.
exports=$(grep -ho 'EXPORT_SYMBOL_NS_GPL(timeq_[a-z0-9_]*' "$top"/module/*.c |
	sed 's/.*(//' | sort -u)
if [ "$(grep -c . <<<"$exports")" -lt 20 ]; then
	fail "types: only $(grep -c . <<<"$exports") exports read from module/*.c"
	finish
fi
orphans=$(comm -23 <(printf '%s\n' "$exports") \
	<(printf '%s\n' "${all[@]%%|*}" | sort -u))
verdict "$orphans" "every export of module/ has a prototype in include/linux/timeq.h" \
	"exports without a prototype in include/linux/timeq.h, so unchecked"

# wrong NAME CODE WHAT: CODE must fail to compile, and for WHAT (a regex of
# gcc's diagnostic).
n=0
wrong() {
	n=$((n + 1))
	if compile "wrong$n" "$2"; then
		fail "$1 does not compile: it did"
	elif grep -q "$3" "$scratch/types-wrong$n.log"; then
		pass "$1 does not compile"
	else
		note <"$scratch/types-wrong$n.log"
		fail "$1 does not compile, for its type: it failed otherwise"
	fi
}

wrong 'struct timeq_base * = timeq_create()' \
	'struct timeq_base *b2 = timeq_create(0, 1, 0, 0, 0); (void)b2;' \
	'incompatible pointer type'
wrong 'struct timeq * = timeq_base_create()' \
	'struct timeq *q2 = timeq_base_create(1, 1, 0, 0, 0); (void)q2;' \
	'incompatible pointer type'
for p in "${all[@]}"; do
	name=${p%%|*}
	IFS=, read -ra params <<<"${p#*|}"
	for i in "${!params[@]}"; do
		case $(arg "${params[$i]}") in
		q|b) ;;
		*) continue ;;
		esac
		code=$(call "$name" "${p#*|}" $((i + 1)))
		wrong "$code" "$code" \
			"passing argument $((i + 1)) of .$name. from incompatible pointer type"
	done
done
finish

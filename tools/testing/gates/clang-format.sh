#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# clang-format.sh [FILE...]: new code is laid out as the kernel's
# .clang-format says, where checkpatch has no opinion.
#
# The rule. Every line of a .c or .h file under module/, include/, kunit/,
# tools/lib/ and samples/ (or of the FILEs given) that is new or changed
# since the baseline must be as clang-format, with the .clang-format at
# the top of this tree, would write it; except where clang-format's
# version would draw from checkpatch --strict (as the checkpatch gate runs
# it) a finding that the code as written does not: there checkpatch wins,
# and the lines stay as they are (shown as a note, not a failure); and
# except where the lines differ only in the spacing inside them, after
# their indentation: tabs that align struct members, #define values and
# trailing comments in columns are the kernel's own habit and this tree's,
# which the kernel's .clang-format does not share, and mixing both in one
# struct would help nobody. Line breaks, indentation and everything else
# are checked. To keep lines out on purpose (a table laid out by hand),
# put them between /* clang-format off */ and /* clang-format on */, and
# say why there.
#
#   baseline   the commit that added .clang-format to this tree, found in
#              the history (git log --diff-filter=A -- .clang-format), so
#              that it survives rebases; the code before it was not written
#              to clang-format, and all of the kernel is not clang-format
#              clean either. A changed line is one that `git diff -U0
#              <baseline>` shows added, committed or not; a file git does
#              not track is new in every line. CI's full clone has the
#              history; a shallow one knows less, and a tree without git
#              is skipped.
#   fixing     `git clang-format <baseline> -- FILE` rewrites the changed
#              lines of a tracked file, `clang-format -i FILE` all of a new
#              one; then put back what the notes say checkpatch vetoed.
#
# It also checks that .clang-format is the kernel's own, as in
# linux-source-6.12 (kernel-src.sh): editors and `git clang-format` read
# the copy at the top of the tree, and it must not drift into a house
# style. The one change allowed is names added to ForEachMacros, where
# the kernel lists its own for_each macros and ours belong the same way
# (else clang-format takes `tq_for_each(...) {` for a function and moves
# the brace). One TAP line for that and one a file.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

work=$scratch/clang-format
cache=${TIMEQ_CACHE:-$HOME/.cache/timeq}/checkpatch-findings

# changed_lines FILE: the --lines=FIRST:LAST ranges of FILE that are new
# since $base.
changed_lines() {
	local f=$1 n

	if ! git -C "$top" ls-files --error-unmatch -- "$f" >/dev/null 2>&1; then
		n=$(awk 'END { print NR }' "$top/$f")
		[ "$n" -eq 0 ] || echo "--lines=1:$n"
		return
	fi
	git -C "$top" diff -U0 --no-color --no-ext-diff "$base" -- "$f" |
		sed -n 's/^@@ -[0-9,]* +\([0-9,]*\) @@.*/\1/p' |
		while IFS=, read -r first count; do
			count=${count:-1}
			[ "$count" -eq 0 ] ||
				echo "--lines=$first:$((first + count - 1))"
		done
}

# findings FILE NAME: what checkpatch says of FILE, a version of the tree's
# file NAME, without file and line. Kept in $cache under a hash of NAME,
# FILE's text, checkpatch.pl and lib.sh (which says how it runs), so that
# a file laid out as before costs no second run: checkpatch takes about a
# second a file, and the vetoed hunks of an unchanged tree are the same
# from one run to the next.
findings() {
	local key out

	key=$({ printf '%s\n' "$2"; cat "$1" "$ksrc/scripts/checkpatch.pl" \
		"$here/lib.sh"; } | sha256sum | cut -c1-40)
	if [ -f "$cache/$key" ]; then
		cat "$cache/$key"
		return
	fi
	out=$(gate_checkpatch "$1" 2>&1 | sed 's/^[^:]*:[0-9]*: //' |
		LC_ALL=C sort)
	printf '%s\n' "$out"
	mkdir -p "$cache" &&
		printf '%s\n' "$out" >"$cache/$key.$$" &&
		mv "$cache/$key.$$" "$cache/$key"
}

# same_but_spacing FILE1 FIRST1 COUNT1 FILE2 FIRST2 COUNT2: do the two runs
# of lines differ only in the spacing inside lines (not their indentation,
# not where they break)?
same_but_spacing() {
	[ "$3" -eq "$6" ] || return 1
	cmp -s <(sed -n "$2,$(($2 + $3 - 1))p" "$1" | spacing) \
	       <(sed -n "$5,$(($5 + $6 - 1))p" "$4" | spacing)
}

# spacing: each line with runs of blanks after its indentation made one space.
spacing() {
	awk '{ match($0, /^[ \t]*/); ind = substr($0, 1, RLENGTH)
	       rest = substr($0, RLENGTH + 1); gsub(/[ \t]+/, " ", rest)
	       sub(/ $/, "", rest); print ind rest }'
}

# check FILE: compare FILE's changed lines with clang-format's version of
# them, one hunk at a time; print the hunks that fail the rule as TAP
# comments, and the ones checkpatch vetoes as notes, and return 1 if any
# failed.
check() {
	local f=$1 orig=$work/orig/$1 fmt=$work/fmt/$1 one=$work/one/$1
	local old new a b c d keep veto bad=0 before=

	mkdir -p "$(dirname "$orig")" "$(dirname "$fmt")" "$(dirname "$one")"
	cp "$top/$f" "$orig"
	clang-format --style=file:"$top/.clang-format" "${lines[@]}" \
		--assume-filename="$f" <"$orig" >"$fmt" ||
		{ echo "$f: clang-format failed"; return 1; }
	while read -r old new; do
		# Lines a..a+b-1 of orig become c..c+d-1 of fmt; a count of 1
		# is left out, and with b = 0 the new lines go after line a.
		a=${old%,*} b=1 c=${new%,*} d=1
		[[ $old != *,* ]] || b=${old#*,}
		[[ $new != *,* ]] || d=${new#*,}
		! same_but_spacing "$orig" "$a" "$b" "$fmt" "$c" "$d" || continue
		keep=$((b == 0 ? a : a - 1))
		{
			head -n "$keep" "$orig"
			[ "$d" -eq 0 ] || sed -n "$c,$((c + d - 1))p" "$fmt"
			tail -n +$((keep + b + 1)) "$orig"
		} >"$one"
		[ -n "$before" ] || before=$(findings "$orig" "$f")
		veto=$(LC_ALL=C comm -13 <(printf '%s\n' "$before") \
			<(findings "$one" "$f"))
		if [ -n "$veto" ]; then
			echo "note: $f:$a: left as written: clang-format's layout would draw"
			printf '%s\n' "$veto" | sed 's/^/    /'
			continue
		fi
		bad=1
		echo "$f:$a: not as .clang-format lays it out, which is:"
		[ "$b" -eq 0 ] || sed -n "$a,$((a + b - 1))p" "$orig" | sed 's/^/  -/'
		[ "$d" -eq 0 ] || sed -n "$c,$((c + d - 1))p" "$fmt" | sed 's/^/  +/'
	done < <(diff -U0 "$orig" "$fmt" |
		 sed -n 's/^@@ -\([0-9,]*\) +\([0-9,]*\) @@.*/\1 \2/p')
	return "$bad"
}

if ! gate_install clang-format git perl >&2 || ! gate_kernel_src; then
	fail "clang-format: the tools could not be found or installed"
	finish
fi
# The kernel's, but for names added to ForEachMacros: the kernel lists its
# own for_each macros there, and ours belong there the same way.
drift=$(diff "$ksrc/.clang-format" "$top/.clang-format" | grep '^[<>]' |
	grep -v "^>   - '[A-Za-z0-9_]*'$")
if [ -f "$top/.clang-format" ] && [ -z "$drift" ]; then
	pass ".clang-format is the kernel's, as in linux-source-6.12"
else
	printf '%s\n' "$drift" | note
	fail ".clang-format differs from the kernel's (linux-source-6.12) beyond ForEachMacros"
fi
if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	skip "clang-format over new lines" "not a git checkout: no baseline"
	finish
fi
base=$(git -C "$top" log --diff-filter=A --format=%H -1 -- .clang-format)
if [ -z "$base" ]; then
	fail "clang-format: no commit adds .clang-format, so no baseline"
	finish
fi
echo "# baseline: $(git -C "$top" log -1 --format='%h %s' "$base")"

rm -rf "$work"
while IFS= read -r f; do
	mapfile -t lines < <(changed_lines "$f")
	if [ ${#lines[@]} -eq 0 ]; then
		pass "$f: no line new since the baseline"
		continue
	fi
	if said=$(check "$f"); then
		[ -z "$said" ] || printf '%s\n' "$said" | note
		pass "$f: its new lines follow .clang-format"
		continue
	fi
	printf '%s\n' "$said" | note
	if git -C "$top" ls-files --error-unmatch -- "$f" >/dev/null 2>&1; then
		fix="git clang-format ${base:0:12} -- $f"
	else
		fix="clang-format -i $f"
	fi
	fail "$f: new lines not as .clang-format lays them out (fix: $fix)"
done < <(gate_sources "$@")
finish

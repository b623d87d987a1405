#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run one suite of the userspace tests; each prints TAP.
#
#   run.sh san [A]    the full differential run and directed tests, ASan+UBSan;
#                     A, test_queue's own arguments (--quick: a short run)
#   run.sh valgrind   a shorter run of the same under valgrind memcheck, with
#                     a production build (no TIMEQ_DEBUG_FIFO)
#   run.sh m32        the same run, shorter, built for i386 (32-bit words)
#   run.sh fuzz [S]   libFuzzer for S seconds (default 60) from corpus/
#   run.sh tsan       module/paths.c, fast.c and handoff.c: fast and slow
#                     threads on one queue, then base.c and clock.c: a timer
#                     base with callbacks, an expiry thread and buckets
#                     longer than a lock hold, under ThreadSanitizer (any
#                     report fails the run)
#   run.sh paths      module/paths.c, fast.c, handoff.c, life.c, clock.c and
#                     base.c, case by case: the KUnit suite kunit/paths_test.c and the
#                     white-box suite paths_white.c, ASan+UBSan
#   run.sh paths32    the same built for i386, as a 32-bit kernel runs them:
#                     no stores (their cases skip)
#   run.sh bounded    adversarial sequences against the bound on node visits
#                     per lock hold of the slow side (bounded.c)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/../../../build/queue}

case "${1:-}" in
san)
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	shift
	exec "$out/test_queue_san" "$@"
	;;
valgrind)
	exec valgrind --quiet --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=all "$out/test_queue" --seeds 6 --ops 5000
	;;
m32)
	exec "$out/test_queue_32" --seeds 6 --ops 5000
	;;
paths)
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	exec "$out/test_paths_san"
	;;
paths32)
	exec "$out/test_paths_32"
	;;
tsan)
	export TSAN_OPTIONS=halt_on_error=1:exitcode=66
	exec "$out/stress_paths_tsan" --fast 500000 --threads 2 --clocked 100000
	;;
bounded)
	exec "$out/bounded"
	;;
fuzz)
	seconds=${2:-60}
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	# New inputs go to a scratch directory; the committed corpus is only read.
	if "$out/fuzz_queue" -max_total_time="$seconds" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/fuzz-" \
		"$work" "$here/corpus" >"$work.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work.log")
		echo "ok 1 - fuzz: ${runs:-?} inputs in ${seconds} s, every one agreed with the model"
	else
		grep -v '^#\|^INFO\|^\s*$' "$work.log" | tail -n 30 | sed 's/^/# /'
		echo "not ok 1 - fuzz: an input disagreed with the model (the input is in $out/fuzz-crash-*)"
	fi
	rm -f "$work.log"
	echo "1..1"
	;;
*)
	echo "usage: $0 san|valgrind|m32|paths|paths32|tsan|bounded|fuzz [seconds]" >&2
	exit 2
	;;
esac

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what the tests need, run every suite, and count their
# TAP results into one closing line, "N passed, N failed". Each suite's full
# output is kept in build/check/<suite>.log; its TAP lines are shown here.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
logs=$top/build/check
mkdir -p "$logs"
passed=0
failed=0

# suite NAME COMMAND...: run a command that prints TAP, and count it. A
# command that fails without a "not ok", or runs no test, is one failure.
suite() {
	local name=$1 log=$logs/$1.log rc ok nok
	shift
	echo "== $name"
	"$@" >"$log" 2>&1
	rc=$?
	grep -E '^(ok|not ok) |^# ' "$log"
	ok=$(grep -c '^ok ' "$log")
	nok=$(grep -c '^not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
		tail -n 25 "$log" | sed 's/^/# /'
		echo "not ok - $name exited with status $rc"
		nok=1
	elif [ $((ok + nok)) -eq 0 ]; then
		echo "not ok - $name ran no test"
		nok=1
	fi
	passed=$((passed + ok))
	failed=$((failed + nok))
}

# step NAME COMMAND...: a command that is one test by its exit status.
step() {
	local name=$1
	shift
	suite "$name" bash -c '"$@" && echo "ok 1 - $0" || { echo "not ok 1 - $0"; exit 1; }' "$name" "$@"
}

cd "$top" || exit 1
step deps bash tools/testing/deps.sh
if [ "$failed" -eq 0 ]; then
	step queue-build make -C tools/testing/queue -j"$(nproc)"
	if [ "$failed" -eq 0 ]; then
		suite queue-sanitizers tools/testing/queue/run.sh san
		suite queue-valgrind tools/testing/queue/run.sh valgrind
		suite queue-fuzz tools/testing/queue/run.sh fuzz "${TIMEQ_FUZZ_SECONDS:-60}"
	fi
	suite module-builds tools/testing/module-builds.sh
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

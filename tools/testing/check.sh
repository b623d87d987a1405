#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what the tests need, run every suite, and count their
# TAP results into one closing line, "N passed, N failed, N skipped" (a
# check a kernel cannot do, such as kmemleak in a stock one). Each suite's full
# output is kept in build/check/<suite>.log; its TAP lines are shown here.
#
#   gate-*        the static gates (tools/testing/gates), over module/,
#                 include/, kunit/ and samples/: checkpatch --strict, kernel-doc
#                 -Wall, clang-format on the lines new since .clang-format
#                 landed, and a clang (LLVM=1) build against Debian's 6.12
#                 headers; seconds each, one TAP line a file
#   queue-*       module/queue.c in userspace: the KUnit suite through a
#                 stand-in, the long differential run under ASan+UBSan,
#                 under valgrind, built for i386, and libFuzzer; and
#                 module/paths.c and clock.c: the KUnit suite of the paths
#                 and a white-box suite of their decisions under ASan+UBSan,
#                 fast and slow threads under ThreadSanitizer, and
#                 adversarial sequences against the bound on node visits
#                 per lock hold (tools/testing/queue)
#   spin          the spin model of module/paths.c's protocol: each scope
#                 searched exhaustively, each planted bug caught
#                 (tools/testing/spin)
#   explore-*     the interleaving explorer over the real queue.c, paths.c
#                 and clock.c (tools/testing/explore): every scenario
#                 under a fixed budget of PCT, random and ASan schedules,
#                 then every planted bug caught
#   module-builds timeq.ko at W=1 with sparse against Debian's 6.1, 6.12 and
#                 6.12-rt headers
#   install       dkms build from a copy of the tree against those headers,
#                 make install into a staging root, and a program built
#                 against the staged libtimeq with pkg-config
#   docs          timeq(4) rendered by groff and man without a warning and
#                 naming all of the ABI, the documentation's example
#                 programs built, and make htmldocs without a warning
#   vm-*          the debug kernel (KUnit, lockdep, KASAN, kmemleak, ...)
#                 built once and cached outside the tree, the KUnit suites
#                 (timeq_queue, timeq_paths) and the /dev/timeq kselftests
#                 (64- and 32-bit) and libtimeq's booted in it under qemu;
#                 in it too, the hardening of issue 13 (vm-hardening:
#                 allocation failure, the ABI fuzzer, limits and isolation,
#                 expiry under load; vm-teardown: rmmod, 100 loads, loads
#                 under failure, an in-kernel client unloaded in flight);
#                 the flowtrack scenarios (tools/testing/flowtrack/vm.sh)
#                 in it and in the stock 6.12-rt kernel; the stock 6.12,
#                 6.12-rt and 6.1 kernels booted with timeq, its smoke
#                 test, the kselftests and isolation, and 6.12-rt with
#                 expiry under load too;
#                 the tracepoints through tracefs in the stock 6.12 kernel
#                 (vm/trace.sh); and the bench's own self-test, which
#                 plants each kind of failure and expects the bench to
#                 report it (tools/testing/vm)
#   make-run      `make run` itself: timeqctl demo, flowgen and sim in the
#                 stock 6.12 kernel
#
# TIMEQ_FUZZ_SECONDS (default 60) bounds the fuzzing of the data structure,
# TIMEQ_ABI_FUZZ_SECONDS (default 90) that of /dev/timeq; TIMEQ_CHECK_VM=0
# skips the vm-* suites (quick local runs; CI runs everything).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
logs=$top/build/check
# The kernel cache lives under $HOME; CI's environment may not set it.
: "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
export HOME
mkdir -p "$logs"
passed=0
failed=0
skipped=0

# suite NAME COMMAND...: run a command that prints TAP, and count it. A
# command that fails without a "not ok", or runs no test, is one failure.
# Returns non-zero if the suite failed.
suite() {
	local name=$1 log=$logs/$1.log rc ok nok skip
	shift
	echo "== $name"
	"$@" >"$log" 2>&1
	rc=$?
	grep -E '^(ok|not ok) |^# ' "$log"
	skip=$(grep -c '^ok .*# SKIP' "$log")
	ok=$(($(grep -c '^ok ' "$log") - skip))
	nok=$(grep -c '^not ok ' "$log")
	if [ "$rc" -ne 0 ] && [ "$nok" -eq 0 ]; then
		tail -n 25 "$log" | sed 's/^/# /'
		echo "not ok - $name exited with status $rc"
		nok=1
	elif [ $((ok + nok + skip)) -eq 0 ]; then
		echo "not ok - $name ran no test"
		nok=1
	fi
	passed=$((passed + ok))
	failed=$((failed + nok))
	skipped=$((skipped + skip))
	[ "$nok" -eq 0 ]
}

# step NAME COMMAND...: a command that is one test by its exit status.
step() {
	local name=$1
	shift
	suite "$name" bash -c '"$@" && echo "ok 1 - $0" || { echo "not ok 1 - $0"; exit 1; }' "$name" "$@"
}

gates() {
	local gate

	for gate in checkpatch kernel-doc clang-format clang; do
		suite "gate-$gate" "tools/testing/gates/$gate.sh"
	done
}

queue() {
	step queue-build make -C tools/testing/queue -j"$(nproc)" || return
	suite queue-sanitizers tools/testing/queue/run.sh san
	suite queue-valgrind tools/testing/queue/run.sh valgrind
	suite queue-m32 tools/testing/queue/run.sh m32
	suite queue-paths tools/testing/queue/run.sh paths
	suite queue-paths-tsan tools/testing/queue/run.sh tsan
	suite queue-bounded tools/testing/queue/run.sh bounded
	suite queue-fuzz tools/testing/queue/run.sh fuzz "${TIMEQ_FUZZ_SECONDS:-60}"
	suite spin tools/testing/spin/run.sh
}

explore() {
	step explore-build make -C tools/testing/explore -j"$(nproc)" || return
	suite explore tools/testing/explore/run.sh check
	suite explore-plant tools/testing/explore/run.sh plant
}

vm() {
	local vm=tools/testing/vm kdir debug=$top/build/module-debug series mods
	local st=$top/build/selftests flows=$top/build/flowtrack
	local fuzz=${TIMEQ_ABI_FUZZ_SECONDS:-90} more

	step vm-deps "$vm/deps.sh" || return
	step vm-kernel "$vm/build-kernel.sh" || return
	kdir=$("$vm/build-kernel.sh" --print-dir)
	step vm-modules tools/testing/build-module.sh "$kdir" "$debug" \
		TIMEQ_KUNIT=y TIMEQ_DEBUG=y TIMEQ_CLIENT=y || return
	step vm-kselftest-build make -C tools/testing/selftests/timeq \
		KSFT="$kdir/tools/testing/selftests" OUT="$st" || return
	step vm-timeqctl-build make -C tools/timeqctl OUT="$top/build/timeqctl" ||
		return
	step vm-examples-build make -C Documentation/examples \
		OUT="$top/build/examples" || return
	suite vm-debug "$vm/run.sh" --kernel "$kdir/arch/x86/boot/bzImage" \
		-k "$debug/timeq.ko" -k "$debug/timeq_test.ko" \
		--kunit timeq_queue --kunit timeq_paths \
		-b "$st/timeq_test" -b "$st/timeq_test_32" -b "$st/timeq_lib_test"
	# Issue 13's hardening, in the debug kernel: allocation failure, the
	# ABI fuzzer (64- then 32-bit), limits and isolation (no_hash_pointers
	# lets it learn heap addresses to look for), and expiry under load.
	# A timeout that only a hang reaches, on any host. The fuzzer's 90 s
	# (the issue asked about 2 minutes) keep the hardening suites' time
	# near 6 minutes on two shared cores.
	suite vm-hardening "$vm/run.sh" --kernel "$kdir/arch/x86/boot/bzImage" \
		--timeout 3600 --append no_hash_pointers -k "$debug/timeq.ko" \
		-b "$st/timeq_enomem" -b "$st/timeq_isolation" \
		-b "$st/timeq_expiry" \
		-b "$st/timeq_fuzz --seconds $((fuzz * 5 / 6))" \
		-b "$st/timeq_fuzz_32 --seconds $((fuzz / 6))"
	# Teardown loads and unloads the modules itself: nothing is loaded
	# before it. Its test of loads under fail-nth scans kmemleak for the
	# kernel's own leak it provokes (CVE-2024-25740), and clears only
	# that; the summary line of that scan is not a report of ours.
	TIMEQ_VM_IGNORE='kmemleak: [0-9]+ new suspected memory leaks' \
	suite vm-teardown "$vm/run.sh" --kernel "$kdir/arch/x86/boot/bzImage" \
		--timeout 3600 \
		-f "$debug/timeq.ko:/lib/modules/timeq/timeq.ko" \
		-f "$debug/timeq_client.ko:/lib/modules/timeq/timeq_client.ko" \
		-b "$st/timeq_teardown"
	step vm-flowgen-build make -C tools/testing/flowtrack OUT="$flows" || return
	suite vm-flowtrack-debug tools/testing/flowtrack/vm.sh debug "$debug" \
		"$flows/flowgen"
	# module-builds built timeq_smoke.ko against each stock kernel's headers.
	# Isolation in each; expiry under load in 6.12-rt, whose softirqs run
	# in threads (the debug kernel runs it too).
	for series in 6.12 6.12-rt 6.1; do
		mods=$top/build/module-$("$vm/run-stock.sh" "$series" --print-release 2>/dev/null)
		more=()
		[ "$series" != 6.12-rt ] || more=(-b "$st/timeq_expiry")
		suite "vm-stock-$series" "$vm/run-stock.sh" "$series" \
			--append no_hash_pointers \
			-k "$mods/timeq.ko" -k "$mods/timeq_smoke.ko" \
			-b "$st/timeq_test" -b "$st/timeq_test_32" \
			-b "$st/timeq_lib_test" -b "$st/timeq_isolation" "${more[@]}"
		[ "$series" != 6.12-rt ] ||
			suite vm-flowtrack-6.12-rt tools/testing/flowtrack/vm.sh \
				6.12-rt "$mods" "$flows/flowgen"
	done
	# The tracepoints through tracefs, in the stock 6.12 kernel, with
	# timeq_smoke.ko, timeqctl and the documentation's examples to fire them.
	mods=$top/build/module-$("$vm/run-stock.sh" 6.12 --print-release 2>/dev/null)
	suite vm-trace-6.12 "$vm/run-stock.sh" 6.12 -k "$mods/timeq.ko" \
		-f "$mods/timeq_smoke.ko:/lib/modules/timeq/timeq_smoke.ko" \
		-f "$top/build/timeqctl/timeqctl:/bin/timeqctl" \
		-f "$top/build/examples/example-manual:/bin/example-manual" \
		-f "$top/build/examples/example-lib:/bin/example-lib" \
		-f "$top/build/examples/example-timeq4:/bin/example-timeq4" \
		-b "$top/$vm/trace.sh"
	step make-run tools/run.sh
	suite vm-selftest "$vm/selftest.sh"
}

cd "$top" || exit 1
if step deps tools/testing/deps.sh; then
	gates
	queue
	explore
	suite module-builds tools/testing/module-builds.sh
	suite install tools/testing/install.sh
	suite docs tools/testing/docs.sh
	[ "${TIMEQ_CHECK_VM:-1}" = 0 ] || vm
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

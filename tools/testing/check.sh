#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what the tests need, run every suite, and count their
# TAP results into one closing line, "N passed, N failed, N skipped" (a
# check a kernel cannot do, such as kmemleak in a stock one). Each suite's full
# output is kept in build/check/<suite>.log; its TAP lines are shown here.
#
# The suites, what each runs and what it needs, are listed in one place:
# the README's "Test it". Each is a start_suite or suite call below, under
# the name the README gives it.
#
# SUITES (make check SUITES='kunit-uml gate-*') runs the suites it names,
# shell globs over the suites' names, and what they need built first.
# TIMEQ_CHECK_JOBS (default the number of cores + 1) is how many suites
# run at once. TIMEQ_FUZZ_SECONDS (default 60) bounds the fuzzing of the
# data structure, TIMEQ_ABI_FUZZ_SECONDS (default 90) that of /dev/timeq;
# TIMEQ_CHECK_VM=0 skips the vm-* suites (quick local runs; CI runs
# everything).
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
ran=0

# suite NAME COMMAND...: run a command that prints TAP, and count it. A
# command that fails without a "not ok", or runs no test, is one failure.
# Returns non-zero if the suite failed.
suite() {
	want "$1" || return 0
	ran=$((ran + 1))
	run_suite "$@"
}

# want NAME: whether SUITES selects suite NAME (every suite when it is empty).
want() {
	local pats p

	read -ra pats <<<"${SUITES:-}"
	[ ${#pats[@]} -eq 0 ] && return 0
	for p in "${pats[@]}"; do
		# shellcheck disable=SC2053 # p is a glob
		[[ $1 == $p ]] && return 0
	done
	return 1
}

# want_any NAME...: whether SUITES selects one of these suites, so that
# what they need is built first.
want_any() {
	local name

	for name in "$@"; do
		want "$name" && return 0
	done
	return 1
}

# run_suite NAME COMMAND...: suite, whatever SUITES says.
run_suite() {
	local name=$1 start=$SECONDS rc
	shift
	"$@" >"$logs/$name.log" 2>&1
	rc=$?
	count_suite "$name" "$rc" $((SECONDS - start))
}

# count_suite NAME STATUS SECONDS: show a suite's TAP lines from its log and
# count them. Returns non-zero if the suite failed.
count_suite() {
	local name=$1 rc=$2 seconds=$3 log=$logs/$1.log ok nok skip

	echo "== $name"
	echo "$name $seconds" >>"$logs/seconds"
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
	echo "# $name: $seconds s"
	passed=$((passed + ok))
	failed=$((failed + nok))
	skipped=$((skipped + skip))
	[ "$nok" -eq 0 ]
}

# start_suite [--after NAME]... NAME COMMAND...: suite, in the background,
# $max_jobs of them at most, each counted once it and those started
# before it have ended (report_ready; finish_suites waits for the rest).
# --after: not before job NAME, started earlier, has ended, and skipped
# (one SKIP line) if it failed; a NAME not started is not waited for.
# For suites that install nothing, share no file with each other, and
# bound their work by count or by their own clock, not by how fast the
# host is. Most are one thread, and a guest's two vCPUs are often idle,
# waiting on its timers and its traffic: one job more than the cores
# keeps them busy.
max_jobs=${TIMEQ_CHECK_JOBS:-$(($(nproc) + 1))}
# The guests run beside other jobs, on hosts of any speed: each gets a
# timeout that only a hang reaches (run.sh's, and make run's).
export TIMEQ_VM_TIMEOUT=${TIMEQ_VM_TIMEOUT:-3600}
bg_names=()
bg_pids=()
start_suite() {
	local a=("$@")

	while [ "${a[0]}" = --after ]; do
		a=("${a[@]:2}")
	done
	want "${a[0]}" || return 0
	ran=$((ran + 1))
	start_job "$@"
}

# start_job [--after NAME]... NAME COMMAND...: start_suite, whatever
# SUITES says: for steps.
start_job() {
	local after=() name running waiting p a broken=
	while [ "$1" = --after ]; do
		after+=("$2")
		shift 2
	done
	name=$1
	shift
	while :; do
		running=()
		waiting=0
		for p in "${!bg_names[@]}"; do
			[ -e "$logs/${bg_names[p]}.status" ] && continue
			running+=("${bg_pids[p]}")
			for a in "${after[@]}"; do
				[ "${bg_names[p]}" != "$a" ] || waiting=1
			done
		done
		[ $waiting = 0 ] && [ ${#running[@]} -lt "$max_jobs" ] && break
		# 127: none of them is left to wait for (one was killed
		# before it wrote its status).
		wait -n "${running[@]}" || [ $? != 127 ] || break
		report_ready
	done
	for a in "${after[@]}"; do
		for p in "${bg_names[@]}"; do
			[ "$p" = "$a" ] && [ "$(cut -d' ' -f1 "$logs/$a.status")" != 0 ] &&
				broken+=" $a"
		done
	done
	rm -f "$logs/$name.status"
	(
		start=$SECONDS
		if [ -n "$broken" ]; then
			echo "ok 1 - $name # SKIP needs$broken, which failed" >"$logs/$name.log"
			rc=0
		else
			"$@" >"$logs/$name.log" 2>&1
			rc=$?
		fi
		echo "$rc $((SECONDS - start))" >"$logs/$name.status"
	) &
	bg_names+=("$name")
	bg_pids+=($!)
}

# report_ready: count the jobs that have ended, in the order they were
# started, up to the first still running.
bg_next=0
report_ready() {
	local name rc seconds

	while [ $bg_next -lt ${#bg_names[@]} ]; do
		name=${bg_names[bg_next]}
		[ -e "$logs/$name.status" ] || break
		read -r rc seconds <"$logs/$name.status" || rc=1 seconds=0
		count_suite "$name" "$rc" "$seconds"
		bg_next=$((bg_next + 1))
	done
}

finish_suites() {
	local name

	[ ${#bg_pids[@]} -eq 0 ] || wait "${bg_pids[@]}"
	# One killed before it wrote its status failed.
	for name in "${bg_names[@]}"; do
		[ -e "$logs/$name.status" ] || echo "1 0" >"$logs/$name.status"
	done
	report_ready
	for name in "${bg_names[@]}"; do
		rm -f "$logs/$name.status"
	done
	bg_names=()
	bg_pids=()
	bg_next=0
}

# as_step NAME COMMAND...: run a command that is one test by its exit
# status, and print that test.
as_step() {
	local name=$1
	shift
	if "$@"; then
		echo "ok 1 - $name"
	else
		echo "not ok 1 - $name"
		return 1
	fi
}

# step NAME COMMAND...: as_step, counted as a suite; a step builds or
# installs what the suites after it need, so it runs whenever its caller
# does, whatever SUITES says.
step() {
	run_suite "$1" as_step "$@"
}

# The static gates, the userspace suites, the spin model, the explorer,
# UML's KUnit, the module builds, install and docs run side by side
# (start_suite), the longest first; deps.sh has installed what each would.
side_by_side() {
	local queue=0 explore=0 spin_rest

	if want_any queue-sanitizers queue-valgrind queue-m32 queue-paths \
		    queue-paths-m32 queue-paths-tsan queue-bounded queue-fuzz; then
		step queue-build make -C tools/testing/queue -j"$(nproc)" && queue=1
	fi
	if want_any explore explore-plant; then
		step explore-build make -C tools/testing/explore -j"$(nproc)" &&
			explore=1
	fi
	# The spin model's largest scope, 21 million states, beside the rest.
	start_suite spin-regions tools/testing/spin/run.sh regions
	mapfile -t spin_rest < <(tools/testing/spin/run.sh --list | grep -vx regions)
	start_suite spin tools/testing/spin/run.sh "${spin_rest[@]}"
	if [ $queue = 1 ]; then
		start_suite queue-sanitizers tools/testing/queue/run.sh san
		start_suite queue-fuzz tools/testing/queue/run.sh fuzz \
			"${TIMEQ_FUZZ_SECONDS:-60}"
	fi
	start_suite gate-clang-format tools/testing/gates/clang-format.sh
	start_suite module-builds tools/testing/module-builds.sh
	[ $vmdeps = 0 ] || start_job vm-build vm_build
	if [ $explore = 1 ]; then
		start_suite explore-plant tools/testing/explore/run.sh plant
		start_suite explore tools/testing/explore/run.sh check
	fi
	[ $queue = 0 ] ||
		start_suite queue-valgrind tools/testing/queue/run.sh valgrind
	start_suite gate-clang tools/testing/gates/clang.sh
	start_suite install tools/testing/install.sh
	start_suite gate-checkpatch tools/testing/gates/checkpatch.sh
	start_suite kunit-uml tools/testing/kunit/uml.sh --tap
	if [ $queue = 1 ]; then
		start_suite queue-m32 tools/testing/queue/run.sh m32
		start_suite queue-paths tools/testing/queue/run.sh paths
		start_suite queue-paths-m32 tools/testing/queue/run.sh paths32
		start_suite queue-bounded tools/testing/queue/run.sh bounded
		start_suite queue-paths-tsan tools/testing/queue/run.sh tsan
	fi
	start_suite docs tools/testing/docs.sh
	start_suite gate-kernel-doc tools/testing/gates/kernel-doc.sh
	start_suite gate-compat tools/testing/gates/compat.sh
	start_suite gate-types tools/testing/gates/types.sh
	if [ $vmdeps = 1 ] && want_any vm-kcsan vm-selftest; then
		start_job vm-kcsan-build vm_kcsan_build
	fi
}

# sub_step NAME COMMAND...: one step of a job that builds: its output in
# build/check/NAME.log, its TAP line here (with the log's end if it
# failed), numbered by sub_n. Returns its status.
sub_n=0
sub_step() {
	local name=$1
	shift
	sub_n=$((sub_n + 1))
	if "$@" >"$logs/$name.log" 2>&1; then
		echo "ok $sub_n - $name"
	else
		tail -n 25 "$logs/$name.log" | sed 's/^/# /'
		echo "not ok $sub_n - $name"
		return 1
	fi
}

# vm_build: what the guests boot and run, a step after the other up to
# the first that fails; the job vm-build, in side_by_side's pool, so that
# on a cold cache it waits there for the debug kernel's prebuild while
# the other suites run. The stock kernels' guests boot the modules that
# module-builds builds, and it builds them when SUITES has no
# module-builds.
vm_build() {
	local vm=tools/testing/vm kdir

	if want_any vm-stock-6.12 vm-stock-6.12-rt vm-stock-6.1 \
		    vm-flowtrack-6.12-rt vm-trace-6.12 && ! want module-builds; then
		sub_step vm-stock-modules tools/testing/module-builds.sh || return
	fi
	sub_step vm-kernel "$vm/build-kernel.sh" || return
	kdir=$("$vm/build-kernel.sh" --print-dir)
	sub_step vm-modules tools/testing/build-module.sh "$kdir" \
		"$top/build/module-debug" TIMEQ_KUNIT=y TIMEQ_DEBUG=y \
		TIMEQ_CLIENT=y || return
	sub_step vm-kselftest-build make -C tools/testing/selftests/timeq \
		KSFT="$kdir/tools/testing/selftests" OUT="$top/build/selftests" ||
		return
	sub_step vm-timeqctl-build make -C tools/timeqctl \
		OUT="$top/build/timeqctl" || return
	sub_step vm-examples-build make -C Documentation/examples \
		OUT="$top/build/examples" || return
	sub_step vm-flowgen-build make -C tools/testing/flowtrack \
		OUT="$top/build/flowtrack"
}

# vm_kcsan_build: the KCSAN kernel (tools/testing/vm/kernel-kcsan.config,
# the debug kernel with strict KCSAN in place of KASAN), built once and
# cached beside the debug kernel, and the modules built against it; the
# job vm-kcsan-build, as vm_build.
vm_kcsan_build() {
	local vm=tools/testing/vm kdir

	sub_step vm-kcsan-kernel "$vm/build-kernel.sh" --config kcsan || return
	kdir=$("$vm/build-kernel.sh" --config kcsan --print-dir)
	sub_step vm-kcsan-modules tools/testing/build-module.sh "$kdir" \
		"$top/build/module-kcsan" TIMEQ_KUNIT=y TIMEQ_DEBUG=y
}

# The guests, after side_by_side's suites, once what they need is built
# (vm-build, vm-kcsan-build), side by side too, the longest first.
vm() {
	local vm=tools/testing/vm kdir debug=$top/build/module-debug series mods
	local st=$top/build/selftests flows=$top/build/flowtrack
	local fuzz=${TIMEQ_ABI_FUZZ_SECONDS:-90} more
	local after=(--after vm-build) stock_after=(--after vm-build)

	! want module-builds || stock_after+=(--after module-builds)
	kdir=$("$vm/build-kernel.sh" --print-dir)
	# The flowtrack scenarios pace their traffic by the clock: the
	# guest waits more than it computes, beside the busiest.
	start_suite "${after[@]}" vm-flowtrack-debug \
		tools/testing/flowtrack/vm.sh debug "$debug" "$flows/flowgen"
	# The /dev/timeq hardening, in the debug kernel: allocation failure,
	# the ABI fuzzer (64- then 32-bit), limits and isolation
	# (no_hash_pointers lets it learn heap addresses to look for), and
	# expiry under load. The fuzzer runs 90 s (the hardening asked for
	# about 2 minutes).
	start_suite "${after[@]}" vm-hardening "$vm/run.sh" \
		--kernel "$kdir/arch/x86/boot/bzImage" \
		--append no_hash_pointers -k "$debug/timeq.ko" \
		-b "$st/timeq_enomem" -b "$st/timeq_isolation" \
		-b "$st/timeq_expiry" \
		-b "$st/timeq_fuzz --seconds $((fuzz * 5 / 6))" \
		-b "$st/timeq_fuzz_32 --seconds $((fuzz / 6))"
	vm_kcsan
	start_suite "${after[@]}" --after vm-kcsan-build vm-selftest \
		"$vm/selftest.sh"
	# Teardown loads and unloads the modules itself: nothing is loaded
	# before it. Its test of loads under fail-nth scans kmemleak for the
	# kernel's own leak it provokes (CVE-2024-25740), and clears only
	# that; the summary line of that scan is not a report of ours.
	TIMEQ_VM_IGNORE='kmemleak: [0-9]+ new suspected memory leaks' \
	start_suite "${after[@]}" vm-teardown "$vm/run.sh" \
		--kernel "$kdir/arch/x86/boot/bzImage" \
		-f "$debug/timeq.ko:/lib/modules/timeq/timeq.ko" \
		-f "$debug/timeq_client.ko:/lib/modules/timeq/timeq_client.ko" \
		-b "$st/timeq_teardown"
	# module-builds built timeq_smoke.ko against each stock kernel's
	# headers; flowtrack in 6.12-rt, whose softirqs run in threads.
	mods=$top/build/module-$("$vm/run-stock.sh" 6.12-rt --print-release 2>/dev/null)
	start_suite "${stock_after[@]}" vm-flowtrack-6.12-rt \
		tools/testing/flowtrack/vm.sh 6.12-rt "$mods" "$flows/flowgen"
	# KUnit's timeq_paths, every case (the SMP ones are skipped in UML);
	# timeq_queue, the bare data structure, runs in kunit-uml alone, where
	# it takes seconds rather than minutes of emulation (kunit/README).
	start_suite "${after[@]}" vm-debug "$vm/run.sh" \
		--kernel "$kdir/arch/x86/boot/bzImage" \
		--append kunit.filter_glob=timeq_paths \
		-k "$debug/timeq.ko" -k "$debug/timeq_test.ko" --kunit timeq_paths \
		-b "$st/timeq_test" -b "$st/timeq_test_32" -b "$st/timeq_lib_test"
	# lockdep sees a timeq_delete_sync(), and a timeq_expire(), under a
	# lock a callback takes.
	start_suite "${after[@]}" vm-lockdep-plant "$vm/plant-lockdep.sh" "$debug"
	start_suite "${after[@]}" make-run as_step make-run tools/run.sh
	# Isolation in each stock kernel; expiry under load in 6.12-rt (the
	# debug kernel runs it too).
	for series in 6.12-rt 6.12 6.1; do
		mods=$top/build/module-$("$vm/run-stock.sh" "$series" --print-release 2>/dev/null)
		more=()
		[ "$series" != 6.12-rt ] || more=(-b "$st/timeq_expiry")
		start_suite "${stock_after[@]}" "vm-stock-$series" \
			"$vm/run-stock.sh" "$series" --append no_hash_pointers \
			-k "$mods/timeq.ko" -k "$mods/timeq_smoke.ko" \
			-b "$st/timeq_test" -b "$st/timeq_test_32" \
			-b "$st/timeq_lib_test" -b "$st/timeq_isolation" "${more[@]}"
	done
	# The tracepoints through tracefs, in the stock 6.12 kernel, with
	# timeq_smoke.ko, timeqctl and the documentation's examples to fire them.
	mods=$top/build/module-$("$vm/run-stock.sh" 6.12 --print-release 2>/dev/null)
	start_suite "${stock_after[@]}" vm-trace-6.12 "$vm/run-stock.sh" 6.12 \
		-k "$mods/timeq.ko" \
		-f "$mods/timeq_smoke.ko:/lib/modules/timeq/timeq_smoke.ko" \
		-f "$top/build/timeqctl/timeqctl:/bin/timeqctl" \
		-f "$top/build/examples/example-manual:/bin/example-manual" \
		-f "$top/build/examples/example-lib:/bin/example-lib" \
		-f "$top/build/examples/example-timeq4:/bin/example-timeq4" \
		-b "$top/$vm/trace.sh"
}

# The guests' suites (vm).
vm_suites=(vm-debug vm-hardening vm-teardown vm-flowtrack-debug vm-stock-6.12
	   vm-stock-6.12-rt vm-stock-6.1 vm-flowtrack-6.12-rt vm-trace-6.12
	   make-run vm-kcsan vm-selftest vm-lockdep-plant)

vmdeps=0

# prebuild: start the kernels' builds in the background. They take minutes
# on a cold cache, and the userspace suites before their first use leave a
# core idle. Each builder holds its cache's lock while it builds, so the
# suite or step that needs a kernel waits for it there; one that failed is
# built again, and reported, by that step. What the guests need is
# installed first (vm-deps), so that no apt-get runs beside another.
prebuild() {
	if want kunit-uml && tools/testing/kunit/uml.sh --deps >&2; then
		tools/testing/kunit/uml.sh --build >"$logs/prebuild-uml.log" 2>&1 &
	fi
	[ "${TIMEQ_CHECK_VM:-1}" != 0 ] && want_any "${vm_suites[@]}" || return 0
	step vm-deps tools/testing/vm/deps.sh || return
	vmdeps=1
	if want_any vm-debug vm-hardening vm-teardown vm-flowtrack-debug \
		    vm-selftest vm-lockdep-plant; then
		tools/testing/vm/build-kernel.sh >"$logs/prebuild-kernel.log" 2>&1 &
	fi
	if want_any vm-kcsan vm-selftest; then
		tools/testing/vm/build-kernel.sh --config kcsan \
			>"$logs/prebuild-kcsan.log" 2>&1 &
	fi
}

# vm-kcsan, in the KCSAN kernel: timeq.ko and timeq_test.ko's KUnit
# suites with their stress case, then the threaded kselftests: expiry
# under load (20,000 elements, 4 files, 4 threads refreshing, readers),
# the fuzzer's chaos phase (threads, a reader, files swapped under calls;
# no model phase) and timeq_test, whose monotonic and threaded cases race
# calls against expiry. run.sh fails the suite on a KCSAN report whose
# racing accesses have a frame of timeq's modules in their call chains
# (its top comment gives the rule); the core kernel's own are listed.
# On the command line: the differential KUnit case is skipped (one thread
# on queues no other context touches: no race to find, and it alone
# takes minutes under KCSAN); KCSAN watches twice as many accesses (one
# in 1 to 2000 rather than 1 to 4000), each for up to 160 us (40 us in an
# interrupt) rather than 80 (20): its defaults are tuned for native
# speed, and under TCG the other CPU runs far fewer instructions in a
# window.
vm_kcsan() {
	local vm=tools/testing/vm kdir mods=$top/build/module-kcsan
	local st=$top/build/selftests

	kdir=$("$vm/build-kernel.sh" --config kcsan --print-dir)
	start_suite --after vm-kcsan-build vm-kcsan "$vm/run.sh" \
		--kernel "$kdir/arch/x86/boot/bzImage" \
		--append "kunit.filter=speed>very_slow" \
		--append "kunit.filter_action=skip kcsan.skip_watch=2000" \
		--append "kcsan.udelay_task=160 kcsan.udelay_interrupt=40" \
		-k "$mods/timeq.ko" -k "$mods/timeq_test.ko" \
		--kunit timeq_queue --kunit timeq_paths \
		-b "$st/timeq_expiry --elements 20000" \
		-b "$st/timeq_fuzz --model-share 0 --seconds 60" \
		-b "$st/timeq_test"
}

cd "$top" || exit 1
# Each suite's seconds, one "name seconds" a line, for the figures of the
# README's "Test it".
: >"$logs/seconds"
if step deps tools/testing/deps.sh; then
	prebuild
	side_by_side
	[ $vmdeps = 0 ] || vm
	finish_suites
fi
# A prebuild that no suite waited for (a step failed first) ends here.
wait

if [ "$ran" -eq 0 ] && [ -n "${SUITES:-}" ]; then
	echo "not ok - SUITES='$SUITES' selects no suite"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

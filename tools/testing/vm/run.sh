#!/usr/bin/env bash
# tools/testing/vm/run.sh - boot a timeq test guest in qemu (TCG) and judge its log.
#
# Usage:
#   run.sh [options] [-k 'MOD.ko [PARAM=V ...]']... [-b 'PROG [ARG ...]']...
#   run.sh --scan LOG          judge an existing console log only
#
# Options:
#   -k SPEC          module to insmod (in order), with parameters
#   -b SPEC          test program to run in the guest (static, or dynamic
#                    with its libraries copied), with arguments
#   -f SRC:DST       extra file in the initramfs
#   -c NAME=VALUE    extra setting for the init (see init.sh: TIMEQ_RMMOD=0,
#                    TIMEQ_TEST_TIMEOUT=S, TIMEQ_KMEMLEAK=0, TIMEQ_HANG=1)
#   --kernel PATH    bzImage/vmlinuz to boot (default: the debug kernel of
#                    build-kernel.sh, which must have been built)
#   --initrd PATH    boot this initramfs as is (-k/-b/-f/-c/--init unused)
#   --init PATH      init script (default: init.sh beside this script)
#   --log PATH       console log (default: $TIMEQ_CACHE/logs/run-<time>.log)
#   --timeout SEC    kill the guest after SEC seconds (default
#                    $TIMEQ_VM_TIMEOUT or 600); a timeout fails the run
#   --append ARGS    more kernel command line
#   --smp N --mem M  guest CPUs (default 2) and memory (default 1G)
#   --verbose        copy the console to stderr while it runs
#   --scan LOG       do not boot; scan LOG (add --timed-out to say it timed out)
#   --kunit SUITE    fail unless KUnit suite SUITE ran (repeatable): a module
#                    that loads but runs no test must not pass
#
# qemu: qemu-system-x86_64 -accel tcg (nested KVM hangs here) -smp 2 -m 1G
# -nographic -no-reboot, command line "console=ttyS0 panic=-1 oops=panic
# printk.time=1 printk.devkmsg=on ...".  The init ends with reboot -f, which with -no-reboot
# ends qemu; a panic reboots at once (panic=-1) and so ends qemu too.
#
# The log is then scanned.  Output is TAP (a parent can count "ok"/"not ok"):
#   ok N - kernel booted                 the kernel ran the init
#   ok N - guest finished                end marker TIMEQ-VM-DONE seen, no timeout
#   ok N - no panic/Oops                 Kernel panic, Oops, kernel BUG at, GPF
#   ok N - no BUG report                 BUG: (sleeping function called from
#                                        invalid context, scheduling while
#                                        atomic, ...), list corruption, UBSAN,
#                                        RCU stalls, soft lockups, hung tasks
#   ok N - no WARNING                    WARNING: (WARN_ON and friends)
#   ok N - no lockdep report             possible recursive locking, inconsistent
#                                        lock state, circular locking dependency,
#                                        ===== headers, suspicious RCU usage, ...
#   ok N - no KASAN report
#   ok N - no KCSAN report               no "BUG: KCSAN: data-race in ..."
#                                        report (the block between its two
#                                        "=" rules) that involves a module
#                                        under test (see "Which KCSAN reports
#                                        count" below); SKIP on a kernel
#                                        without KCSAN
#   ok N - no ODEBUG report              debugobjects
#   ok N - kmemleak clean                no "unreferenced object" (SKIP when the
#                                        kernel has no kmemleak)
#   ok N - insmod <module> / rmmod <module> / test <program>
#   ok N - kunit <suite>.<case>          every KUnit case (indented KTAP line in
#                                        a suite; "# SKIP" counts as skipped)
#   ok N - <program>: <case>             every TAP result a test program (a
#                                        kselftest) printed, up to the init's
#                                        next console line
# each "not ok" followed by "# " lines quoting the offending log lines, then
# one "# kunit suite ..." line per suite and, if any ran, their totals;
# and the plan.
# Exit status: 0 when every check is ok, 1 otherwise, 2 for a usage error.
#
# Which KCSAN reports count. KCSAN watches the whole kernel, and it reports
# races in core code that the tests reach with no timeq code taking part
# (in the runs of vm-kcsan: the scheduler tick's known race on
# hrtimer_cpu_base.running, hrtimer_active() / __hrtimer_run_queues());
# those are the kernel's, not ours, and must not fail our runs. So a
# report counts when a frame of either racing access's call chain is in a
# loadable module: the test kernels build everything they need in and
# load no module of their own, so a module frame is one of the modules
# under test (timeq, timeq_test, timeq_client, timeq_flowtrack, vmcheck).
# A call chain is a stack's frames (the lines " function+0x../0x..
# [module]", not the held locks or irq events printed beside them) from
# the top down to the first interrupt or exception entry (asm_sysvec_*,
# asm_common_interrupt, asm_exc_*): below that is whatever the interrupt
# happened to interrupt, which has no part in the access. The runs showed
# why: the tick's race above, taken in a timer interrupt that landed in
# timeq's fast path in a softirq, has timeq's frames under
# asm_sysvec_apic_timer_interrupt. A race in core code that timeq calls
# (an hrtimer, list or llist helper, the workqueue) has timeq's frame in
# its chain and counts; a race in an interrupt or softirq with no timeq
# frame above its entry does not. And a race between two core functions
# on core-private state, which a caller can neither cause nor prevent,
# does not count even with a module frame in its chain: those seen, with
# why they are core's alone, are in kcsan_core_races below (a race of core
# code on timeq's objects, through an API that timeq misuses, still counts).
# The reports not counted are listed
# under the check by their title line. A line of the reports is not taken
# by the other checks (its "BUG:" is not a BUG report, its rules are not
# lockdep's, a frame named *hung_task* is not a hung task). The guest's
# KCSAN counters (/sys/kernel/debug/kcsan: watchpoints set up and races
# seen) follow the check, to show that KCSAN watched.
#
# Environment: TIMEQ_CACHE, TIMEQ_VM_TIMEOUT, TIMEQ_VM_IGNORE (an awk regex:
# matching log lines are never taken as splats), QEMU (default
# qemu-system-x86_64).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${TIMEQ_CACHE:-$HOME/.cache/timeq}
kernel='' initrd='' init=$here/init.sh log='' timeout=${TIMEQ_VM_TIMEOUT:-600}
append='' smp=2 mem=1G verbose=0 scan='' timed_out=0 suites=''
ird_args=()

usage() { sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; }
need() { [ $# -ge 2 ] || { echo "run.sh: $1 needs an argument" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	-k|-b|-f|-c) need "$@"; ird_args+=("$1" "$2"); shift 2 ;;
	--kernel) need "$@"; kernel=$2; shift 2 ;;
	--initrd) need "$@"; initrd=$2; shift 2 ;;
	--init) need "$@"; init=$2; shift 2 ;;
	--log) need "$@"; log=$2; shift 2 ;;
	--timeout) need "$@"; timeout=$2; shift 2 ;;
	--append) need "$@"; append="$append $2"; shift 2 ;;
	--smp) need "$@"; smp=$2; shift 2 ;;
	--mem) need "$@"; mem=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	--scan) need "$@"; scan=$2; shift 2 ;;
	--timed-out) timed_out=1; shift ;;
	--kunit) need "$@"; suites="$suites $2"; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

# KCSAN reports of races between two core functions on core-private state
# (an awk regex over the title line; see "Which KCSAN reports count"):
#  - hrtimer_wakeup / schedule_hrtimeout_range_clock: a task sleeping in
#    usleep_range() (the stress's timer callbacks do) reads t.task of the
#    hrtimer_sleeper on its own stack to decide whether to schedule(),
#    while the sleeper's hrtimer, in a hard interrupt on the same CPU,
#    clears it; kernel/time/hrtimer.c's own, whoever sleeps.
#  - __hrtimer_run_queues / hrtimer_active: the scheduler tick reads
#    hrtimer_cpu_base.running (hrtimer_active() under a seqcount) while
#    another CPU's hrtimer interrupt sets it.
#  - poll_schedule_timeout / pollwake: fs/select.c's poll_wqueues.triggered,
#    set by pollwake() (ordered by its smp_wmb()) and cleared by the
#    polling task (smp_store_mb()); a timeq file's expiry wakes a reader
#    in poll() through it, as any wake_up() of a polled waitqueue would.
kcsan_core_races='^BUG: KCSAN: data-race in (hrtimer_wakeup / schedule_hrtimeout_range_clock|__hrtimer_run_queues / hrtimer_active|poll_schedule_timeout[.a-z0-9]* / pollwake)$'

# scan_log LOG TIMED_OUT: print the TAP verdict of a console log, return 0/1.
scan_log() {
	awk -v timed_out="$2" -v ignore="${TIMEQ_VM_IGNORE:-}" -v logname="$1" \
	    -v suites="$suites" -v core_races="$kcsan_core_races" '
function tap(ok, name, diag,   s) {
	ntap++
	s = (ok ? "ok " : "not ok ") ntap " - " name
	print s
	if (ok) npass++; else nfail++
	if (diag != "") printf "%s", diag
}
# quote(i): log line i and the 3 lines after it, as TAP diagnostics
function quote(i,   j, s) {
	s = ""
	for (j = i; j <= i + 3 && j <= n; j++)
		s = s "#   " (j == i ? "> " : "  ") raw[j] "\n"
	return s
}
# kcsan_check(): the TAP line "no KCSAN report" (see the top comment).
function kcsan_check(   b, nours, nother, q, d, o) {
	nours = 0; nother = 0; o = ""
	for (b = 1; b <= nkc; b++) {
		if (kc_ours[b] && !kc_core[b]) { nours++; continue }
		nother++
		o = o sprintf("#   not counted (%s): %s (log line %d)\n",
			      kc_ours[b] ? "a core race on core state" : "no module frame in either call chain",
			      kc_title[b], kc_line[b])
	}
	if (kcstats != "") o = o "#   KCSAN counters: " kcstats "\n"
	if (nours) {
		d = sprintf("#   %d KCSAN report(s) with a frame of a module under test; the first ones:\n", nours)
		q = 0
		for (b = 1; b <= nkc; b++) {
			if (!kc_ours[b] || kc_core[b]) continue
			if (q++ < 4) d = d quote_block(kc_first[b], kc_last[b])
			else d = d sprintf("#   and: %s (log line %d)\n", kc_title[b], kc_line[b])
		}
		tap(0, "no KCSAN report", d o)
	} else if (kcsan_kernel || nkc) {
		tap(1, "no KCSAN report", o)
	} else {
		ntap++; nskip++; print "ok " ntap " - no KCSAN report # SKIP kernel without KCSAN"
	}
}
function is_rule(l) { return l ~ /^=+$/ && length(l) >= 20 }
# quote_block(b, e): log lines b to e (at most 90), as TAP diagnostics
function quote_block(b, e,   j, s) {
	s = ""
	for (j = b; j <= e && j < b + 90; j++) s = s "#   " raw[j] "\n"
	if (e >= b + 90) s = s "#   [" e - b - 89 " more lines]\n"
	return s
}
function classify(i, l,   j) {
	if (i in kc_skip) return ""
	if (ignore != "" && l ~ ignore) return ""
	if (l ~ /^TIMEQ-VM/) return ""
	if (l ~ /KASAN/) return "kasan"
	if (l ~ /unreferenced object 0x|new suspected memory leak/) return "kmemleak"
	if (l ~ /possible recursive locking|inconsistent lock state|circular locking dependency|irq lock inversion|suspicious RCU usage|held lock freed|bad unlock balance|lock held when returning|trying to register non-static key|leaked lock|held when returning to user|turning off the locking correctness validator|possible deadlock/) return "lockdep"
	if (l ~ /^=+$/ && length(l) >= 20) {
		# A rule of "=": KASAN and UBSAN put one above and one below their
		# report (whose own lines are classified); lockdep puts one above
		# its reports only.
		if (in_block) { in_block = 0; return "" }
		for (j = i + 1; j <= i + 2 && j <= n; j++)
			if (kline[j] ~ /KASAN|UBSAN/) { in_block = 1; return "" }
		return "lockdep"
	}
	if (l ~ /ODEBUG/ && l !~ /selftest passed|objects replaced/) return "odebug"
	if (l ~ /Kernel panic|Oops|kernel BUG at|general protection fault|BUG: unable to handle|Unable to handle kernel|stack-protector|double fault/) return "panic"
	if (l ~ /WARNING:/) return "warning"
	if (l ~ /BUG:|list_add corruption|list_del corruption|UBSAN:|detected stall|soft lockup|hung_task|blocked for more than/) return "bug"
	return ""
}
{
	sub(/\r+$/, "")
	gsub(/\r/, "")
	n++
	raw[n] = $0
	l = $0
	iskernel[n] = sub(/^\[ *[0-9]+\.[0-9]+\] /, "", l)
	kline[n] = l
}
END {
	# KCSAN reports, first: the rule above "BUG: KCSAN:" to the rule that
	# closes the report (or the next report, or 300 lines on: a cut log).
	# A report counts (kc_ours) if a stack frame is in a module.
	frame_re = "^ +[A-Za-z_.$][A-Za-z0-9_.$]*\\+0x[0-9a-f]+/0x[0-9a-f]+( \\[[A-Za-z0-9_]+\\])?$"
	kcsan_kernel = 0; nkc = 0
	for (i = 1; i <= n; i++) {
		if (kline[i] ~ /^kcsan: (non-)?strict mode configured/) kcsan_kernel = 1
		if (kline[i] !~ /^BUG: KCSAN: /) continue
		b = (i > 1 && is_rule(kline[i - 1])) ? i - 1 : i
		for (e = i + 1; e <= n && e < i + 300 && !is_rule(kline[e]) && kline[e] !~ /^BUG: KCSAN: /; e++)
			;
		if (e > n || kline[e] ~ /^BUG: KCSAN: /) e--
		ours = 0; cut = 0
		for (j = b; j <= e; j++) {
			# the stack of an access follows "... to 0x.. of N bytes by ..."
			if (kline[j] ~ / to 0x[0-9a-f]+ of [0-9]+ bytes by /) cut = 0
			if (kline[j] ~ frame_re) {
				kc_skip[j] = 1
				if (kline[j] ~ /^ +asm_/) cut = 1
				if (!cut && kline[j] ~ / \[[A-Za-z0-9_]+\]$/) ours = 1
			}
			if (j == b || j == i || (j == e && is_rule(kline[j]))) kc_skip[j] = 1
		}
		if (ignore == "" || kline[i] !~ ignore) {
			nkc++; kc_first[nkc] = b; kc_last[nkc] = e
			kc_title[nkc] = kline[i]; kc_line[nkc] = i; kc_ours[nkc] = ours
			kc_core[nkc] = kline[i] ~ core_races
		}
		i = e
	}
	kcstats = ""
	booted = 0; started = 0; done = 0; kmstate = ""
	nsuite = 0
	for (i = 1; i <= n; i++) {
		l = kline[i]
		if (l ~ /Linux version [0-9]/) booted = 1
		# The markers of the init, each written twice (announce() in init.sh):
		# take either copy, from anywhere in a line.
		if (index(l, "TIMEQ-VM-START ")) started = 1
		if (index(l, "TIMEQ-VM-DONE ")) done = 1
		if (index(l, "TIMEQ-VM-KMEMLEAK-RAN")) kmstate = "ran"
		if (index(l, "TIMEQ-VM-KMEMLEAK-UNAVAILABLE") && kmstate == "") kmstate = "unavailable"
		if (l ~ /^TIMEQ-VM-KCSAN-BEGIN/) in_kcstats = 1
		else if (l ~ /^TIMEQ-VM-KCSAN-END/) in_kcstats = 0
		else if (in_kcstats && l ~ /^(enabled|setup_watchpoints|data_races|races_unknown_origin|no_capacity): [0-9]+$/)
			kcstats = kcstats (kcstats == "" ? "" : ", ") l
		# The result of a step: init.sh writes it as a printk record; take
		# it from anywhere in the line in case other output shares it.
		if (match(l, /TIMEQ-VM-(INSMOD|RMMOD|TEST) [^ ]+ rc=[0-9]+/)) {
			split(substr(l, RSTART, RLENGTH), w, " ")
			rc = w[3]; sub(/^rc=/, "", rc)
			what = (w[1] == "TIMEQ-VM-INSMOD" ? "insmod " : w[1] == "TIMEQ-VM-RMMOD" ? "rmmod " : "test ") w[2]
			nact++; act_name[nact] = what; act_rc[nact] = rc; act_line[nact] = i
		}
		# splats (kernel lines and the kmemleak report)
		c = classify(i, l)
		if (c != "") {
			if (!(c in nhit)) { nhit[c] = 0; lastq[c] = -10 }
			nhit[c]++
			# quote the first few hits, not those inside a quote already
			if (nq[c] < 6 && i > lastq[c] + 3) { diag[c] = diag[c] quote(i); nq[c]++; lastq[c] = i }
		}
		# TAP from a test program (a kselftest): console lines, not kernel
		# ones, from "TIMEQ-VM: run PROG" to the next console line of the
		# init ("TIMEQ-VM..."), which the init writes after the program
		# has exited, behind all the output of the program. The
		# TIMEQ-VM-TEST marker is no end: it goes through printk, which
		# can overtake what the serial port still has to send, and can
		# come late too, as printk is deferred on PREEMPT_RT.
		if (!iskernel[i] && l ~ /^TIMEQ-VM: run /) { split(l, w, " "); prog = w[3]; continue }
		if (!iskernel[i] && l ~ /^TIMEQ-VM/) prog = ""
		if (!iskernel[i] && prog != "" && match(l, /^(not )?ok [0-9]+ /)) {
			name = substr(l, RSTART + RLENGTH)
			nprog++; prog_name[nprog] = prog ": " name
			prog_ok[nprog] = (l !~ /^not ok/); prog_line[nprog] = i
			continue
		}
		# KTAP from KUnit: kernel lines only, so that a test program printing
		# TAP on the console is not mistaken for KUnit.
		if (!iskernel[i]) continue
		if (match(l, /^    # Subtest: /)) {
			suite = substr(l, RSTART + RLENGTH)
			sub(/ .*/, "", suite)
			if (!(suite in sidx)) { nsuite++; sidx[suite] = nsuite; sname[nsuite] = suite }
			cur = suite; scomplete[suite] = 0; pending = ""; npending = 0
			continue
		}
		if (cur != "" && l ~ /^    (not )?ok [0-9]+ /) {
			ok = (l !~ /^    not ok/)
			name = l; sub(/^    (not )?ok [0-9]+ /, "", name)
			skip = (name ~ /# *SKIP/)
			reason = ""
			if (match(name, / # .*/)) { reason = substr(name, RSTART + 3); name = substr(name, 1, RSTART - 1) }
			ncase++; case_name[ncase] = cur "." name; case_ok[ncase] = ok
			case_skip[ncase] = skip; case_reason[ncase] = reason; case_line[ncase] = i
			case_diag[ncase] = pending; pending = ""; npending = 0
			if (skip) sskip[cur]++; else if (ok) spass[cur]++; else sfail[cur]++
			continue
		}
		# what KUnit prints about a case before its result line
		# ("# case: EXPECTATION FAILED at ...", the values, the message)
		if (cur != "" && l !~ /^    (KTAP version|1\.\.|# (module|Subtest):)/ && npending < 12) {
			pending = pending "#   " raw[i] "\n"; npending++
		}
		if (cur != "" && match(l, /^(not )?ok [0-9]+ /)) {
			name = substr(l, RSTART + RLENGTH); sub(/ .*/, "", name)
			if (name == cur) {
				scomplete[cur] = 1
				sresult_ok[cur] = (l !~ /^not ok/)
				sresult_line[cur] = i
				cur = ""
			}
		}
	}

	print "TAP version 13"
	tap(booted && started, "kernel booted", \
	    booted ? (started ? "" : "#   the kernel booted but the init never started\n") \
	           : "#   no \"Linux version\" banner: the kernel did not boot (or qemu failed)\n")
	if (done && !timed_out) tap(1, "guest finished", "")
	else tap(0, "guest finished", \
	    timed_out ? "#   timed out: the guest did not reach the end marker TIMEQ-VM-DONE\n" \
	              : "#   no end marker TIMEQ-VM-DONE: the guest stopped early (panic? init died?)\n")
	ncat = split("panic bug warning lockdep kasan kcsan odebug", cats, " ")
	split("no panic/Oops|no BUG report|no WARNING|no lockdep report|no KASAN report|no KCSAN report|no ODEBUG report", ctitle, "|")
	for (k = 1; k <= ncat; k++) {
		c = cats[k]
		if (c == "kcsan") { kcsan_check(); continue }
		if (c in nhit) tap(0, ctitle[k], sprintf("#   %d matching line(s), first ones:\n", nhit[c]) diag[c])
		else tap(1, ctitle[k], "")
	}
	if ("kmemleak" in nhit)
		tap(0, "kmemleak clean", sprintf("#   %d matching line(s), first ones:\n", nhit["kmemleak"]) diag["kmemleak"])
	else if (kmstate == "ran") tap(1, "kmemleak clean", "")
	else if (kmstate == "unavailable") { ntap++; nskip++; print "ok " ntap " - kmemleak clean # SKIP kernel without kmemleak" }
	else tap(0, "kmemleak clean", "#   the kmemleak scan did not run (guest did not get that far)\n")

	for (a = 1; a <= nact; a++) {
		rc = act_rc[a]
		if (act_name[a] ~ /^test / && rc == 4) {
			ntap++; nskip++; print "ok " ntap " - " act_name[a] " # SKIP exit status 4 (KSFT_SKIP)"
			continue
		}
		tap(rc == 0, act_name[a], rc == 0 ? "" : "#   exit status " rc "\n")
	}

	for (c = 1; c <= nprog; c++) {
		if (prog_name[c] ~ /# *SKIP/) { ntap++; nskip++; print "ok " ntap " - " prog_name[c]; continue }
		tap(prog_ok[c], prog_name[c], prog_ok[c] ? "" : "#   " raw[prog_line[c]] "\n")
	}

	tp = 0; tf = 0; ts = 0
	for (c = 1; c <= ncase; c++) {
		if (case_skip[c]) {
			ntap++; nskip++; ts++
			print "ok " ntap " - kunit " case_name[c] " # " case_reason[c]
			continue
		}
		if (case_ok[c]) tp++; else tf++
		tap(case_ok[c], "kunit " case_name[c], case_ok[c] ? "" : case_diag[c] "#   " raw[case_line[c]] "\n")
	}
	# Suites that must have run: loading a module is not running its tests.
	nwant = split(suites, want, " ")
	for (s = 1; s <= nwant; s++)
		tap(want[s] in sidx, "kunit suite " want[s] " ran",
		    want[s] in sidx ? "" : "#   no KTAP from this suite in the log\n")
	for (s = 1; s <= nsuite; s++) {
		su = sname[s]
		if (!scomplete[su])
			tap(0, "kunit suite " su " completed", "#   the suite started but never printed its result line\n")
		else if (!sresult_ok[su] && sfail[su] + 0 == 0)
			tap(0, "kunit suite " su, "#   " raw[sresult_line[su]] "\n")
	}

	for (s = 1; s <= nsuite; s++) {
		su = sname[s]
		printf "# kunit suite %s: %d passed, %d failed, %d skipped%s\n", su, spass[su], sfail[su], sskip[su], \
		       scomplete[su] ? (sresult_ok[su] ? "" : " (suite not ok)") : " (incomplete)"
	}
	if (nsuite)
		printf "# kunit total: %d suites, %d cases: %d passed, %d failed, %d skipped\n", nsuite, tp + tf + ts, tp, tf, ts
	print "1.." ntap
	printf "# run.sh: %d checks: %d ok, %d not ok, %d skipped (log: %s)\n", ntap, npass, nfail, nskip, logname
	print (nfail ? "# run.sh: FAIL" : "# run.sh: PASS")
	exit(nfail ? 1 : 0)
}' "$1"
}

if [ -n "$scan" ]; then
	[ -r "$scan" ] || { echo "run.sh: $scan: no such log" >&2; exit 2; }
	scan_log "$scan" "$timed_out"
	exit
fi

QEMU=${QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null || { echo "run.sh: $QEMU missing: run $here/deps.sh" >&2; exit 2; }
if [ -z "$kernel" ]; then
	kdir=$("$here/build-kernel.sh" --print-dir) ||
		{ echo "run.sh: the debug kernel is not built: run $here/build-kernel.sh (or pass --kernel)" >&2; exit 2; }
	kernel=$kdir/arch/x86/boot/bzImage
fi
[ -r "$kernel" ] || { echo "run.sh: kernel $kernel not readable" >&2; exit 2; }

stamp=$(date +%Y%m%d-%H%M%S)-$$
[ -n "$log" ] || log=$CACHE/logs/run-$stamp.log
mkdir -p "$(dirname "$log")"
work=$(mktemp -d "${TMPDIR:-/tmp}/timeq-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -z "$initrd" ]; then
	initrd=$work/initramfs.cpio.gz
	"$here/initramfs.sh" -o "$initrd" -i "$init" "${ird_args[@]+"${ird_args[@]}"}"
fi

cmdline="console=ttyS0 panic=-1 oops=panic printk.time=1 printk.devkmsg=on loglevel=7${append}"
qemu_cmd=("$QEMU" -accel tcg -smp "$smp" -m "$mem" -nographic -no-reboot
	-nic none -kernel "$kernel" -initrd "$initrd" -append "$cmdline")
echo "run.sh: timeout $timeout ${qemu_cmd[*]}" >&2
echo "run.sh: console log: $log" >&2

# boot: run the guest once into $log; its exit status in $rc.
boot() {
	set +e
	if [ $verbose = 1 ]; then
		timeout -k 10 "$timeout" "${qemu_cmd[@]}" </dev/null 2>&1 |
			tee "$log" >&2
		rc=${PIPESTATUS[0]}
	else
		timeout -k 10 "$timeout" "${qemu_cmd[@]}" </dev/null >"$log" 2>&1
		rc=$?
	fi
	set -e
}

# A guest whose kernel died before it started the init ran none of our
# code (no module is loaded, no test run before the init's first line):
# a fault of that kernel's own boot under emulation, as Debian's 6.12-rt
# showed once on 2026-11-25 (an int3 Oops in sched_clock_cpu() on its
# second CPU, 2.6 s into the boot). It is booted again, up to twice; the
# log of each boot that failed so is kept beside the last and named here.
t0=$(date +%s.%N)
boots=1
boot
while [ $rc != 124 ] && [ $rc != 137 ] && [ $boots -lt 3 ] &&
      ! grep -q 'TIMEQ-VM-START ' "$log"; do
	mv "$log" "$log.boot$boots"
	echo "# boot $boots died before its init started (log: $log.boot$boots): booted again"
	boots=$((boots + 1))
	boot
done
t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
if [ $rc = 124 ] || [ $rc = 137 ]; then
	timed_out=1
	echo "run.sh: TIMEOUT after $timeout s: guest killed" >&2
elif [ $rc != 0 ]; then
	echo "run.sh: qemu exited with status $rc" >&2
fi
echo "run.sh: guest ran for $secs s" >&2
scan_log "$log" "$timed_out"

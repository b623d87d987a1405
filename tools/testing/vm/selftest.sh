#!/usr/bin/env bash
# tools/testing/vm/selftest.sh - prove that the qemu bench catches what it must.
#
# Usage: tools/testing/vm/selftest.sh [--only NAME[,NAME...]] [--stock] [--keep-logs]
#
# Builds the throwaway module selftest/vmcheck.c against the debug kernel
# (build-kernel.sh; built first if needed) and boots the debug guest three
# times (each boot about 20 s under TCG): clean, with every kind of failure
# planted at once, and hung; then builds it against the KCSAN kernel
# (build-kernel.sh --config kcsan; built first if needed) and boots that
# twice, clean and with a planted data race:
#
#   case        vmcheck parameter  run.sh must       and print the check
#   clean       (none)             PASS              (every check ok, KUnit 2/2)
#   warn        warn=1             FAIL              not ok - no WARNING
#   lockdep     lockdep=1          FAIL              not ok - no lockdep report
#   kasan       kasan=1            FAIL              not ok - no KASAN report
#   kmemleak    leak=1             FAIL              not ok - kmemleak clean
#   kunit       kunit_fail=1       FAIL              not ok - kunit vmcheck.vmcheck_planted
#   hang        hang=1             FAIL (timeout)    not ok - guest finished
#   interleaved the clean log, its PASS              the clean log's checks,
#               init's markers cut (run.sh --scan)   each with its verdict
#   kcsan-clean (none), KCSAN      PASS              ok - no KCSAN report
#                                                    (not skipped: KCSAN on)
#   kcsan       race=1, KCSAN      FAIL              not ok - no KCSAN report
#   kcsan-core  the kcsan log, its PASS              ok - no KCSAN report
#               module frames cut  (run.sh --scan)   (the race is listed as
#                                                    not counted)
#   kcsan-irq   the kcsan log, its PASS              ok - no KCSAN report
#               vmcheck frames     (run.sh --scan)   (listed, not counted)
#               under an interrupt
#               entry
#
# warn, lockdep, kasan, kmemleak and kunit share one boot: run.sh sorts each
# log line into one kind only, and each case also needs its plant's own
# report in the log (the WARN_ON's site, the two vmcheck locks, the
# out-of-bounds read's function, the leaked object's size: its 1234 bytes
# come from kmalloc-2k, and the planted KUnit case), so that a detector
# fired by another plant's report does not pass.
#
# interleaved proves that the init's markers (start, kmemleak, end) are
# found however the console mixes the two ways it writes them: each echoed
# copy with a kernel record landed inside it, each record's copy at the end
# of the line before it, as PREEMPT_RT prints records late.
#
# kcsan's log must hold the plant's report ("BUG: KCSAN: data-race in" the
# two vmcheck_race_* threads). kcsan-core and kcsan-irq prove the other
# half of the rule run.sh judges KCSAN reports by, on the same report
# rewritten: with the " [vmcheck]" of its frames cut, as if the threads
# were core kernel code, and with a tick's frames and its interrupt entry
# put above each vmcheck frame, as if a timer interrupt that landed in
# vmcheck had raced, the report is listed but does not fail the run.
#
# --stock also smoke-tests vmcheck (no KUnit there) on each installed stock
# Debian kernel through run-stock.sh (2 more boots); it must pass or be
# skipped.  --only runs a subset, e.g. --only clean,kasan.
#
# Prints one TAP line per case and ends with "# selftest: N passed, N failed";
# exit status 0 only if every case behaved as expected.  Logs of the runs go
# to $TIMEQ_CACHE/logs/selftest-<case>.log (and .tap).
#
# Environment: TIMEQ_CACHE; TIMEQ_SELFTEST_HANG_TIMEOUT (default 60 s: the
# guest timeout of the hang case; it must exceed the boot-to-insmod time).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${TIMEQ_CACHE:-$HOME/.cache/timeq}
only='' stock=0
while [ $# -gt 0 ]; do
	case $1 in
	--only) only=",$2,"; shift 2 ;;
	--stock) stock=1; shift ;;
	--keep-logs) shift ;;	# logs are always kept
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
	*) echo "selftest.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

wanted() { case $only in ""|*",$1,"*) return 0 ;; esac; return 1; }

# build_vmcheck KDIR DIR: build vmcheck.ko against KDIR in DIR.
build_vmcheck() {
	rm -rf "$2"
	mkdir -p "$2"
	cp "$here/selftest/Kbuild" "$here/selftest/vmcheck.c" "$2/"
	echo "selftest.sh: building vmcheck.ko against $1" >&2
	make -C "$1" M="$2" modules </dev/null >"$2/build.log" 2>&1 ||
		{ cat "$2/build.log" >&2; echo "selftest.sh: vmcheck build failed" >&2; exit 1; }
}

mkdir -p "$CACHE/logs"
# Each kernel is built (if need be) only when a case of it is to run.
for c in clean warn lockdep kasan kmemleak kunit hang interleaved; do
	wanted $c || continue
	kdir=$("$here/build-kernel.sh" | tail -n1)
	build_vmcheck "$kdir" "$CACHE/selftest-build"
	break
done
ko=$CACHE/selftest-build/vmcheck.ko
kcsan=0
if wanted kcsan-clean || wanted kcsan || wanted kcsan-core || wanted kcsan-irq; then
	kcsan=1
	kcsan_kdir=$("$here/build-kernel.sh" --config kcsan | tail -n1)
	build_vmcheck "$kcsan_kdir" "$CACHE/selftest-build-kcsan"
	kcsan_ko=$CACHE/selftest-build-kcsan/vmcheck.ko
fi

n=0 passed=0 failed=0
report() {	# report OK NAME [DIAG]
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		passed=$((passed + 1)); echo "ok $n - $2"
	else
		failed=$((failed + 1)); echo "not ok $n - $2"
		[ -z "${3:-}" ] || echo "$3" | sed 's/^/#   /'
	fi
}

# check NAME EXPECT CHECK-REGEX -- run.sh args...
#   EXPECT pass: run.sh must exit 0; fail: it must exit 1 AND print a
#   "not ok N - <CHECK-REGEX>" line (the right detector fired).
check() {
	local name=$1 expect=$2 want=$3; shift 4
	case $only in ""|*",$name,"*) ;; *) return 0 ;; esac
	local log=$CACHE/logs/selftest-$name.log tap=$CACHE/logs/selftest-$name.tap rc=0 t0 t1
	t0=$(date +%s)
	"$here/run.sh" --log "$log" "$@" > "$tap" 2>"$tap.err" || rc=$?
	t1=$(date +%s)
	echo "# $name: run.sh exit $rc in $((t1 - t0)) s; $(grep -c '^not ok' "$tap" || true) failed checks" >&2
	if [ "$expect" = pass ]; then
		if [ $rc = 0 ] && grep -Eq "$want" "$tap"; then
			report 1 "$name: run.sh passes ($((t1 - t0)) s)"
		else
			report 0 "$name: run.sh passes" "$(grep '^not ok' "$tap"; tail -n 3 "$tap.err"; echo "log: $log")"
		fi
	else
		if [ $rc = 1 ] && grep -Eq "^not ok [0-9]+ - $want" "$tap"; then
			report 1 "$name: run.sh fails with: $(grep -Em1 "^not ok [0-9]+ - $want" "$tap" | sed 's/^not ok [0-9]* - //') ($((t1 - t0)) s)"
		else
			report 0 "$name: run.sh fails with 'not ok - $want'" "$(echo "exit status $rc"; grep '^not ok' "$tap"; tail -n 3 "$tap.err"; echo "log: $log")"
		fi
	fi
}

# interleaved: the clean boot's log with the init's markers cut, scanned.
interleaved() {
	wanted interleaved || return 0
	local log=$CACHE/logs/selftest-clean.log cut=$CACHE/logs/selftest-interleaved.log
	local what="interleaved: the clean log with its markers cut gives the same checks" rc=0
	local marker='TIMEQ-VM-(START|DONE|KMEMLEAK)'

	[ -s "$log" ] || { report 0 "$what" "no clean log $log: run the clean case first"; return 0; }
	awk -v m="$marker" '
		NR == 1 { k = "^\\[ *[0-9]+\\.[0-9]+\\] " m; m = "^" m }
		{ sub(/\r$/, "") }
		$0 ~ k && NR > 1 { prev = prev $0; next }
		NR > 1 { print prev }
		$0 ~ m { print substr($0, 1, 12) "[   99.000000] a record landed here"; $0 = substr($0, 13) }
		{ prev = $0 }
		END { print prev }' "$log" > "$cut"
	"$here/run.sh" --scan "$log" | grep -E '^(not )?ok ' > "$cut.want" || true
	"$here/run.sh" --scan "$cut" > "$cut.tap" 2>&1 || rc=$?
	if [ $rc = 0 ] && [ "$(grep -c '^ok ' "$cut.want")" -ge 10 ] &&
	   [ "$(grep -cE "^$marker" "$cut")" = 0 ] &&
	   grep -E '^(not )?ok ' "$cut.tap" | cmp -s - "$cut.want"; then
		report 1 "$what ($(wc -l < "$cut.want") checks)"
	else
		report 0 "$what" "$(echo "run.sh --scan exit $rc"; grep -E '^(not )?ok ' "$cut.tap" | diff "$cut.want" - | head; echo "log: $cut")"
	fi
}

# planted: one boot with every plant but the hang, judged case by case:
# CASE DETECTOR-CHECK PLANT-SIGNATURE (a regex over the console log).
planted() {
	local log=$CACHE/logs/selftest-planted.log tap=$CACHE/logs/selftest-planted.tap
	local rc=0 t0 t1 name check sig cases=()

	while [ $# -gt 0 ]; do
		case $only in ""|*",$1,"*) cases+=("$1" "$2" "$3") ;; esac
		shift 3
	done
	[ ${#cases[@]} -gt 0 ] || return 0
	t0=$(date +%s)
	"$here/run.sh" --log "$log" -k "$ko warn=1 lockdep=1 kasan=1 leak=1 kunit_fail=1" \
		> "$tap" 2>"$tap.err" || rc=$?
	t1=$(date +%s)
	echo "# planted: run.sh exit $rc in $((t1 - t0)) s; $(grep -c '^not ok' "$tap" || true) failed checks" >&2
	set -- "${cases[@]}"
	while [ $# -gt 0 ]; do
		name=$1 check=$2 sig=$3
		shift 3
		if [ $rc = 1 ] && grep -Eq "^not ok [0-9]+ - $check\$" "$tap" &&
		   grep -Eq "$sig" "$log"; then
			report 1 "$name: run.sh fails with: $check, and the log has the plant's report (shared boot, $((t1 - t0)) s)"
		else
			report 0 "$name: run.sh fails with 'not ok - $check' and the log matches '$sig'" \
				"$(echo "exit status $rc"; grep '^not ok' "$tap"; tail -n 3 "$tap.err"; echo "log: $log")"
		fi
	done
}

# kcsan_cases: the KCSAN kernel, clean, then with the planted race; and
# the planted race's log with its module frames cut, scanned again.
kcsan_cases() {
	local kimage=$kcsan_kdir/arch/x86/boot/bzImage
	local log=$CACHE/logs/selftest-kcsan.log tap=$CACHE/logs/selftest-kcsan.tap
	local sig='BUG: KCSAN: data-race in vmcheck_race_(reader|writer) \[vmcheck\] / vmcheck_race_(reader|writer) \[vmcheck\]'
	local rc=0 t0 t1 what

	check kcsan-clean pass '^ok [0-9]+ - no KCSAN report$' -- --kernel "$kimage" -k "$kcsan_ko"
	wanted kcsan || wanted kcsan-core || wanted kcsan-irq || return 0
	t0=$(date +%s)
	"$here/run.sh" --log "$log" --kernel "$kimage" -k "$kcsan_ko race=1" \
		> "$tap" 2>"$tap.err" || rc=$?
	t1=$(date +%s)
	echo "# kcsan: run.sh exit $rc in $((t1 - t0)) s; $(grep -c '^not ok' "$tap" || true) failed checks" >&2
	if wanted kcsan; then
		what="kcsan: run.sh fails with: no KCSAN report, and the log has the planted race's report"
		if [ $rc = 1 ] && grep -Eq '^not ok [0-9]+ - no KCSAN report$' "$tap" &&
		   grep -Eq "$sig" "$log"; then
			report 1 "$what ($((t1 - t0)) s)"
		else
			report 0 "$what" "$(echo "exit status $rc"; grep '^not ok' "$tap"; tail -n 3 "$tap.err"; echo "log: $log")"
		fi
	fi
	if wanted kcsan-core; then
		what="kcsan-core: the planted race's report with its module frames cut is listed, not counted"
		sed -E 's/ \[vmcheck\]( \/|\r|$)/\1/g' "$log" > "$log.core"
		rc=0
		"$here/run.sh" --scan "$log.core" > "$log.core.tap" 2>&1 || rc=$?
		if [ $rc = 0 ] && grep -Eq '^ok [0-9]+ - no KCSAN report$' "$log.core.tap" &&
		   grep -Eq '^#   not counted \(no module frame in either call chain\): BUG: KCSAN: data-race in vmcheck_race_' "$log.core.tap"; then
			report 1 "$what"
		else
			report 0 "$what" "$(echo "run.sh --scan exit $rc"; grep -E '^not ok|^#   not counted' "$log.core.tap"; echo "log: $log.core")"
		fi
	fi
	if wanted kcsan-irq; then
		what="kcsan-irq: the planted race's report with its vmcheck frames under an interrupt entry is listed, not counted"
		# Each access now happens in a tick that interrupted vmcheck.
		sed -E 's/^(\[ *[0-9]+\.[0-9]+\] ) (vmcheck_race_(reader|writer)\+)/\1 tick_nohz_handler+0x17b\/0x1b0\n\1 asm_sysvec_apic_timer_interrupt+0x16\/0x20\n\1 \2/' \
			"$log" > "$log.irq"
		rc=0
		"$here/run.sh" --scan "$log.irq" > "$log.irq.tap" 2>&1 || rc=$?
		if [ $rc = 0 ] && grep -Eq '^ok [0-9]+ - no KCSAN report$' "$log.irq.tap" &&
		   grep -Eq '^#   not counted \(no module frame in either call chain\): BUG: KCSAN: data-race in vmcheck_race_' "$log.irq.tap" &&
		   [ "$(grep -c ' asm_sysvec_apic_timer_interrupt+0x16/0x20$' "$log.irq")" -ge 2 ]; then
			report 1 "$what"
		else
			report 0 "$what" "$(echo "run.sh --scan exit $rc"; grep -E '^not ok|^#   not counted' "$log.irq.tap"; echo "log: $log.irq")"
		fi
	fi
}

echo "TAP version 13"
check clean    pass '^ok [0-9]+ - kunit vmcheck.vmcheck_planted$' -- -k "$ko"
interleaved
planted \
	warn     'no WARNING'                    'WARNING: .* vmcheck_init' \
	lockdep  'no lockdep report'             '\(vmcheck_lock_[ab]\)' \
	kasan    'no KASAN report'               'KASAN: slab-out-of-bounds in vmcheck_oob' \
	kmemleak 'kmemleak clean'                'unreferenced object 0x[0-9a-f]+ \(size 2048\)' \
	kunit    'kunit vmcheck.vmcheck_planted' 'not ok [0-9]+ vmcheck_planted'
check hang     fail 'guest finished'                          -- -k "$ko hang=1" \
	--timeout "${TIMEQ_SELFTEST_HANG_TIMEOUT:-60}"

[ $kcsan = 0 ] || kcsan_cases

if [ $stock = 1 ]; then
	for series in 6.12 6.1; do
		case $only in ""|*",stock-$series,"*) ;; *) continue ;; esac
		log=$CACHE/logs/selftest-stock-$series.log rc=0
		"$here/run-stock.sh" "$series" -m "$here/selftest" --log "$log" \
			> "$log.tap" 2>"$log.err" || rc=$?
		if grep -q '# SKIP' "$log.tap" && [ $rc = 0 ] && [ "$(grep -c '^ok' "$log.tap")" = 1 ]; then
			n=$((n + 1)); passed=$((passed + 1))
			echo "ok $n - stock $series # SKIP $(grep -o 'SKIP .*' "$log.tap" | head -n1)"
		elif [ $rc = 0 ]; then
			report 1 "stock $series: vmcheck loads, unloads, no splat"
		else
			report 0 "stock $series: vmcheck loads, unloads, no splat" "$(grep '^not ok' "$log.tap"; tail -n 3 "$log.err"; echo "log: $log")"
		fi
	done
fi

echo "1..$n"
echo "# selftest: $passed passed, $failed failed"
[ $failed = 0 ]

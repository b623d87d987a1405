#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/testing/vm/soak-guest.sh SECONDS - in the debug kernel guest of
# make soak (busybox sh; soak.sh boots it): /dev/timeq's hardening
# programs, mixed, round after round until SECONDS have passed. Prints TAP.
#
# A round loads timeq.ko (/lib/modules/timeq/) and runs at once, each in
# the background: the ABI fuzzer (60 s), expiry under load (10^5
# elements), allocation failure under a threaded workload, and isolation
# (the fuzzer's model phase and isolation's files each use a uid of their
# own, so they run in turn, not together). Then it unloads timeq and runs
# the teardown test, which loads and unloads it again and again, with
# allocations failing (a fresh sample each round).
#
# After each round one line of figures: the round, the time, the fuzzer's
# calls and the errno it saw by command, the elements delivered and lost,
# the allocations failed, and the memory held (slab, unreclaimable slab,
# tq_dev_element objects). Every program's own TAP lines are printed as well,
# so that run.sh fails the run on any "not ok"; and run.sh fails it on any
# splat in the console. Exits non-zero if any program failed.
secs=${1:-1800}
ko=/lib/modules/timeq
now() { cut -d. -f1 /proc/uptime; }
start=$(now)
end=$((start + secs))
round=0
failed=0
calls=0
delivered=0
lost=0
allocs=0

# run NAME PROG [ARG...]: PROG with its output kept in /tmp/NAME.out.
run() {
	name=$1
	shift
	"$@" >"/tmp/$name.out" 2>&1
	echo $? >"/tmp/$name.rc"
}

# report NAME: its TAP results, and whether it failed.
report() {
	grep -E '^(ok|not ok) ' "/tmp/$1.out" | sed "s/^/# $1: /"
	grep -E '^not ok ' "/tmp/$1.out" | sed "s/^not ok [0-9]* /not ok $1: /"
	if [ "$(cat "/tmp/$1.rc")" != 0 ]; then
		failed=$((failed + 1))
		echo "not ok soak round $round: $1 exited with $(cat "/tmp/$1.rc")"
		tail -n 30 "/tmp/$1.out" | sed "s/^/# /"
	fi
}

memory() {
	slab=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
	sunr=$(awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo)
	elems=$(awk '$1 == "tq_dev_element" { print $2 }' /proc/slabinfo 2>/dev/null)
	echo "slab ${slab} kB (unreclaimable ${sunr} kB), tq_dev_element slab objects ${elems:-0} (active, as slabinfo counts them)"
}

echo "# soak: ${secs} s; $(memory)"
while [ "$(now)" -lt "$end" ]; do
	round=$((round + 1))
	if ! insmod "$ko/timeq.ko"; then
		echo "not ok soak round $round: insmod timeq.ko"
		failed=$((failed + 1))
		break
	fi
	run fuzz timeq_fuzz --seconds 60 &
	run expiry timeq_expiry --quiet &
	run enomem timeq_enomem &
	wait
	run isolation timeq_isolation
	echo "# round $round, $(( $(now) - start )) s, with timeq loaded: $(memory)"
	rmmod timeq || { echo "not ok soak round $round: rmmod timeq"; failed=$((failed + 1)); }
	run teardown timeq_teardown
	for p in fuzz expiry enomem isolation teardown; do
		report $p
	done
	c=$(sed -n 's/^# \([0-9]*\) calls in .*/\1/p' /tmp/fuzz.out | awk '{ s += $1 } END { print s + 0 }')
	calls=$((calls + c))
	d=$(sed -n 's/.* \([0-9]*\) delivered, \([0-9]*\) lost.*/\1 \2/p' /tmp/expiry.out)
	[ -n "$d" ] || d="0 0"
	delivered=$((delivered + ${d% *}))
	lost=$((lost + ${d#* }))
	a=$(sed -n 's/.*: \([0-9]*\) slab and \([0-9]*\) page allocations failed.*/\1 \2/p' /tmp/enomem.out |
	    awk '{ s += $1 + $2 } END { print s + 0 }')
	allocs=$((allocs + a))
	echo "# errno by command, round $round:"
	grep -E '^# [A-Z_]+ +[0-9]+: |^# (unknown ioctl|read|poll|close\+open) +[0-9]+' /tmp/fuzz.out
	echo "# round $round, $(( $(now) - start )) s: $calls fuzzer calls, $delivered elements delivered, $lost lost, $allocs allocations failed and survived; timeq unloaded: $(memory)"
done
if [ "$failed" = 0 ] && [ "$lost" = 0 ] && [ "$round" -gt 0 ]; then
	echo "ok 1 soak: $round rounds in $(( $(now) - start )) s, $calls fuzzer calls, $delivered elements delivered, 0 lost, $allocs allocations failed and survived"
	exit 0
fi
echo "not ok 1 soak: $round rounds, $failed failures, $lost elements lost"
exit 1

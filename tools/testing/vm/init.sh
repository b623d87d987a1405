#!/bin/sh
# tools/testing/vm/init.sh - default /init of the timeq test guest (busybox sh).
#
# Installed as /init by initramfs.sh; reads /etc/timeq-vm.conf (written by
# initramfs.sh) and then:
#   1. mounts /proc, /sys, /dev (devtmpfs), /sys/kernel/debug, /tmp;
#   2. insmods each module of TIMEQ_MODULES in order, with its parameters.
#      A module holding KUnit suites runs them while it loads; KUnit prints
#      KTAP to the kernel log, hence to the serial console;
#   3. runs each program of TIMEQ_TESTS from /tests (cwd /tmp), each under
#      TIMEQ_TEST_TIMEOUT seconds if set;
#   4. rmmods the modules in reverse order (unless TIMEQ_RMMOD=0), so that
#      their exit paths run under KASAN/debugobjects/kmemleak too;
#   5. prints KCSAN's counters (a kernel with KCSAN), runs kmemleak (see
#      the comment there) and prints its report;
#   6. prints the end marker TIMEQ-VM-DONE and powers off with reboot -f
#      (qemu runs with -no-reboot, so the reboot ends qemu).
# Every step prints a "TIMEQ-VM-..." line that run.sh reads.  If the init
# dies, the kernel panics ("Attempted to kill init"), panic=-1 reboots and
# qemu exits; run.sh sees no end marker and fails the run.
export PATH=/sbin:/bin:/usr/sbin:/usr/bin:/tests
umask 022

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm

# mark LINE: a marker for run.sh that reports a step's result. Through
# /dev/kmsg it is one printk record, so the kernel's own messages (a
# module's pr_info as it loads, say) cannot land in the middle of it, as
# they can in a line echoed to the same serial port. The kernel command
# line has printk.devkmsg=on, so these are not rate-limited.
mark() {
	echo "$*" >/dev/kmsg 2>/dev/null || echo "$*"
}

# announce LINE: a marker of the init's own progress (its start, the
# kmemleak scan, its end), written twice: through mark(), where nothing can
# cut it but PREEMPT_RT prints it late, from its printing thread, and echoed,
# which prints at once but can have a late record land inside it, as the
# step results of 6.12-rt land in the line after them. run.sh takes either
# copy, from anywhere in a line.
announce() {
	mark "$*"
	echo "$*"
}

TIMEQ_MODULES='' TIMEQ_TESTS='' TIMEQ_RMMOD=1 TIMEQ_KMEMLEAK=1 TIMEQ_TEST_TIMEOUT=0 TIMEQ_HANG=0
[ -r /etc/timeq-vm.conf ] && . /etc/timeq-vm.conf

announce "TIMEQ-VM-START release=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) uptime=$(cut -d' ' -f1 /proc/uptime)"

loaded=
while read -r ko args; do
	[ -n "$ko" ] || continue
	name=$(echo "${ko%.ko}" | tr - _)
	echo "TIMEQ-VM: insmod $ko $args"
	insmod "/lib/modules/timeq/$ko" $args
	rc=$?
	mark "TIMEQ-VM-INSMOD $name rc=$rc"
	[ $rc = 0 ] && loaded="$name $loaded"
done <<EOF
$TIMEQ_MODULES
EOF

while read -r prog args; do
	[ -n "$prog" ] || continue
	echo "TIMEQ-VM: run $prog $args"
	if [ "$TIMEQ_TEST_TIMEOUT" != 0 ]; then
		(cd /tmp && timeout -s KILL "$TIMEQ_TEST_TIMEOUT" "/tests/$prog" $args) </dev/null
	else
		(cd /tmp && "/tests/$prog" $args) </dev/null
	fi
	mark "TIMEQ-VM-TEST $prog rc=$?"
done <<EOF
$TIMEQ_TESTS
EOF

# For the bench's own selftest: an init that never reaches its end.
if [ "$TIMEQ_HANG" = 1 ]; then
	echo "TIMEQ-VM: hanging on purpose (TIMEQ_HANG=1)"
	while :; do sleep 3600; done
fi

if [ "$TIMEQ_RMMOD" = 1 ]; then
	for name in $loaded; do	# $loaded is already in reverse load order
		rmmod "$name"
		mark "TIMEQ-VM-RMMOD $name rc=$?"
	done
fi

# KCSAN's counters (a kernel with KCSAN only): watchpoints set up and races
# seen, which run.sh shows beside its KCSAN check, so that a run in which
# KCSAN watched nothing does not look clean.
if [ -r /sys/kernel/debug/kcsan ]; then
	echo "TIMEQ-VM-KCSAN-BEGIN"
	cat /sys/kernel/debug/kcsan
	echo "TIMEQ-VM-KCSAN-END"
fi

# kmemleak.  The kernel is built with automatic scanning off, so scans happen
# here only.  A scan reports an object as a leak only when
#  - no pointer to it was found, and
#  - it is at least 5 s old when the scan starts (kmemleak never reports
#    younger objects), and
#  - its contents are unchanged since the previous scan: kmemleak keeps a
#    checksum per object and takes an object whose checksum changed as still
#    in use.  A freshly leaked object that was written after its allocation
#    (checksum 0 at allocation) therefore survives the first scan.
# Hence two scans: the first records the checksums, the second, started at
# least 5.5 s after the last test step, reports.  The report ("unreferenced
# object 0x..." with the allocation backtrace) is printed for run.sh.
uptime_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }	# centiseconds
if [ "$TIMEQ_KMEMLEAK" = 1 ] && [ -e /sys/kernel/debug/kmemleak ]; then
	t_end=$(uptime_cs)
	echo scan > /sys/kernel/debug/kmemleak
	wait_cs=$((t_end + 550 - $(uptime_cs)))
	[ $wait_cs -gt 0 ] && usleep $((wait_cs * 10000))
	echo scan > /sys/kernel/debug/kmemleak
	announce "TIMEQ-VM-KMEMLEAK-RAN"
	cat /sys/kernel/debug/kmemleak
else
	announce "TIMEQ-VM-KMEMLEAK-UNAVAILABLE"
fi

announce "TIMEQ-VM-DONE uptime=$(cut -d' ' -f1 /proc/uptime)"
usleep 300000	# let the serial line drain the marker before the reset
reboot -f
# reboot -f does not return; should it, do not let init exit quietly.
sleep 3600

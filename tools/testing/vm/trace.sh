#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/testing/vm/trace.sh - in a guest with timeq.ko loaded (busybox sh):
# enable timeq's tracepoints through tracefs, make every one of them fire,
# and check what they recorded. Prints TAP.
#
# The workload: timeq_smoke.ko (/lib/modules/timeq/, loaded here with a
# short differential run), whose load takes the fast path through each of
# its outcomes and runs a timer base; then /bin/timeqctl demo (a
# monotonic /dev/timeq file) and sim (a manual one); then the programs of
# the documentation, /bin/example-*, which must succeed.
#
# The checks: every event fired; every field is a number in range (a
# queue's number from 1, a node's 64-bit id, times no earlier than the
# clock where the event says so, lateness under a minute); the fast path
# deferred at least once because a lock was taken and refused with
# ERANGE; a node's id is the same in its insert and its expiry; and no
# event records a pointer (tracefs's format files list every field).
T=/sys/kernel/tracing
E=$T/events/timeq
n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n $*"
}

not_ok() {
	n=$((n + 1))
	failed=1
	echo "not ok $n $*"
}

# expect WHAT COMMAND...: one TAP line by the command's exit status.
expect() {
	what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

if [ ! -d "$E" ]; then
	not_ok "tracefs has no timeq events at $E"
	echo "1..$n"
	exit 1
fi
echo 16384 >"$T/buffer_size_kb"
echo >"$T/trace"
echo 1 >"$E/enable"
expect "timeq_smoke.ko loads (the fast path's outcomes, a timer base)" \
	insmod /lib/modules/timeq/timeq_smoke.ko steps=100
expect "timeqctl demo: every timer once, none early" \
	sh -c 'timeqctl demo --timers 5 --spread 100 >/dev/null'
expect "timeqctl sim" sh -c 'timeqctl sim --size 100 --ops 300 >/dev/null'
for prog in /bin/example-*; do
	expect "$(basename "$prog") succeeds" sh -c "$prog >/dev/null"
done
echo 0 >"$E/enable"
rmmod timeq_smoke
cat "$T/trace" >/tmp/trace
grep -q 'LOST\|lost events' /tmp/trace && echo "# the ring buffer lost events"

for ev in timeq_insert timeq_update timeq_delete timeq_fast_applied \
	  timeq_fast_deferred timeq_fast_refused timeq_handoff_drained \
	  timeq_expire_entry timeq_expire_exit timeq_slow_entry \
	  timeq_slow_exit; do
	c=$(grep -c " $ev: " /tmp/trace)
	grep -m 1 " $ev: " /tmp/trace | sed 's/^/# /'
	expect "$ev fired ($c times)" [ "$c" -gt 0 ]
done

# Each event's line: its fields, name=value, checked by awk.
awk '
/ timeq_[a-z_]+: / {
	ev = $0; sub(/.* timeq_/, "timeq_", ev); sub(/:.*/, "", ev)
	split("", f)
	for (i = 1; i <= NF; i++)
		if (split($i, kv, "=") == 2)
			f[kv[1]] = kv[2]
	if (!("queue" in f) || f["queue"] !~ /^[1-9][0-9]*$/)
		bad("queue", $0)
	if (ev != "timeq_handoff_drained" && ev !~ /slow/ &&
	    f["node"] !~ /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]$/)
		bad("node", $0)
	if ((ev == "timeq_insert" || ev == "timeq_update") &&
	    f["time"] + 0 < f["now"] + 0)
		bad("time before now", $0)
	if (ev == "timeq_expire_entry" && f["time"] + 0 > f["now"] + 0)
		bad("expired before its time", $0)
	if (ev == "timeq_expire_entry" && f["lateness"] + 0 >= 60e9)
		bad("lateness a minute or more", $0)
	if (ev == "timeq_fast_deferred" && f["reason"] !~ /^(contended|joined|work|min_far|head|clock|due|lane)$/)
		bad("reason", $0)
	if (ev == "timeq_fast_deferred" && f["reason"] == "contended")
		contended++
	if (ev == "timeq_fast_refused" && f["error"] == "-34")
		erange++
	if (ev == "timeq_handoff_drained" && f["count"] + 0 < 1)
		bad("count", $0)
	if (ev == "timeq_insert")
		inserted[f["queue"] " " f["node"]] = 1
	if (ev == "timeq_expire_entry" && (f["queue"] " " f["node"]) in inserted)
		followed++
	if (ev == "timeq_expire_entry")
		entered[f["queue"] " " f["node"]] = 1
	if (ev == "timeq_expire_exit" && !((f["queue"] " " f["node"]) in entered))
		bad("an exit without its entry", $0)
	lines++
}
function bad(what, line) {
	if (!(what in badness))
		print "#   " what ": " line
	badness[what]++
	nbad++
}
function tap(good, what) {
	n++
	printf "%s %d %s\n", good ? "ok" : "not ok", n, what
}
END {
	n = '"$n"'
	tap(!nbad, "every field of " lines " events is in range")
	tap(contended, "the fast path deferred for a taken lock (" contended + 0 ")")
	tap(erange, "the fast path refused with ERANGE (" erange + 0 ")")
	tap(followed, "a node keeps its id from insert to expiry (" followed + 0 " followed)")
	exit (nbad || !contended || !erange || !followed)
}' /tmp/trace || failed=1
n=$((n + 4))

# No field is a pointer: the binary ring buffer holds no address.
if grep -h '^[[:space:]]*field:' "$E"/*/format | grep -v 'common_' | grep -q '\*'; then
	not_ok "an event records a pointer:"
	grep -h '^[[:space:]]*field:' "$E"/*/format | grep -v 'common_' | grep '\*' |
		sed 's/^/#   /'
else
	ok "no event records a pointer ($(ls -d "$E"/timeq_* | wc -l) events' formats)"
fi
echo "1..$n"
exit $failed

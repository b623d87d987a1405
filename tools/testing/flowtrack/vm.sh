#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh KERNEL MODDIR FLOWGEN [run.sh options]: the flowtrack test of
# `make check`. Boots KERNEL in qemu with MODDIR/timeq.ko loaded and
# MODDIR/timeq_flowtrack.ko in the image, and runs FLOWGEN (flowgen.c)
# once per scenario; each loads the sample with its parameters, sends its
# traffic over a veth pair between two network namespaces of the guest,
# checks the accounting (every flow created expired exactly once or is
# live, none early, drained, the cap) and unloads the sample:
#
#   timeq          150 flows, a quarter of them back for a second session,
#                  until every flow has expired and been freed
#   timeq, live    stop the traffic and unload with flows live
#   timeq, store=0 every refresh moves the flow's last time rather than
#                  store in its timer, as one whose store does not land:
#                  the callbacks arm the timers again, and the accounting
#                  holds
#   timeq, cap     max_flows=50 under 150 flows: drops counted, nothing
#                  else changes
#   timeq, spoof   max_flows=50 filled by a spoofer's 50 flows, each kept
#                  alive by a packet every 0.7 time-outs, while 40 new
#                  flows come: flows idle for half the time-out are
#                  evicted to take them (the most idle of a sample, as
#                  conntrack's early_drop()), fewer packets are dropped
#                  at the cap than the new flows send (without eviction,
#                  each and its echo), and the accounting holds
#   gc             conntrack's design: 40 flows expire while 100 more,
#                  held for 75 s (the collector's second pass begins 61
#                  s after the load at the latest), keep the table at its
#                  size (256 buckets, for max_flows=150), and the
#                  collector stops after every expiry (gc_expired_max=0)
#                  and resumes with the flow it stopped on: no flow idle
#                  when a pass began is left for the next; then until
#                  drained (--drain 90: the collector may sleep for 60 s).
#                  A run that stops on a flow it expired, with another
#                  expired ahead of it in its bucket, is not made here:
#                  the hash decides the buckets
#   gc, live       stop the traffic and unload with flows live
#   max_flows      2^30 refused at load with EINVAL (the flow counts are
#                  atomic_t, and twice the cap, live and waiting to be
#                  freed, must fit one)
#   reinjected     timeq, and 50 packets of new flows through PRE_ROUTING
#                  in process context, as after an NFQUEUE verdict (by
#                  timeq_flowtrack_aid.ko, kunit/flowtrack_aid.c)
#   load race      loads that fail after PRE_ROUTING went live, while the
#                  aid floods it, until one made flows; then an unload
#                  while it floods
#
# KERNEL is "debug", the debug kernel of tools/testing/vm/build-kernel.sh
# (lockdep, KASAN, kmemleak, debugobjects, ...: run.sh fails on any of
# their reports), or a stock series for run-stock.sh, such as 6.12-rt,
# whose veth module is loaded first. A stock kernel runs the timeq
# scenarios alone, but for the aid's: conntrack's design is there for
# comparison, and its drain, the longest scenario, proves nothing of
# timeq's that the debug kernel's run has not; the aid's scenarios are
# judged by the debug kernel's detectors. The time-out is 3 s throughout, six
# times a flow's mean gap between packets, and the traffic is light enough
# that an emulated debug kernel keeps up with it (if it does not, flowgen
# widens its checks by the gaps it measured). Every scenario is bounded
# by flowgen itself. TIMEQ_FLOWTRACK_ONLY=WORD runs only the scenarios
# whose line holds WORD (such as --spoof). Prints run.sh's TAP.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
vm=$(cd "$here/../vm" && pwd)
[ $# -ge 3 ] || { sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2; }
kernel=$1 moddir=$2 flowgen=$3
shift 3

ko=/lib/flowtrack/timeq_flowtrack.ko
aid=/lib/flowtrack/timeq_flowtrack_aid.ko
each="--module $ko --unload --interval 500"
scenarios=(
	"--params mode=timeq,timeout_ms=3000 --flows 150 --fill 5 --active 5:10 --again 25"
	"--params mode=timeq,timeout_ms=3000 --flows 100 --fill 2 --active 3:6 --again 25 --leave"
	"--params mode=timeq,timeout_ms=3000,store=0 --flows 100 --fill 2 --active 5:10 --again 25"
	"--params mode=timeq,timeout_ms=3000,max_flows=50 --flows 150 --fill 3 --active 3:6 --again 25 --cap"
	"--params mode=timeq,timeout_ms=3000,max_flows=50 --spoof 50 --flows 40 --fill 12 --active 2:4 --interval 250 --again 0"
	"--params mode=gc,timeout_ms=3000,gc_expired_max=0,max_flows=150 --hold 100:75 --flows 40 --fill 0.5 --active 3:6 --again 0 --drain 90"
	"--params mode=gc,timeout_ms=3000 --flows 100 --fill 2 --active 3:6 --again 25 --leave"
	"--params mode=timeq,max_flows=1073741824 --load-error EINVAL"
	"--params mode=timeq,timeout_ms=3000 --flows 100 --fill 2 --active 3:6 --again 25 --aid $aid --inject 50"
	"--params mode=timeq,timeout_ms=3000 --aid $aid --load-race"
)
args=(-k "$moddir/timeq.ko" -f "$moddir/timeq_flowtrack.ko:$ko")
[ "$kernel" != debug ] || args+=(-f "$moddir/timeq_flowtrack_aid.ko:$aid")
for s in "${scenarios[@]}"; do
	[ "$kernel" = debug ] || [[ $s != *mode=gc* && $s != *--aid* ]] || continue
	[[ $s == *"${TIMEQ_FLOWTRACK_ONLY:-}"* ]] || continue
	args+=(-b "$flowgen $each $s")
done

if [ "$kernel" = debug ]; then
	kdir=$("$vm/build-kernel.sh" --print-dir)
	exec "$vm/run.sh" --kernel "$kdir/arch/x86/boot/bzImage" "${args[@]}" "$@"
fi
release=$("$vm/run-stock.sh" "$kernel" --print-release)
# Not installed: run-stock.sh reports the series skipped.
[ -d "/lib/modules/$release" ] || exec "$vm/run-stock.sh" "$kernel"
veth=$(modinfo -k "$release" -n veth)
vethk=()
[ -f "$veth" ] && vethk=(-k "$veth")
exec "$vm/run-stock.sh" "$kernel" "${vethk[@]}" "${args[@]}" "$@"

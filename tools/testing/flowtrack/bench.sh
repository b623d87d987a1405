#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: `make bench-flowtrack`, timeq against conntrack's design on the
# same traffic. Builds timeq.ko and timeq_flowtrack.ko for Debian's stock
# 6.12 kernel and flowgen, boots that kernel in qemu and runs the same
# flowgen traffic (the same seed) twice, loading the sample with mode=timeq
# and then mode=gc, and prints for each
#
#   CPU per packet for a refresh, and in the hooks (medians: a mean takes
#   in whatever the host took from the guest meanwhile)
#   expiry lateness p50, p99, max (bucket ceilings, 1/8 of a power of two
#   above the exact value at most), over the expiries from MEASURE_FROM
#   seconds on: conntrack's collector sleeps 60 s after a pass over an
#   empty table, as at load, and the steady state comes after that
#   memory per flow: the slab object, and the hash table's share at the
#   peak; the queue's fixed arrays apart
#
# and the ratios. A benchmark: its figures are printed, never judged, and
# absolute times are emulation (TCG). Environment: FLOWS (3000), FILL (75 s
# over which flows start), MEASURE_FROM (65), TIMEOUT_MS (5000). About
# seven minutes. Logs in build/flowtrack-bench/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=$top/build/flowtrack-bench
vm=$top/tools/testing/vm
flows=${FLOWS:-3000} fill=${FILL:-75} from=${MEASURE_FROM:-65}
timeout_ms=${TIMEOUT_MS:-5000}

mkdir -p "$out"
{ "$top/tools/testing/deps.sh" && "$vm/deps.sh"; } >"$out/deps.log" 2>&1 ||
	{ echo "bench.sh: installing the dependencies failed (see $out/deps.log)" >&2; exit 1; }
release=$("$vm/run-stock.sh" 6.12 --print-release)
"$top/tools/testing/build-module.sh" "/usr/src/linux-headers-$release" \
	"$out/module" >"$out/build.log" 2>&1 &&
	make -C "$here" OUT="$out" >>"$out/build.log" 2>&1 ||
	{ echo "bench.sh: the build failed (see $out/build.log)" >&2; exit 1; }
veth=$(modinfo -k "$release" -n veth)
vethk=()
[ -f "$veth" ] && vethk=(-k "$veth")

ko=/lib/flowtrack/timeq_flowtrack.ko
traffic="--flows $flows --fill $fill --active 8:25 --again 25 --interval 500 --seed 7"
traffic="$traffic --drain 150 --measure-from $from --result --quiet --module $ko --unload"
echo "bench-flowtrack: $flows flows starting over $fill s, time-out $timeout_ms ms, in $release under qemu (TCG)"
"$vm/run-stock.sh" 6.12 "${vethk[@]}" -k "$out/module/timeq.ko" \
	-f "$out/module/timeq_flowtrack.ko:$ko" \
	-b "$out/flowgen $traffic --params mode=timeq,timeout_ms=$timeout_ms" \
	-b "$out/flowgen $traffic --params mode=gc,timeout_ms=$timeout_ms" \
	--timeout 1200 --log "$out/console.log" >"$out/run.log" 2>&1 ||
	echo "bench.sh: a run failed its checks (see $out/run.log)" >&2
grep -a '^flowgen-result ' "$out/console.log" | tr -d '\r' >"$out/results" || true
awk '
function ns(v) {
	if (v < 1000) return sprintf("%d ns", v)
	if (v < 1e6) return sprintf("%.1f us", v / 1e3)
	if (v < 1e9) return sprintf("%.1f ms", v / 1e6)
	return sprintf("%.2f s", v / 1e9)
}
function ratio(a, b) {
	if (a <= 0 || b <= 0) return "-"
	return a / b >= 0.1 ? sprintf("%.2f", a / b) : sprintf("1/%.0f", b / a)
}
{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); r[NR, kv[1]] = kv[2] }
	mode[NR] = r[NR, "mode"]
}
END {
	if (NR != 2 || mode[1] != "timeq" || mode[2] != "gc") {
		print "bench-flowtrack: the two runs did not both report (see build/flowtrack-bench/)"
		exit 1
	}
	for (m = 1; m <= 2; m++)
		mem[m] = r[m, "flow_bytes"] + (r[m, "peak_live"] > 0 ? r[m, "peak_table_bytes"] / r[m, "peak_live"] : 0)
	printf "%-36s %12s %12s %10s\n", "", "timeq", "gc", "timeq/gc"
	printf "%-36s %12s %12s %10s\n", "refresh, CPU per packet (median)", ns(r[1, "refresh_p50_ns"]), ns(r[2, "refresh_p50_ns"]), ratio(r[1, "refresh_p50_ns"], r[2, "refresh_p50_ns"])
	printf "%-36s %12s %12s %10s\n", "refresh, CPU per packet (mean)", ns(r[1, "refresh_ns"]), ns(r[2, "refresh_ns"]), ratio(r[1, "refresh_ns"], r[2, "refresh_ns"])
	printf "%-36s %12s %12s %10s\n", "hooks, CPU per packet (median)", ns(r[1, "hook_p50_ns"]), ns(r[2, "hook_p50_ns"]), ratio(r[1, "hook_p50_ns"], r[2, "hook_p50_ns"])
	printf "%-36s %12s %12s %10s\n", "expiry lateness p50", ns(r[1, "late_p50_ns"]), ns(r[2, "late_p50_ns"]), ratio(r[1, "late_p50_ns"], r[2, "late_p50_ns"])
	printf "%-36s %12s %12s %10s\n", "expiry lateness p99", ns(r[1, "late_p99_ns"]), ns(r[2, "late_p99_ns"]), ratio(r[1, "late_p99_ns"], r[2, "late_p99_ns"])
	printf "%-36s %12s %12s %10s\n", "expiry lateness max", ns(r[1, "late_max_ns"]), ns(r[2, "late_max_ns"]), ratio(r[1, "late_max_ns"], r[2, "late_max_ns"])
	printf "%-36s %12s %12s %10s\n", "memory per flow, bytes", sprintf("%.0f", mem[1]), sprintf("%.0f", mem[2]), ratio(mem[1], mem[2])
	printf "%-36s %12s %12s\n", "  of which the flow object", r[1, "flow_bytes"], r[2, "flow_bytes"]
	printf "%-36s %12s %12s\n", "queue, fixed, bytes", r[1, "queue_bytes"], r[2, "queue_bytes"]
	printf "%-36s %12s %12s\n", "expiries measured", r[1, "expiries"], r[2, "expiries"]
	printf "%-36s %12s %12s\n", "packets", r[1, "packets"], r[2, "packets"]
	printf "%-36s %11s%% %12s\n", "refreshes with no slow path", r[1, "stored_pct"], "-"
	printf "%-36s %12s %12s\n", "timers filed again, per expiry", r[1, "refiled_per_expiry"], "-"
}' "$out/results"

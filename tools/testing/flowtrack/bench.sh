#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: `make bench-flowtrack`, timeq against conntrack's design on the
# same traffic. Builds timeq.ko and timeq_flowtrack.ko for Debian's stock
# 6.12 kernel and flowgen, boots that kernel in qemu and runs the same
# flowgen traffic (the same seed) ROUNDS times in each mode, alternating,
# loading the sample with mode=timeq and then mode=gc each round, and
# prints for each mode
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
# and the ratios. Each load of the sample puts its code, slabs and per-CPU
# area at new addresses, and qemu's software TLB is direct-mapped, so a
# figure moves by about a third from one load to the next: with ROUNDS
# above 1, each figure is the median over the rounds of its mode, and each
# ratio the median of the rounds' own ratios. A benchmark: its figures are
# printed, never judged, and absolute times are emulation (TCG).
#
# Then, natively: the sample's packet path in a User-Mode Linux kernel
# (tools/testing/kunit/uml.sh --flowbench), where the kernel's code runs
# as the host's own instructions. timeq_flowbench, built in with the
# sample, sends one packet of each of UML_FLOWS flows, then rounds of a
# packet of every flow, each in a later tick than its flow's last, and
# times the rounds in the hooks (tools/bench/kernel/flowbench.c). The
# sample runs with a cap above the flows and a time-out of a minute, so
# that no packet is refused and no flow expires meanwhile, which is
# checked; its collector's pass and timeq's expiries are not in the
# figures. For each number of flows, ROUNDS boots of each mode,
# alternating; it prints the nanoseconds a packet spends in the hooks,
# the median over a boot's rounds of a round's mean and the mean over
# them, each the median over the boots, and the median of the boots' own
# timeq/gc.
#
# Environment: FLOWS (3000), FILL (75 s over which flows start),
# MEASURE_FROM (65), TIMEOUT_MS (5000), ROUNDS (1); UML_FLOWS (3000
# 100000), BENCH_VM=0 skips the qemu part, BENCH_UML=0 the native one.
# About seven minutes a round under qemu, a minute natively, after the
# User-Mode Linux kernel's first build (some minutes). Logs in
# build/flowtrack-bench/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=$top/build/flowtrack-bench
vm=$top/tools/testing/vm
flows=${FLOWS:-3000} fill=${FILL:-75} from=${MEASURE_FROM:-65}
timeout_ms=${TIMEOUT_MS:-5000} rounds=${ROUNDS:-1}
uml_flows=${UML_FLOWS:-3000 100000}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench.sh: ROUNDS is a count from 1" >&2; exit 2; }
[ -n "${uml_flows// /}" ] || { echo "bench.sh: UML_FLOWS names no count" >&2; exit 2; }
for n in $uml_flows; do
	[[ $n =~ ^[1-9][0-9]*$ ]] && [ "$n" -le 1048576 ] ||
		{ echo "bench.sh: UML_FLOWS are counts from 1 to 2^20" >&2; exit 2; }
done

# For both parts' awk programs: median(A, N), the median of A[1..N]
# (sorted in place); with N even, the mean of the middle two.
awk_median='
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'

# The native part's time-out: no flow expires while a boot's rounds run
# (the driver prints how long they took, checked below against it).
uml_timeout_ms=60000

# The native part, after the qemu one (or alone with BENCH_VM=0).
native_part() {
	local n m k ok said line res=$out/uml-results

	[ "${BENCH_UML:-1}" = 0 ] && return 0
	: >"$res"
	: >"$out/uml.log"
	for n in $uml_flows; do
		for ((k = 0; k < rounds; k++)); do
			for m in timeq gc; do
				# The cap above the flows, so that none is refused.
				ok=1
				said=$("$top/tools/testing/kunit/uml.sh" --flowbench \
					timeq_flowtrack.mode=$m \
					timeq_flowtrack.timeout_ms=$uml_timeout_ms \
					timeq_flowtrack.max_flows=$((n + 1)) \
					timeq_flowbench.flows=$n timeq_flowbench.seed=7 \
					2>>"$out/uml.log") || ok=0
				# What the driver and the sample said, failing too.
				printf '%s\n' "$said" >>"$out/uml.log"
				[ $ok = 1 ] ||
					{ echo "bench.sh: the native run failed (see $out/uml.log)" >&2; return 1; }
				# The sample took the parameters given.
				grep -qx "mode $m, time-out $uml_timeout_ms ms, tick [0-9]* us, at most $((n + 1)) flows" <<<"$said" ||
					{ echo "bench.sh: the sample did not run as mode=$m with $((n + 1)) flows at most (see $out/uml.log)" >&2; return 1; }
				line=$(grep "^hooks $n " <<<"$said") ||
					{ echo "bench.sh: the native run printed no figures of $n flows (see $out/uml.log)" >&2; return 1; }
				echo "$m $line" >>"$res"
			done
		done
	done
	echo
	echo "bench-flowtrack natively: the sample's packet path in a User-Mode Linux kernel of the same 6.12 source (the host's instructions; one CPU), $rounds boot(s) of each mode per row"
	awk -v rounds="$rounds" -v timeout="$uml_timeout_ms" "$awk_median"'
	function ratio(a, b) {
		return b > 0 ? a / b : 0
	}
	# MODE hooks FLOWS ROUNDS MEDIAN MEAN MS, MEDIAN and MEAN in tenths
	# of ns
	{
		want = NR % 2 ? "timeq" : "gc"
		if ($1 != want || NF != 7) {
			printf "bench-flowtrack: a native run out of turn: %s\n", $0
			bad = 1
		}
		if ($7 >= timeout) {
			printf "bench-flowtrack: a native run took %d ms, not under the time-out (%d ms): %s\n", $7, timeout, $0
			bad = 1
		}
		k = int((NR - 1) / 2)
		p50[k, want] = $5 / 10
		mean[k, want] = $6 / 10
		n[k] = $3
	}
	END {
		if (bad || NR % (2 * rounds))
			exit 1
		printf "hooks, CPU per packet: the median over a boot'\''s rounds of a round'\''s mean, and the mean\n"
		printf "%-10s %12s %12s %10s %12s %12s %10s\n", "flows", "timeq p50", "gc p50", "timeq/gc", "timeq mean", "gc mean", "timeq/gc"
		for (i = 0; i < NR / 2; i += rounds) {
			for (j = 0; j < rounds; j++) {
				a[j + 1] = p50[i + j, "timeq"]; b[j + 1] = p50[i + j, "gc"]
				c[j + 1] = ratio(p50[i + j, "timeq"], p50[i + j, "gc"])
				d[j + 1] = mean[i + j, "timeq"]; e[j + 1] = mean[i + j, "gc"]
				f[j + 1] = ratio(mean[i + j, "timeq"], mean[i + j, "gc"])
			}
			printf "%-10d %9.1f ns %9.1f ns %10.2f %9.1f ns %9.1f ns %10.2f\n", n[i], median(a, rounds), median(b, rounds), median(c, rounds), median(d, rounds), median(e, rounds), median(f, rounds)
			# A boot moves the figures as a load does under qemu.
			if (rounds > 1) {
				printf "%-10s timeq/gc of the medians, by boot:", ""
				for (j = 0; j < rounds; j++)
					printf " %.2f", ratio(p50[i + j, "timeq"], p50[i + j, "gc"])
				printf "\n"
			}
		}
	}' "$res" || { echo "bench.sh: the native runs are in $res and $out/uml.log" >&2; return 1; }
}

mkdir -p "$out"

# The qemu part.
qemu_part() {
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
	runs=()
	for ((i = 0; i < rounds; i++)); do
		for m in timeq gc; do
			runs+=(-b "$out/flowgen $traffic --params mode=$m,timeout_ms=$timeout_ms")
		done
	done
	echo "bench-flowtrack: $flows flows starting over $fill s, time-out $timeout_ms ms, $rounds round(s) of each mode, in $release under qemu (TCG)"
	"$vm/run-stock.sh" 6.12 "${vethk[@]}" -k "$out/module/timeq.ko" \
		-f "$out/module/timeq_flowtrack.ko:$ko" "${runs[@]}" \
		--timeout $((1200 * rounds)) --log "$out/console.log" >"$out/run.log" 2>&1 ||
		echo "bench.sh: a run failed its checks (see $out/run.log)" >&2
	grep -a '^flowgen-result ' "$out/console.log" | tr -d '\r' >"$out/results" || true
	awk -v rounds="$rounds" "$awk_median"'
	function ns(v) {
		if (v < 1000) return sprintf("%d ns", v)
		if (v < 1e6) return sprintf("%.1f us", v / 1e3)
		if (v < 1e9) return sprintf("%.1f ms", v / 1e6)
		return sprintf("%.2f s", v / 1e9)
	}
	function ratio_of(a, b) {
		return a > 0 && b > 0 ? a / b : -1
	}
	function ratio_fmt(x) {
		if (x <= 0) return "-"
		return x >= 0.1 ? sprintf("%.2f", x) : sprintf("1/%.0f", 1 / x)
	}
	# med(M, KEY): the median of KEY over the rounds of mode M (1 timeq, 2 gc).
	function med(m, key,    k, a) {
		for (k = 1; k <= rounds; k++)
			a[k] = r[2 * (k - 1) + m, key]
		return median(a, rounds)
	}
	# rmed(KEY): the median over the rounds of timeq/gc, each round its own;
	# rounds without a ratio left out, and -1 if none has one.
	function rmed(key,    k, n, x, a) {
		n = 0
		for (k = 1; k <= rounds; k++) {
			x = ratio_of(r[2 * k - 1, key], r[2 * k, key])
			if (x > 0)
				a[++n] = x
		}
		return n ? median(a, n) : -1
	}
	function memory(n) {
		return r[n, "flow_bytes"] + (r[n, "peak_live"] > 0 ? r[n, "peak_table_bytes"] / r[n, "peak_live"] : 0)
	}
	# by_round(LABEL, KEY): timeq/gc of KEY in each round, on one line.
	function by_round(label, key,    k) {
		printf "%-36s", label
		for (k = 1; k <= rounds; k++)
			printf " %s", ratio_fmt(ratio_of(r[2 * k - 1, key], r[2 * k, key]))
		printf "\n"
	}
	function row(label, key) {
		printf "%-36s %12s %12s %10s\n", label, ns(med(1, key)), ns(med(2, key)), ratio_fmt(rmed(key))
	}
	{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); r[NR, kv[1]] = kv[2] }
		mode[NR] = r[NR, "mode"]
	}
	END {
		bad = NR != 2 * rounds
		for (n = 1; n <= NR; n++)
			bad = bad || mode[n] != (n % 2 ? "timeq" : "gc")
		if (bad) {
			printf "bench-flowtrack: %d of the %d runs reported, or out of turn (see build/flowtrack-bench/)\n", NR, 2 * rounds
			exit 1
		}
		for (n = 1; n <= NR; n++)
			r[n, "memory"] = memory(n)
		if (rounds > 1) {
			by_round("refresh median, timeq/gc by round", "refresh_p50_ns")
			by_round("hooks median, timeq/gc by round", "hook_p50_ns")
			printf "(below: medians over the %d rounds; the ratios, of the rounds'\'' own)\n", rounds
		}
		printf "%-36s %12s %12s %10s\n", "", "timeq", "gc", "timeq/gc"
		row("refresh, CPU per packet (median)", "refresh_p50_ns")
		row("refresh, CPU per packet (mean)", "refresh_ns")
		row("hooks, CPU per packet (median)", "hook_p50_ns")
		row("expiry lateness p50", "late_p50_ns")
		row("expiry lateness p99", "late_p99_ns")
		row("expiry lateness max", "late_max_ns")
		printf "%-36s %12s %12s %10s\n", "memory per flow, bytes", sprintf("%.0f", med(1, "memory")), sprintf("%.0f", med(2, "memory")), ratio_fmt(rmed("memory"))
		printf "%-36s %12.0f %12.0f\n", "  of which the flow object", med(1, "flow_bytes"), med(2, "flow_bytes")
		printf "%-36s %12.0f %12.0f\n", "queue, fixed, bytes", med(1, "queue_bytes"), med(2, "queue_bytes")
		printf "%-36s %12.0f %12.0f\n", "expiries measured", med(1, "expiries"), med(2, "expiries")
		printf "%-36s %12.0f %12.0f\n", "packets", med(1, "packets"), med(2, "packets")
		printf "%-36s %11.1f%% %12s\n", "refreshes with no slow path", med(1, "stored_pct"), "-"
		printf "%-36s %12.2f %12s\n", "timers filed again, per expiry", med(1, "refiled_per_expiry"), "-"
	}' "$out/results"
}

[ "${BENCH_VM:-1}" = 0 ] || qemu_part
native_part

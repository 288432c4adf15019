#!/bin/sh
# slowdown.sh: the soft-watchpoint runtime's cost, as ratios measured side
# by side in one run: the same race-free workload built without
# instrumentation (bench-plain), instrumented at default knobs, and
# instrumented with sampling off (csan.skip_watch at its maximum, so only
# the fast path's watchpoint check runs: KCSAN's "2.8x" configuration).
# Runs in the emulated host (real kvm-amd); PVM emulates guest kernel code
# and would measure its emulator instead.
# Usage: slowdown.sh TOP_SRCDIR TOP_BUILDDIR [ROUNDS]
set -eu
src=$1 build=$2 rounds=${3:-3}
. "$src/bench/lib.sh"
need_emuhost slowdown

runs=""
i=0
while [ "$i" -lt "$rounds" ]; do
	# Interleaved, so a slow moment of the host hits all three alike.
	runs="$runs csan-vmm -q -s bench-plain;"
	runs="$runs csan-vmm -q -s bench-instrumented;"
	runs="$runs csan-vmm -q -s bench-instrumented -a csan.skip_watch=4294967295 | sed s/bench-instrumented/bench-nosampling/;"
	i=$((i + 1))
done
out=$(in_emuhost 900 "$runs")
echo "$out" | grep '^csan-result:' | awk '
	{
		name = ""; us = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^scenario=/) name = substr($i, 10)
			if ($i ~ /^elapsed_us=/) us = substr($i, 12)
		}
		sum[name] += us; n[name]++
	}
	END {
		if (!n["bench-plain"] || !n["bench-instrumented"] || !n["bench-nosampling"]) {
			print "slowdown: missing results"; exit 1
		}
		p = sum["bench-plain"] / n["bench-plain"]
		d = sum["bench-instrumented"] / n["bench-instrumented"]
		s = sum["bench-nosampling"] / n["bench-nosampling"]
		printf "slowdown: %d rounds, mean workload time in the emulated host\n", n["bench-plain"]
		printf "slowdown:   uninstrumented          %9.0f us  1.00x\n", p
		printf "slowdown:   instrumented, default   %9.0f us  %.2fx\n", d, d / p
		printf "slowdown:   instrumented, no sampling %7.0f us  %.2fx\n", s, s / p
	}'

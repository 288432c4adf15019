#!/bin/sh
# hw-cost.sh: what hardware-watchpoint mode costs, measured side by side in
# one run of the emulated host (real kvm-amd: debug registers work there,
# not on PVM):
#  - one arm + disarm round trip (two hypercalls, each making every vCPU
#    load its debug registers) with 1, 2 and 4 vCPUs, as csan-vmm's own
#    "hardware watches" line reports it;
#  - the race-free bench workload's time in hw mode against soft mode.
# Times are the emulated host's (QEMU TCG): compare them with each other,
# not with a real machine.
# Usage: hw-cost.sh TOP_SRCDIR TOP_BUILDDIR [ROUNDS]
set -eu
src=$1 build=$2 rounds=${3:-3}
. "$src/bench/lib.sh"
need_emuhost hw-cost

runs=""
i=0
while [ "$i" -lt "$rounds" ]; do
	for n in 1 2 4; do
		runs="$runs csan-vmm -c $n --watch=hw -s bench-instrumented 2>&1 | sed 's/^/cpus=$n /';"
	done
	# Interleaved, so a slow moment of the host hits both modes alike.
	runs="$runs csan-vmm -q -s bench-instrumented | sed 's/^/mode=soft /';"
	runs="$runs csan-vmm -q --watch=hw -s bench-instrumented | sed 's/^/mode=hw /';"
	i=$((i + 1))
done
out=$(in_emuhost 900 "$runs")
echo "$out" | awk '
	/^cpus=[0-9]+ csan-vmm: hardware watches:/ {
		n = substr($1, 6)
		for (i = 1; i <= NF; i++) {
			if ($i == "arm") arm[n] += $(i + 1)
			if ($i == "disarm") disarm[n] += $(i + 1)
			if ($i == "armed,") armed[n] += $(i - 1)
			if ($i == "register") loads[n] += $(i - 1)
		}
		runs[n]++
	}
	/^mode=(soft|hw) csan-result:/ {
		m = substr($1, 6)
		for (i = 1; i <= NF; i++)
			if ($i ~ /^elapsed_us=/) us[m] += substr($i, 12)
		mruns[m]++
	}
	END {
		if (!runs[1] || !runs[2] || !runs[4] || !mruns["soft"] || !mruns["hw"]) {
			print "hw-cost: missing results"; exit 1
		}
		printf "hw-cost: %d rounds in the emulated host (QEMU TCG, kvm-amd)\n", runs[1]
		printf "hw-cost:   vCPUs  watches/run  mean arm  mean disarm  round trip  exits  register loads\n"
		# Exits per round trip: each hypercall is one on the watcher,
		# and each loads the registers of every other vCPU by kicking it
		# out of KVM_RUN once: 2 * vCPUs in all.
		for (n = 1; n <= 4; n *= 2)
			printf "hw-cost:   %5d  %11.0f  %6.0f us  %8.0f us  %7.0f us  %5d  %14.1f\n", n,
				armed[n] / runs[n], arm[n] / runs[n], disarm[n] / runs[n],
				(arm[n] + disarm[n]) / runs[n], 2 * n, loads[n] / runs[n]
		s = us["soft"] / mruns["soft"]; h = us["hw"] / mruns["hw"]
		printf "hw-cost:   bench workload, 2 vCPUs: soft %.0f us, hw %.0f us: hw/soft %.2fx\n", s, h, h / s
	}'

#!/bin/sh
# ttfr.sh: time to the first report of every racy zoo row, in soft and in
# hw mode, from `csan-vmm --compare --scenario=all --compare-json` runs in
# one boot of the emulated host (real kvm-amd: hw mode needs it), one per
# seed.  Two clocks per row and mode, both means over the seeds that
# found it:
#  - wall: the JSON's first_seen, host seconds from csan-vmm's start to
#    the row's first report (guest boot included);
#  - guest: the row's own first_report_ms, guest milliseconds from the
#    workers' start (boot excluded).
# Times are the emulated host's (QEMU TCG): every hw-mode arm and disarm
# is a round trip of milliseconds there (see hw-cost.sh), far more than on
# a real machine; compare the two modes with each other, not with a real
# host.  Race-free rows are left out (nothing to time).
# Usage: ttfr.sh TOP_SRCDIR TOP_BUILDDIR [SEEDS]
#   TTFR_RAW=FILE keeps the emulated host's output in FILE; if FILE
#   already exists, it is summarized again without running anything.
set -eu
src=$1 build=$2 seeds=${3:-1 2 3}
. "$src/bench/lib.sh"
raw=${TTFR_RAW:-}

runs=""
for s in $seeds; do
	runs="$runs csan-vmm --compare --scenario=all --seed=$s --timeout=300 --compare-json=/tmp/c.json 2>/dev/null | grep '^csan-result:' | sed 's/^/seed=$s /'; echo; cat /tmp/c.json | sed 's/^/json /';"
done
if [ -n "$raw" ] && [ -s "$raw" ]; then
	out=$(cat "$raw")
else
	need_emuhost ttfr
	out=$(in_emuhost 3000 "$runs")
	[ -z "$raw" ] || printf '%s\n' "$out" >"$raw"
fi
printf '%s\n' "$out" | awk '
	function field(s, k,   i) {
		i = index(s, "\"" k "\":")
		if (!i) return ""
		s = substr(s, i + length(k) + 3)
		sub(/[,}].*/, "", s)
		return s
	}
	# Guest clock: the result lines the guest printed.
	/^seed=[0-9]+ csan-result:/ {
		sc = ""; m = ""; ms = ""; want = ""; nrep = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^scenario=/) sc = substr($i, 10)
			if ($i ~ /^mode=/) m = substr($i, 6)
			if ($i ~ /^first_report_ms=/) ms = substr($i, 17)
			if ($i ~ /^expect=/) want = substr($i, 8)
			if ($i ~ /^reports=/) nrep = substr($i, 9) + 0
		}
		if (want == "none" || ms == "" || !nrep) next
		g[sc, m] += ms; gn[sc, m]++
		if (!(sc in seen)) { seen[sc] = 1; order[++nsc] = sc }
		next
	}
	# Host clock: the earliest first_seen among the row'"'"'s races, per mode.
	/^json \{"scenario":".*"signature":/ {
		line = substr($0, 6)
		sc = field(line, "scenario"); gsub(/"/, "", sc)
		seed = prev_seed
		for (mi = 1; mi <= 2; mi++) {
			m = mi == 1 ? "soft" : "hw"
			i = index(line, "\"" m "\":{")
			if (!i) continue
			t = field(substr(line, i + length(m) + 3), "first_seen")
			if (t == "") continue
			k = seed SUBSEP sc SUBSEP m
			if (!(k in best) || t + 0 < best[k]) best[k] = t + 0
		}
		next
	}
	/^json \{"type":"compare","seed":/ { prev_seed = field(substr($0, 6), "seed"); nseeds++; next }
	END {
		for (k in best) {
			split(k, p, SUBSEP)
			w[p[2], p[3]] += best[k]; wn[p[2], p[3]]++
		}
		if (!nsc || !nseeds) { print "ttfr: missing results"; exit 1 }
		printf "ttfr: %d seeds, emulated host (QEMU TCG, kvm-amd); mean over the seeds that found it\n", nseeds
		printf "ttfr:   %-22s %12s %12s %12s %12s\n", "scenario", "soft wall", "hw wall", "soft guest", "hw guest"
		for (j = 1; j <= nsc; j++) {
			sc = order[j]
			printf "ttfr:   %-22s", sc
			for (mi = 1; mi <= 2; mi++) {
				m = mi == 1 ? "soft" : "hw"
				if (wn[sc, m]) printf " %9.3f s%s", w[sc, m] / wn[sc, m], wn[sc, m] < nseeds ? "*" : " "
				else printf " %12s", "-"
			}
			for (mi = 1; mi <= 2; mi++) {
				m = mi == 1 ? "soft" : "hw"
				if (gn[sc, m]) printf " %8.0f ms%s", g[sc, m] / gn[sc, m], gn[sc, m] < nseeds ? "*" : " "
				else printf " %12s", "-"
			}
			printf "\n"
		}
		printf "ttfr:   (* found in fewer seeds than were run; - never)\n"
		# The same for bench/plot.sh: seconds, milliseconds, NaN for never.
		for (j = 1; j <= nsc; j++) {
			sc = order[j]
			printf "ttfr-data: %s", sc
			printf " %s", wn[sc, "soft"] ? w[sc, "soft"] / wn[sc, "soft"] : "NaN"
			printf " %s", wn[sc, "hw"] ? w[sc, "hw"] / wn[sc, "hw"] : "NaN"
			printf " %s", gn[sc, "soft"] ? g[sc, "soft"] / gn[sc, "soft"] : "NaN"
			printf " %s\n", gn[sc, "hw"] ? g[sc, "hw"] / gn[sc, "hw"] : "NaN"
		}
	}'

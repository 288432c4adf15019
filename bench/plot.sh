#!/bin/sh
# plot.sh: turn the figures `make bench` printed into one PNG (gnuplot,
# Debian's gnuplot-nox): the runtime's cost natively (bench-native), the
# checking cost ratios in the emulated host, time to the first report per
# zoo row and mode, the selftest boot time three ways, and symbolizer
# throughput.  Reads the bench scripts' own summary lines (bench-native's
# native slowdown, fast path:, ThreadSanitizer: and uninstrumented lines, sym-bench:,
# slowdown:, hw-cost:, ttfr:, boot-time:); a panel whose lines are
# missing says so instead of plotting.
# Usage: plot.sh RESULTS-FILE OUTPUT.png
set -eu
[ $# = 2 ] || { echo "usage: $0 RESULTS-FILE OUTPUT.png" >&2; exit 2; }
results=$1 png=$2
command -v gnuplot >/dev/null || { echo "plot: gnuplot not found (apt-get install gnuplot-nox)"; exit 77; }
d=$(mktemp -d "${TMPDIR:-/tmp}/plot.XXXXXX")
trap 'rm -rf "$d"' EXIT

# One data file per panel: "label value [value]" lines, labels quoted.
awk -v d="$d" '
	/^native slowdown workload=/ {
		w = $3; sub(/^workload=/, "", w); def = $4; sub(/^default=/, "", def)
		nos = $5; sub(/^nosample=/, "", nos); tsan = $6; sub(/^tsan=/, "", tsan)
		print "\"" w ",\\ndefault\"", def + 0 > (d "/native")
		print "\"" w ",\\nno sampling\"", nos + 0 > (d "/native")
		# n/a when the peer could not run here: no bar rather than a zero.
		if (tsan ~ /^[0-9.]+x$/) print "\"" w ",\\nThreadSanitizer\"", tsan + 0 > (d "/native") }
	/^fast path: .* instructions per access workload=/ {
		w = $NF; sub(/^workload=/, "", w); print "\"" w ",\\nfast path\"", $3 + 0 > (d "/instr") }
	/^ThreadSanitizer: .* instructions per access workload=/ {
		w = $NF; sub(/^workload=/, "", w); print "\"" w ",\\nlibtsan\"", $2 + 0 > (d "/instr") }
	/^[a-z-]+: uninstrumented, .* instructions per instrumented access/ {
		w = $1; sub(/:$/, "", w); print "\"" w ",\\nthe workload itself\"", $3 + 0 > (d "/instr") }
	/^slowdown:   instrumented, default/ { print "\"soft, default knobs\\n/ uninstrumented\"", $NF + 0 > (d "/cost") }
	/^slowdown:   instrumented, no sampling/ { print "\"soft, no sampling\\n/ uninstrumented\"", $NF + 0 > (d "/cost") }
	/^hw-cost:   bench workload/ { print "\"hw mode\\n/ soft mode\"", $NF + 0 > (d "/cost") }
	/^ttfr-data:/ { print $2, $5, $6 > (d "/ttfr") }
	/^boot-time:   csan-vmm, this machine/ { if ($(NF - 1) + 0) print "\"csan-vmm\\nthis machine (PVM)\"", $(NF - 1) + 0 > (d "/boot") }
	/^boot-time:   qemu-system-x86_64/ { if ($(NF - 1) + 0) print "\"QEMU TCG\\nthis machine\"", $(NF - 1) + 0 > (d "/boot") }
	/^boot-time:   csan-vmm in the emulated host/ { if ($(NF - 1) + 0) print "\"csan-vmm, emulated\\nhost (kvm-amd)\"", $(NF - 1) + 0 > (d "/boot") }
	/^sym-bench: warm Dwfl, no cache/ && !symdone { print "\"csan-vmm\\nwarm Dwfl\"", $(NF - 1) + 0 > (d "/sym") }
	/^sym-bench: eu-addr2line -f -i/ && !symdone { print "\"eu-addr2line\\n-f -i\"", $(NF - 1) + 0 > (d "/sym") }
	/^sym-bench: eu-addr2line per address/ && !symdone { print "\"eu-addr2line\\nper address\"", $(NF - 3) + 0 > (d "/sym") }
	/^sym-bench: ratio per address/ { symdone = 1 } # the guest ELF; a vmlinux run follows
' "$results"
for f in native instr cost ttfr boot sym; do [ -s "$d/$f" ] || echo "no data" >"$d/$f.missing"; done

bars() { # bars FILE TITLE YLABEL LABEL-FORMAT [log]
	if [ -f "$d/$1.missing" ]; then
		printf 'set title "%s (no figures in %s)"\nunset xtics\nplot [0:1][0:1] NaN notitle\nset xtics\n' "$2" "$(basename "$results")"
		return
	fi
	printf 'set title "%s"\nset ylabel "%s"\n' "$2" "$3"
	if [ "${5:-}" = log ]; then echo 'set logscale y'; else echo 'unset logscale y; set yrange [0:*]'; fi
	printf 'plot "%s" using 2:xtic(1) with boxes notitle, "" using 0:2:(sprintf("%s", $2)) with labels offset 0,0.7 notitle\n' "$d/$1" "$4"
	echo 'unset logscale y; set yrange [*:*]'
}
{
	echo 'set terminal pngcairo size 1400,1500 font "sans,10"'
	echo "set output \"$png\""
	echo 'set multiplot layout 3,2 title "csan-vmm benchmarks (make bench; docs/BENCHMARKS.md)"'
	echo 'set style fill solid 0.6 border -1; set boxwidth 0.6; set grid ytics'
	# Room for two-line tick labels below, and for the value labels above.
	echo 'set bmargin 5; set offsets 0, 0, graph 0.12, 0'
	bars native "The runtime natively, ThreadSanitizer beside it (make bench-native): slowdown against uninstrumented" "slowdown (x)" "%.2fx"
	bars instr "Instructions per instrumented access (callgrind, bench-native)" "instructions" "%.1f"
	bars cost "Checking cost in the emulated host (TCG-dominated)" "slowdown (x)" "%.2fx"
	if [ -f "$d/ttfr.missing" ]; then
		bars ttfr "Time to first report" "" ""
	else
		echo 'set title "Time to the first report per racy zoo row (guest ms, emulated host)"'
		echo 'set ylabel "ms (log)"; set logscale y; set style data histograms'
		echo 'set style histogram clustered gap 1; set boxwidth 0.9 relative; set xtics rotate by -40 font ",8"'
		echo 'set key top left; set rmargin 8'
		printf 'plot "%s" using 2:xtic(1) title "soft", "" using 3 title "hw"\n' "$d/ttfr"
		echo 'unset logscale y; set style data linespoints; set xtics norotate font ",10"; set boxwidth 0.6; unset rmargin'
	fi
	bars boot "Selftest boot to exit, 2 vCPUs" "seconds" "%.2f s"
	bars sym "Symbolization throughput (guest ELF)" "frames/s (log)" "%.0f" log
	echo 'unset multiplot'
} >"$d/plot.gp"
gnuplot "$d/plot.gp"
echo "plot: wrote $png"

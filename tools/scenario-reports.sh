#!/bin/sh
# scenario-reports.sh: capture what every zoo scenario prints in each watch
# mode, for docs/scenarios.md.  All runs share one boot of the emulated
# host (src/harness/emuhost: real kvm-amd, so hw mode works); soft mode
# is run there too, so both columns come from one machine.  Each run keeps
# its first report (stacks cut after the zoo runner's worker frame, the
# rest being the same runner and boot frames every time), its result line
# and the race summary.
#
# Usage: tools/scenario-reports.sh [--update FILE] [--raw FILE] TOP_BUILDDIR
#   without --update: print the blocks, each after its "<!-- report: KEY -->"
#   --update FILE: replace the text between each "<!-- report: KEY -->"
#     and the next "<!-- end report -->" in FILE (docs/scenarios.md)
#   --raw FILE: keep the untrimmed output too
# KEY is "SCENARIO MODE" or "SCENARIO MODE VARIANT" (a knob switched).
# Exit status: 0, 1 when a run's result line is not status=pass, 77 when
# the emulated host is unavailable.
set -eu
update="" raw=""
while [ $# -gt 1 ]; do
	case $1 in
	--update) update=$2; shift 2 ;;
	--raw) raw=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# = 1 ] || { echo "usage: $0 [--update FILE] [--raw FILE] TOP_BUILDDIR" >&2; exit 2; }
build=$1
src=$(cd "$(dirname "$0")/.." && pwd)
emuhost="$src/src/harness/emuhost.sh"
"$emuhost" --check >/dev/null || { echo "scenario-reports: emulated host unavailable" >&2; exit 77; }

# KEY|csan-vmm arguments: one line per run.  A fixed seed keeps the
# guest's own choices the same from refresh to refresh (timing still varies).
common="--seed=1 --timeout=120"
runs=$(
	"$build/csan-vmm" --scenario=list "$build/src/guest/csan-guest" |
		awk -v c="$common" '$2 == "zoo:" {
			print $1 " soft|--watch=soft " c " -s " $1; print $1 " hw|--watch=hw " c " -s " $1 }'
	# The knobs that turn a row's outcome.
	echo "irq-same-cpu soft watcher|--watch=soft $common -s irq-same-cpu -a csan.interrupt_watcher=1"
	echo "irq-same-cpu-uninstr soft watcher|--watch=soft $common -s irq-same-cpu-uninstr -a csan.interrupt_watcher=1"
	echo "value-unchanged soft knob|--watch=soft $common -s value-unchanged -a csan.report_value_change_only=0"
	echo "plain-write-atomic soft knob|--watch=soft $common -s plain-write-atomic -a csan.assume_plain_writes_atomic=0"
)
script=$(echo "$runs" | awk -F'|' '{
	printf "echo \"@@run %s\"; csan-vmm %s 2>&1; echo \"@@rc $?\";\n", $1, $2
}')
tmp=$(mktemp "${TMPDIR:-/tmp}/scenario-reports.XXXXXX")
trap 'rm -f "$tmp" "$tmp.blocks" "$tmp.new"' EXIT
"$emuhost" --timeout 1800 --file "$build/csan-vmm" \
	--file "$build/src/guest/csan-guest:/csan/src/guest/csan-guest" -- sh -c "$script" >"$tmp"
[ -z "$raw" ] || cp "$tmp" "$raw"

# Trim: per run, the first report (frames after zoo_worker become "..."),
# the result line, the race summary table, the exit status.
awk '
function flush() {
	if (key == "") return
	printf "<!-- report: %s -->\n```\n$ csan-vmm %s\n", key, args[key]
	printf "%s", rep
	printf "%s", tail
	printf "(exit status %s)\n```\n<!-- end report -->\n", rc
}
FNR == NR { split($0, f, "|"); args[f[1]] = f[2]; next }
/^@@run / { flush(); key = substr($0, 7); rep = ""; tail = ""; state = 0; nrep = 0; next }
/^@@rc / { rc = $2; next }
/^==================================================================$/ {
	if (state == 0 && nrep == 0) { state = 1; rep = rep $0 "\n"; next }
	if (state == 1) { state = 2; nrep++; rep = rep $0 "\n"; next }
}
state == 1 {
	if ($0 ~ /^ /) {
		if (cut) next
		if ($1 ~ /^zoo_worker\+/) { rep = rep $0 "\n ...\n"; cut = 1; next }
	} else
		cut = 0
	rep = rep $0 "\n"; next
}
/^csan-result:/ { tail = tail $0 "\n"; if ($0 !~ / status=pass /) bad = 1; next }
/^csan-vmm: race summary:/ || /^csan-vmm: +[0-9]+ +[0-9.]+s / || /^csan-vmm: +count / {
	tail = tail $0 "\n"; next
}
END { flush(); exit bad }
' - "$tmp" >"$tmp.blocks" <<EOF2 || status=1
$runs
EOF2
status=${status:-0}

if [ -z "$update" ]; then
	cat "$tmp.blocks"
	exit "$status"
fi
awk '
FNR == NR {
	if ($0 ~ /^<!-- report: /) key = $0
	block[key] = block[key] $0 "\n"
	next
}
/^<!-- report: / {
	if (!($0 in block)) { print "scenario-reports: no run for " $0 > "/dev/stderr"; missing = 1; print; next }
	printf "%s", block[$0]; skip = 1; next
}
skip && /^<!-- end report -->$/ { skip = 0; next }
!skip { print }
END { exit missing }
' "$tmp.blocks" "$update" >"$tmp.new"
cat "$tmp.new" >"$update"
exit "$status"

#!/bin/sh
# zoo-rate.sh: run one zoo row N times and print its detection rate and time to first report.
#
#   tools/zoo-rate.sh [--env direct|emuhost] [--runs N] [--builddir DIR]
#                     [--no-zoo-knobs] ROW [CSAN-VMM OPTION...]
#
# --env direct (the default) runs csan-vmm on this machine's /dev/kvm;
# emuhost runs all N inside one emulated host (src/harness/emuhost,
# booted once), as the VM tests do.  Run i gets --seed=i, so a series can
# be repeated.  On PVM (direct, /sys/module/kvm_pvm) the zoo tests' knobs
# (tests/lib.sh zoo_knobs) are added unless --no-zoo-knobs; extra options
# go to csan-vmm as they are (e.g. --append=csan.interrupt_watcher=1).
#
# Prints one line per run (its csan-result fields) and then the summary:
#   row=ROW env=ENV expect=OUTCOME runs=N matched=M/N detected=D/N
#   silent=S/N first_report_ms_median=X first_report_ms_max=Y knobs="..."
# detected counts runs with a report of the kind the row expects
# (expected_reports > 0), silent runs with no report at all; the times
# are over the detected runs.  Exit status 0 when every run matched its
# row's expectation, 1 otherwise, 2 on bad usage.
set -u

env=direct runs=20 builddir='' zoo_knobs=1
usage() {
	sed -n '3,7s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--env) env=${2:?}; shift 2 ;;
	--env=*) env=${1#--env=}; shift ;;
	--runs) runs=${2:?}; shift 2 ;;
	--runs=*) runs=${1#--runs=}; shift ;;
	--builddir) builddir=${2:?}; shift 2 ;;
	--builddir=*) builddir=${1#--builddir=}; shift ;;
	--no-zoo-knobs) zoo_knobs=0; shift ;;
	-h | --help) usage ;;
	-*) echo "zoo-rate: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
row=$1
shift
case $runs in '' | *[!0-9]* | 0) echo "zoo-rate: --runs wants a positive number" >&2; exit 2 ;; esac

srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=${builddir:-$srcdir/build}
vmm=$builddir/csan-vmm
guest=$builddir/src/guest/csan-guest
for f in "$vmm" "$guest"; do
	[ -x "$f" ] || { echo "zoo-rate: $f not found; build first or give --builddir" >&2; exit 2; }
done

knobs=
if [ "$zoo_knobs" = 1 ] && [ "$env" = direct ] && [ -d /sys/module/kvm_pvm ]; then
	knobs="--append=csan.skip_watch=100"
fi
# The options as one string for the summary, and for the emulated host's shell.
opts="$knobs $*"

results=$(mktemp "${TMPDIR:-/tmp}/zoo-rate.XXXXXX") || exit 2
trap 'rm -f "$results"' EXIT

# Each run leaves its csan-result line (none if it broke) and "zoo-rate: run I done".
case $env in
direct)
	i=1
	while [ "$i" -le "$runs" ]; do
		# shellcheck disable=SC2086 # opts is a word list
		timeout 300 "$vmm" $opts --seed="$i" --scenario="$row" --timeout=120 \
			2>/dev/null | grep '^csan-result:'
		echo "zoo-rate: run $i done"
		i=$((i + 1))
	done >"$results"
	;;
emuhost)
	"$srcdir/src/harness/emuhost.sh" --timeout $((runs * 200 + 120)) --file "$vmm" \
		--file "$guest:/csan/src/guest/csan-guest" -- sh -c '
		i=1
		while [ "$i" -le "$1" ]; do
			csan-vmm $2 --seed="$i" --scenario="$3" --timeout=120 2>/dev/null |
				grep "^csan-result:"
			echo "zoo-rate: run $i done"
			i=$((i + 1))
		done' zoo-rate "$runs" "$opts" "$row" >"$results"
	rc=$?
	[ "$rc" = 0 ] || { echo "zoo-rate: the emulated host failed (status $rc)" >&2; exit 1; }
	;;
*)
	echo "zoo-rate: --env is direct or emuhost, not '$env'" >&2
	exit 2
	;;
esac

grep '^csan-result:' "$results"
awk -v row="$row" -v env="$env" -v runs="$runs" -v knobs="$opts" '
	function field(name,   i, kv) {
		for (i = 1; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}
	/^csan-result:/ {
		expect = field("expect")
		if (field("matched") == "yes" && field("status") == "pass") matched++
		if (field("expected_reports") + 0 > 0) {
			detected++
			t[detected] = field("first_report_ms") + 0
		}
		if (field("reports") == "0") silent++
	}
	END {
		# Insertion sort: N is small.
		for (i = 2; i <= detected; i++)
			for (j = i; j > 1 && t[j - 1] > t[j]; j--) {
				x = t[j]; t[j] = t[j - 1]; t[j - 1] = x
			}
		if (detected == 0) med = max = "-"
		else {
			med = detected % 2 ? t[(detected + 1) / 2] \
				: int((t[detected / 2] + t[detected / 2 + 1]) / 2)
			max = t[detected]
		}
		gsub(/^ +| +$/, "", knobs)
		printf "row=%s env=%s expect=%s runs=%d matched=%d/%d detected=%d/%d silent=%d/%d " \
			"first_report_ms_median=%s first_report_ms_max=%s knobs=\"%s\"\n",
			row, env, expect == "" ? "?" : expect, runs, matched, runs, detected, runs,
			silent, runs, med, max, knobs
		exit matched == runs ? 0 : 1
	}' "$results"

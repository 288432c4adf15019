#!/bin/sh
# summary.sh: print the suite's closing line,
#   "N passed, N failed, N skipped, N re-run after an emulated-host fault",
# from the Automake .trs files of one or more build trees, after one "not
# run" line per reason a test gave for skipping (its log's first "SKIP:
# reason" line) and, per failed test, the log's own FAIL line and its last
# lines, so a CI log that keeps only its tail still says why; exit 1 on
# failures.
#
#   summary.sh [--since STAMP] [--step-failed TEXT]... DIR[=LIST]...
#
# DIR=LIST: LIST names, one per line, the tests `make check` was to run in
# DIR (make list-tests); only their results count, a test of LIST with no
# result is a failure, and so is a part of the suite (tests/PART/...) in
# which not one test ran, unless every one was skipped for want of
# /dev/kvm (the one thing a machine may lack) on a machine without it; a
# LIST that names no test fails too.  --since STAMP: a result
# not newer than the file STAMP is left from an earlier run, and fails.
# --step-failed TEXT: a step of the run that failed outside the tests
# (make check's own status, say), counted as a failure.
since="" steps=""
nl='
'
while [ $# -gt 0 ]; do
	case $1 in
	--since) since=$2; shift 2 ;;
	--step-failed) steps="$steps$2$nl"; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- .
pass=0 fail=0 skip=0 reruns=0
scratch=$(mktemp -d "${TMPDIR:-/tmp}/summary.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
reasons=$scratch/reasons failures=$scratch/failures parts=$scratch/parts
: >"$reasons"
: >"$failures"
: >"$parts"

# failed TEXT: one failure that no .trs holds.
failed() {
	fail=$((fail + 1))
	echo "failed: $1" >>"$failures"
}

# The result file of test T (automake strips a registered extension).
trs_of() {
	case $1 in
	*.sh | *.vm | *.fuzz) echo "${1%.*}.trs" ;;
	*) echo "$1.trs" ;;
	esac
}

# count DIR TRS PART: add one result to the totals and to PART's tally
# ("ran", "kvmskip" or "skip").
count() {
	trs=$2
	log=${trs%.trs}.log
	if [ -n "$since" ] && ! [ "$trs" -nt "$since" ]; then
		failed "$trs: left from an earlier run (older than this one's start)"
		return
	fi
	reruns=$((reruns + $(grep -c '^emulated-host fault, run again: ' "$log" 2>/dev/null || true)))
	case $(sed -n 's/^:test-result: //p' "$trs") in
	PASS | XFAIL)
		pass=$((pass + 1))
		echo "$1 $3 ran" >>"$parts"
		;;
	SKIP)
		skip=$((skip + 1))
		reason=$(sed -n 's/^SKIP: //p' "$log" 2>/dev/null | head -n 1)
		echo "${reason:-no reason given}" >>"$reasons"
		case $reason in
		# The machine's lack only where it lacks it.
		"/dev/kvm does not exist"*) [ -e /dev/kvm ] && part_skip=skip || part_skip=kvmskip
			echo "$1 $3 $part_skip" >>"$parts" ;;
		*) echo "$1 $3 skip" >>"$parts" ;;
		esac
		;;
	*)
		fail=$((fail + 1))
		echo "$1 $3 ran" >>"$parts"
		{
			echo "failed: $log: $(grep -m 1 -E '^(FAIL|ERROR):' "$log" 2>/dev/null)"
			tail -n 12 "$log" 2>/dev/null | sed 's/^/    /'
		} >>"$failures"
		;;
	esac
}

for arg in "$@"; do
	dir=${arg%%=*}
	case $arg in
	*=*)
		list=${arg#*=}
		[ -r "$list" ] || { failed "$list: no list of the tests to run in $dir"; continue; }
		# An empty list (make list-tests failed, say) would count nothing.
		grep -q '^tests/' "$list" || { failed "$list: names no test to run in $dir"; continue; }
		while read -r t; do
			case $t in tests/*) ;; *) continue ;; esac # make's own chatter
			part=$(echo "$t" | cut -d/ -f2)
			trs=$dir/$(trs_of "$t")
			if [ -e "$trs" ]; then
				count "$dir" "$trs" "$part"
			else
				failed "$dir/$t: no result (make check was to run it)"
			fi
		done <"$list"
		# A part none of whose tests ran: every test skipped, for a reason
		# other than a missing /dev/kvm.
		for part in $(cut -d' ' -f2 "$parts" 2>/dev/null | sort -u); do
			grep -q "^$dir $part ran$" "$parts" && continue
			grep -q "^$dir $part skip$" "$parts" || continue
			failed "$dir: tests/$part ran no test: all $(grep -c "^$dir $part " "$parts") skipped"
		done
		;;
	*)
		for trs in $(find "$dir" -name '*.trs' | sort); do
			count "$dir" "$trs" "$(echo "${trs#"$dir"/}" | cut -d/ -f2)"
		done
		;;
	esac
done
printf '%s' "$steps" | while IFS= read -r s; do echo "failed: $s"; done >>"$failures"
fail=$((fail + $(printf '%s' "$steps" | grep -c .)))
if [ $((pass + fail + skip)) = 0 ]; then
	echo "no test results found under $*" >&2
	echo "0 passed, 1 failed, 0 skipped, 0 re-run after an emulated-host fault"
	exit 1
fi
cat "$failures"
sort "$reasons" | uniq -c | sort -rn |
	awk '{ n = $1; sub(/^ *[0-9]+ /, ""); printf "not run: %d test%s: %s\n", n, n == 1 ? "" : "s", $0 }'
echo "$pass passed, $fail failed, $skip skipped, $reruns re-run after an emulated-host fault"
[ "$fail" = 0 ]

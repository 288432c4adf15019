#!/bin/sh
# summary.sh: print the suite's closing "N passed, N failed, N skipped"
# line from the Automake .trs files under one or more build trees (default:
# .), after one "not run" line per reason a test gave for skipping (its
# log's first "SKIP: reason" line) and, per failed test, the log's own
# FAIL line and its last lines, so a CI log that keeps only its tail
# still says why; exit 1 on failures.
[ $# -gt 0 ] || set -- .
pass=0 fail=0 skip=0
reasons=$(mktemp "${TMPDIR:-/tmp}/summary.XXXXXX") || exit 2
failures=$(mktemp "${TMPDIR:-/tmp}/summary.XXXXXX") || exit 2
trap 'rm -f "$reasons" "$failures"' EXIT
for trs in $(find "$@" -name '*.trs' | sort); do
	case $(sed -n 's/^:test-result: //p' "$trs") in
	PASS | XFAIL) pass=$((pass + 1)) ;;
	SKIP)
		skip=$((skip + 1))
		reason=$(sed -n 's/^SKIP: //p' "${trs%.trs}.log" 2>/dev/null | head -n 1)
		echo "${reason:-no reason given}" >>"$reasons"
		;;
	*)
		fail=$((fail + 1))
		log=${trs%.trs}.log
		{
			echo "failed: $log: $(grep -m 1 -E '^(FAIL|ERROR):' "$log" 2>/dev/null)"
			tail -n 12 "$log" 2>/dev/null | sed 's/^/    /'
		} >>"$failures"
		;;
	esac
done
if [ $((pass + fail + skip)) = 0 ]; then
	echo "no test results found under $*" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
cat "$failures"
sort "$reasons" | uniq -c | sort -rn |
	awk '{ n = $1; sub(/^ *[0-9]+ /, ""); printf "not run: %d test%s: %s\n", n, n == 1 ? "" : "s", $0 }'
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]

#!/bin/sh
# summary.sh: print the suite's closing "N passed, N failed, N skipped"
# line from the Automake .trs files under one or more build trees (default:
# .); exit 1 on failures.
[ $# -gt 0 ] || set -- .
pass=0 fail=0 skip=0
for trs in $(find "$@" -name '*.trs' | sort); do
	case $(sed -n 's/^:test-result: //p' "$trs") in
	PASS | XFAIL) pass=$((pass + 1)) ;;
	SKIP) skip=$((skip + 1)) ;;
	*) fail=$((fail + 1)) ;;
	esac
done
if [ $((pass + fail + skip)) = 0 ]; then
	echo "no test results found under $*" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]

# hostile-hypercalls.sh: a guest that passes garbage to every kind of
# hypercall check: a wild pointer, a huge length, a wrapped range, an
# unknown number, a misaligned and an out-of-RAM argument struct, a bad
# report record, a read from a hypercall port and a bad fault vector.
# Each run ends as a guest failure (status 3) naming the call and field.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_helper hostile-hypercalls
expect_case() {
	# The pattern goes through the environment, where no awk rewrites it.
	CSAN_CASE="case $1 rc=3" CSAN_PATTERN=$2 awk '
		$0 == ENVIRON["CSAN_CASE"] { want = 1; next }
		want && $0 ~ ENVIRON["CSAN_PATTERN"] { found = 1 }
		/^case / { want = 0 }
		END { exit !found }' "$out" || fail "case $1: no exit status 3 with /$2/"
}
expect_case 1 'bad hypercall 1 CSAN_HC_PUTS: data: \[0xffff800000000000, \+0x10\) is outside guest RAM'
expect_case 2 'bad hypercall 1 CSAN_HC_PUTS: data: \[0x[0-9a-f]+, \+0x4000000000000000\) is outside guest RAM'
expect_case 3 'bad hypercall 1 CSAN_HC_PUTS: data: \[0xfffffffffffff000, \+0x2000\) is outside guest RAM'
expect_case 4 'bad hypercall 200 \(unknown\): number: not a hypercall of guest ABI'
expect_case 5 'bad hypercall 1 CSAN_HC_PUTS: argument: struct at 0x[0-9a-f]+ is not 8-byte aligned'
expect_case 6 'bad hypercall 1 CSAN_HC_PUTS: argument: struct at 0xfffffff8 \(16 bytes\) is outside guest RAM'
expect_case 7 'bad hypercall 4 CSAN_HC_REPORT: record: side\[0\]\.size: 0 not in 1\.\.4096'
expect_case 8 'bad hypercall 1 CSAN_HC_PUTS: transport: port 0xc501 got a 4-byte IN'
expect_case 9 'bad hypercall 3 CSAN_HC_FAULT: vector: 77 is neither an exception'
[ "$(grep -c '^case [1-9] json bytes=' "$out")" = 9 ] || fail "a failed run left no --report-json file"

# counter-nolock.sh: two CPUs increment a counter with plain accesses and
# no lock.  Soft watchpoints must report it: status 1, a KCSAN-format
# report with both stacks symbolized to the racing function and line, the
# summary, and the same report as JSON with a stable signature.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=counter-nolock --timeout=120 --report-json=/dev/stdout
expect_rc 1
expect_out '^csan-result: scenario=counter-nolock status=pass expect=data-race mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_err_in_order '^==================================================================$' \
	'^BUG: KCSAN: data-race in counter_nolock_inc / counter_nolock_inc$' \
	'^(read|write) to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
	'^ counter_nolock_inc\+0x[0-9a-f]+/0x[0-9a-f]+ src/guest/scenarios/counter-nolock\.c:[0-9]+$' \
	'^ counter_nolock_step\+0x[0-9a-f]+/0x[0-9a-f]+ src/guest/scenarios/counter-nolock\.c:[0-9]+$' \
	'^ zoo_worker\+0x[0-9a-f]+/0x[0-9a-f]+ src/guest/kernel/zoo\.c:[0-9]+$' \
	'^(read|write) to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
	'^ counter_nolock_inc\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/counter-nolock\.c:[0-9]+$' \
	'^value changed: 0x[0-9a-f]+ -> 0x[0-9a-f]+$' \
	"watch mode: $watch_mode" \
	'race summary: [0-9]+ distinct race' \
	'data-race in counter_nolock_inc / counter_nolock_inc' \
	'^csan-vmm: counters: .*setup_watchpoints=[1-9][0-9]* .*reports=[1-9]'
expect_out '^\{"type":"report",.*"signature":"data-race:counter_nolock_inc/counter_nolock_inc"'
allow_counter_nolock
expect_reports 1
expect_report_counts
# Paths relative to the source root in print, the full one beside it in JSON.
expect_out '"file":"src/guest/scenarios/counter-nolock\.c","full_file":"/[^"]*/src/guest/scenarios/counter-nolock\.c"'
! grep -Eq '^ .* \.\./' "$err" || fail "a frame's path leaves the source root (../)"
expect_watch_mode
# The counters at exit: every counter the ABI names (include/csan/abi.h,
# CSAN_COUNTER_NAMES_INIT), in its order, each with a number.
counters=$(sed -n '/^#define CSAN_COUNTER_NAMES_INIT/,/^$/s/.*\] = "\([a-z_]*\)".*/\1=[0-9]+/p' \
	"$top_srcdir/include/csan/abi.h" | tr '\n' ' ')
[ -n "$counters" ] || fail "no counter names in include/csan/abi.h"
expect_err "^csan-vmm: counters: ${counters% }\$"
# Runtime frames never reach the report.
expect_no_runtime_frames

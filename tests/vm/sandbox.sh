# sandbox.sh: once the guest runs, every vCPU thread is under the seccomp
# allow-list (Seccomp: 2 in its /proc status) and the main thread is not;
# --sandbox=off leaves them all unfiltered; and under the sandbox a race
# is still reported with symbolized, unwound stacks (file:line), in soft
# mode and, in the hw wrapper, in hardware-watchpoint mode, which also
# decodes the trapping instruction with capstone.
. "$top_srcdir/tests/lib.sh"
require_vm_env

# Sanitizer builds start with the sandbox off (configure.ac, run/options.c).
default_mode=2
grep -q '^#define CSAN_SANITIZED_BUILD 1' "$top_builddir/config.h" && default_mode=0

# expect_threads MODE: the vCPU threads in $out have seccomp mode MODE and
# the main thread has none.
expect_threads() {
	expect_out '^thread csan-vmm seccomp=0$'
	expect_out "^thread csan-vcpu0 seccomp=$1\$"
	expect_out "^thread csan-vcpu1 seccomp=$1\$"
	! grep -E '^thread csan-vcpu[0-9]+ ' "$out" | grep -vq "seccomp=$1\$" ||
		fail "a vCPU thread is not in seccomp mode $1"
	# SIGTERM is the helper's way to stop the run: interrupted, not a trap.
	expect_out '^vmm rc=130$'
	! grep -q 'sandbox does not allow' "$err" || fail "the sandbox refused a call"
}

run_helper sandbox-threads --watch=$watch_mode
expect_threads $default_mode
run_helper sandbox-threads --watch=$watch_mode --sandbox=on
expect_threads 2
run_helper sandbox-threads --watch=$watch_mode --sandbox=off
expect_threads 0

run_vmm $(zoo_knobs) --sandbox=on --scenario=counter-nolock --timeout=120 \
	--report-json=/dev/stdout
expect_rc 1
! grep -q "sandbox does not allow" "$err" || fail "the sandbox refused a call"
allow_counter_nolock
expect_reports 1
expect_report_counts
expect_err_in_order '^BUG: KCSAN: data-race in counter_nolock_inc / counter_nolock_inc$' \
	'^ counter_nolock_inc\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/counter-nolock\.c:[0-9]+$' \
	'^ counter_nolock_step\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/counter-nolock\.c:[0-9]+$' \
	'^ counter_nolock_inc\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/counter-nolock\.c:[0-9]+$' \
	"watch mode: $watch_mode"
expect_out '^\{"type":"report",.*"signature":"data-race:counter_nolock_inc/counter_nolock_inc"'
expect_watch_mode

# hw mode: a debug register traps an uninstrumented write; the vCPU thread
# decodes the instruction (capstone) and unwinds the writer's stack itself.
if [ "$watch_mode" = hw ]; then
	run_vmm $(zoo_knobs) --sandbox=on --scenario=uninstr-origin --timeout=120
	expect_rc 1
	! grep -q "sandbox does not allow" "$err" || fail "the sandbox refused a call"
	report_shapes=""
	allow_uninstr_origin hw
	expect_reports 1
	expect_report_counts
	expect_err '^csan-vmm: hardware watches: [0-9]+ armed, [0-9]+ without a free debug register, [0-9]+ partly \([0-9]+ bytes not hardware-watched\), [1-9][0-9]* hits'
fi

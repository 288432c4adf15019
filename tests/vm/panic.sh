# panic.sh: a guest panic ends the run with status 3 and shows its message
# (scenarios/panic.c's own, which nothing else prints), where it came from
# and the panicking stack.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --scenario=panic --timeout=120
expect_rc 3
expect_err '^csan-vmm: vCPU 0: guest panic: panic scenario: deliberate panic, as asked$'
expect_err_in_order '^csan-vmm: vCPU 0: guest stack:$' \
	'^csan-vmm: +panic\+0x[0-9a-f]+/0x[0-9a-f]+ .*kernel/panic\.c:[0-9]+$' \
	'^csan-vmm: +panic_run\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/panic\.c:[0-9]+$'
expect_no_out 'status=pass'

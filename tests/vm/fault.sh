# fault.sh: a guest page fault ends the run with status 3, naming the
# vector, the faulting address and the registers, then the faulting
# stack unwound on the host and symbolized through libdw: function+offset,
# source line, callers in order.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --scenario=fault --timeout=120
expect_rc 3
expect_err '#PF'
expect_err 'vector 14'
expect_err 'CR2 0x100001000'
expect_err '[Rr][Ii][Pp]'
expect_no_out 'status=pass'
expect_err_in_order 'guest stack:' \
	'^csan-vmm: +fault_inner\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/fault\.c:[0-9]+$' \
	'^csan-vmm: +fault_middle\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/fault\.c:[0-9]+$' \
	'^csan-vmm: +fault_outer\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/fault\.c:[0-9]+$' \
	'^csan-vmm: +fault_run\+' \
	'^csan-vmm: +scenario_run\+.*kernel/scenario\.c:[0-9]+$' \
	'^csan-vmm: +kernel_main\+'

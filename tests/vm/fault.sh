# fault.sh: a guest page fault ends the run with status 3, naming the
# vector, the faulting address and the registers.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --scenario=fault --timeout=120
expect_rc 3
expect_err '#PF'
expect_err 'vector 14'
expect_err '[Rr][Ii][Pp]'
expect_no_out 'status=pass'

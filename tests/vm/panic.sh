# panic.sh: a guest panic ends the run with status 3 and shows its message.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --scenario=panic --timeout=120
expect_rc 3
expect_err 'panic'

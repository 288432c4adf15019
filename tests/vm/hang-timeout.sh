# hang-timeout.sh: a guest that never finishes is stopped by --timeout with
# status 3 and a message naming the timeout.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --scenario=hang --timeout=3
expect_rc 3
expect_err '^csan-vmm: guest still running after --timeout=3 s$'

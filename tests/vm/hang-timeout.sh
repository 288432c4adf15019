# hang-timeout.sh: a guest that never finishes is stopped by --timeout with
# status 4 (told apart from a crash's 3), a message naming the timeout,
# and the closing summary line saying so.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --scenario=hang --timeout=3
expect_rc 4
expect_err '^csan-vmm: guest still running after --timeout=3 s$'
expect_err '^csan-vmm: exit status 4 \(timeout\): 0 race reports; workload: no exit status reported; KUnit: none$'

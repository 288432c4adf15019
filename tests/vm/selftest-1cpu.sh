# selftest-1cpu.sh: the platform selftest on 1 vCPU(s): CPUs online,
# timer interrupts on each, a spinlock-protected counter exact.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --cpus=1 --timeout=120
expect_rc 0
expect_out '^csan-result: scenario=selftest status=pass .*cpus=1( |$)'

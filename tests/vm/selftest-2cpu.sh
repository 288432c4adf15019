# selftest-2cpu.sh: the platform selftest on 2 vCPU(s): CPUs online,
# timer interrupts on each, a spinlock-protected counter exact.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --cpus=2 --timeout=120
expect_rc 0
# The host's and the guest's view agree, and the counts the guest checked
# are on its result line: every CPU's increments, at least MIN_TICKS (5)
# timer ticks on the slowest CPU.
expect_err '^csan-vmm: booting .* on 2 vCPUs?, '
expect_out '^csan-guest: 2 CPUs? online '
expect_out '^csan-result: scenario=selftest status=pass cpus=2 ticks=([5-9]|[1-9][0-9]+) counter=2000$'
expect_err '^csan-vmm: guest finished, no races reported$'

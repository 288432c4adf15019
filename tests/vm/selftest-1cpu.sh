# selftest-1cpu.sh: the platform selftest on 1 vCPU(s): CPUs online,
# timer interrupts on each, a spinlock-protected counter exact.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --cpus=1 --timeout=120
expect_rc 0
# The host's and the guest's view agree, and the counts the guest checked
# are on its result line: every CPU's increments, at least MIN_TICKS (5)
# timer ticks on the slowest CPU.
expect_err '^csan-vmm: booting .* on 1 vCPUs?, '
expect_out '^csan-guest: 1 CPUs? online '
expect_out '^csan-result: scenario=selftest status=pass cpus=1 ticks=([5-9]|[1-9][0-9]+) counter=1000$'
expect_err '^csan-vmm: guest finished, no races reported$'

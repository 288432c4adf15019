# triple-fault.sh: CPU 1 triple-faults while CPU 0 keeps running.  The run
# ends as a guest failure (status 3) naming the vCPU, with its registers;
# no vCPU is left running and nothing loops.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --cpus=2 --scenario=triple-fault --timeout=120
expect_rc 3
expect_out '^triple-fault: CPU 1 goes down, CPU 0 keeps running$'
expect_err '^csan-vmm: vCPU 1: triple fault \(KVM_EXIT_SHUTDOWN\)'
expect_err '^csan-vmm: vCPU 1: code at RIP: '
# Not mistaken for a debug exit (it once was, and re-injected #DB forever).
! grep -q 'debug exit that is not a csan-vmm watch' "$err" || fail "triple fault handled as #DB"
! grep -q 'timeout=120' "$err" || fail "the run ended by the timeout, not the fault"

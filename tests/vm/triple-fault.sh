# triple-fault.sh: CPU 1 triple-faults while CPU 0 keeps running.  The run
# ends as a guest failure (status 3) naming the vCPU, with its registers
# and its unwound stack;
# no vCPU is left running and nothing loops.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --cpus=2 --scenario=triple-fault --timeout=120
expect_rc 3
expect_out '^triple-fault: CPU 1 goes down, CPU 0 keeps running$'
expect_err '^csan-vmm: vCPU 1: triple fault \(KVM_EXIT_SHUTDOWN\)'
expect_err '^csan-vmm: vCPU 1: code at RIP: '
# And where it was: the faulting vCPU's stack, unwound and symbolized.
# Except under kvm-amd (the emulated host), which resets a vCPU on a
# triple fault, so that its state is gone: then csan-vmm must say so.
if [ "$CSAN_TEST_ENV" = emuhost ]; then
	expect_err '^csan-vmm: vCPU 1: no guest stack: KVM reset the vCPU when it stopped '
else
	expect_err_in_order '^csan-vmm: vCPU 1: guest stack:$' \
		'^csan-vmm:   triple_fault_cpu\+0x[0-9a-f]+/0x[0-9a-f]+ src/guest/scenarios/hostile-cpu\.c:[0-9]+$'
fi
# Not mistaken for a debug exit (it once was, and re-injected #DB forever).
! grep -q 'debug exit that is not a csan-vmm watch' "$err" || fail "triple fault handled as #DB"
! grep -q 'timeout=120' "$err" || fail "the run ended by the timeout, not the fault"

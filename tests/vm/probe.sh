# probe.sh: csan-vmm --probe measures what this KVM does with guest debug
# registers.  In the emulated host (kvm-amd) data watchpoints fire and
# hardware-watchpoint mode is available (exit 0); directly on PVM they do
# not (exit 2, with the verdict and what to do).  Execution breakpoints and
# single-step work in both.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --probe
expect_out '^KVM API version: 12$'
expect_out '^vCPUs per VM: at most [1-9][0-9]* '
expect_out '^KVM_CAP_SET_GUEST_DEBUG: yes$'
# The breakpoint is a fault: the exit comes before the store at 0x1006.
expect_out '^execution breakpoints: fire \(breakpoint at 0x1006: debug exit at pc 0x1006, DR6 0x[0-9a-f]*[13579bdf]: execution breakpoint slot 0\)$'
# One instruction (mov eax, imm32 at 0x1000) and BS in DR6.
expect_out '^single-step: works \(debug exit at pc 0x1006, DR6 0x[0-9a-f]*[4-7cdef][0-9a-f]{3}: .*single step'
if on_pvm; then
	expect_rc 2
	expect_out '^KVM implementation: kvm_pvm '
	expect_out '^data watchpoints: do not fire \(wrote 4 bytes at 0x2000: no debug exit; this KVM \(kvm_pvm\) does not deliver data breakpoints to guests\)$'
	expect_out '^hardware-watchpoint mode: unavailable \(data watchpoints do not fire on this KVM \(kvm_pvm\); what to do: run on a host with VMX/SVM KVM, or in the emulated host \(--host=auto or --host=emulated\), or use --watch=soft\)$'
	expect_no_out 'mode: available'
else
	expect_rc 0
	# A trap: after the store, at the next instruction (hlt at 0x100a), DR6.B0.
	expect_out '^data watchpoints: fire \(wrote 4 bytes at 0x2000: debug exit at pc 0x100a, DR6 0x[0-9a-f]*[13579bdf]: data watchpoint slot 0, '
	expect_out '^hardware-watchpoint mode: available$'
	expect_no_out 'unavailable'
fi

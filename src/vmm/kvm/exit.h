/* exit.h: the exit dispatcher: where each KVM exit of a vCPU goes. */
#ifndef CSAN_VMM_EXIT_H
#define CSAN_VMM_EXIT_H

struct vcpu;

/*
 * vcpu_handle_exit - act on the exit in @vcpu->run, on @vcpu's thread,
 * after KVM_RUN returned.  First the VM_HOOK_BEFORE_EXIT hooks run (the
 * console ring hands over what the guest wrote before it exited); then:
 *
 *   KVM_EXIT_IO        the port's owner on the port bus (pio.h); a port
 *                      nobody owns reads all ones and ignores writes
 *   KVM_EXIT_MMIO      nothing is mapped there: reads zero, writes ignored
 *   KVM_EXIT_INTR,HLT  back to the guest (a kick; KVM's own wake-ups)
 *   anything else      the handler registered for the reason
 *                      (vm_handle_exit_reason: KVM_EXIT_DEBUG for the
 *                      debug-register engine, SHUTDOWN and SYSTEM_EVENT
 *                      for a guest profile); with none, or when it
 *                      returns VCPU_DEFAULT, the run ends as a guest
 *                      fault: the VM_HOOK_BEFORE_FAULT hooks, the report
 *                      (fault.c), vm_end(VM_END_FAULT)
 *
 * Returns VCPU_RESUME to enter the guest again, VCPU_STOP when the run
 * ends, or a negative errno for a host error.
 */
int vcpu_handle_exit(struct vcpu *vcpu);

#endif /* CSAN_VMM_EXIT_H */

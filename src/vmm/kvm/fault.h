/* fault.h: reports of what stopped the guest: exceptions, panics, bad exits. */
#ifndef CSAN_VMM_FAULT_H
#define CSAN_VMM_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"

struct vcpu;

/*
 * fault_vector_name - the mnemonic of exception @vector ("#PF"), or "#??"
 * for a reserved vector and anything above 31.
 */
const char *fault_vector_name(unsigned vector);

/*
 * fault_report_guest - print a CSAN_HC_FAULT from @vcpu: the exception
 * (vector name and number, error code, CR2, RIP) or the panic @msg
 * (@msg_len bytes, already bounds-checked; NULL if none), then @f's
 * registers.
 */
void fault_report_guest(struct vcpu *vcpu, const struct csan_hc_fault *f, const char *msg,
			size_t msg_len);

/*
 * fault_report_exit - print why @vcpu's last exit ends the run (triple
 * fault, KVM internal error with the instruction bytes at RIP, failed
 * VM entry, an unexpected exit reason), followed by the vCPU's registers
 * as KVM holds them.  Runs on the vCPU's own thread.
 */
void fault_report_exit(struct vcpu *vcpu);

#endif /* CSAN_VMM_FAULT_H */

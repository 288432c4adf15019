/* csan_state.h: the csan ABI's state of one VM: the control block, the result line. */
#ifndef CSAN_VMM_CSAN_STATE_H
#define CSAN_VMM_CSAN_STATE_H

#include <pthread.h>

#include "csan/abi.h"
#include "vmm/dev/hypercall.h"
#include "vmm/dev/serial.h"
#include "vmm/kvm/vm.h"

/*
 * The csan ABI's state of a VM whose image speaks it (csan_state_new
 * makes it, from csan_hypercalls_attach, with the VM's lifetime): the
 * context of its CSAN_HC_ATTACH hypercall, where whoever holds the VM
 * finds it (csan_state()).  The core knows nothing of it: the control
 * block is this guest's business.
 */
struct csan_state {
	/* The guest runtime's control block (CSAN_HC_ATTACH), in guest RAM; NULL until attached. */
	struct csan_control *control;
	unsigned control_ncounters; /* atomic: checked at attach; reads stay below it */
	unsigned control_size;	    /* atomic: bytes of the block, 0 until attached */

	/* The guest's last result line, without its newline; "" before one. */
	pthread_mutex_t result_lock;
	char result[SERIAL_LINE_MAX + 1];
};

/*
 * csan_state_new - a csan state for @vm, freed with the VM; NULL with a
 * message in @why when out of memory.
 */
struct csan_state *csan_state_new(struct vm *vm, char *why, size_t whylen);

/* csan_state - @vm's csan state, or NULL when its image does not speak the csan ABI. */
static inline struct csan_state *csan_state(const struct vm *vm)
{
	return hc_context(vm, CSAN_HC_ATTACH);
}

/* csan_control - @vm's attached control block, or NULL (not attached, not a csan guest). */
static inline struct csan_control *csan_control(const struct vm *vm)
{
	struct csan_state *cs = csan_state(vm);

	return cs ? __atomic_load_n(&cs->control, __ATOMIC_SEQ_CST) : NULL;
}

#endif /* CSAN_VMM_CSAN_STATE_H */

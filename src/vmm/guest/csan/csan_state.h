/* csan_state.h: the csan profile's state of one VM: the runtime's control block, the result line.
 */
#ifndef CSAN_VMM_CSAN_STATE_H
#define CSAN_VMM_CSAN_STATE_H

#include <pthread.h>

#include "csan/abi.h"
#include "vmm/dev/serial.h"
#include "vmm/kvm/vm.h"

/*
 * vm->profile_state of a VM whose hypercalls the csan profile serves
 * (csan_state_new makes it, from csan_hypercalls_attach, with the VM's
 * lifetime).  The core
 * knows nothing of it: the control block is this guest's business.
 */
struct csan_state {
	const void *owner; /* &csan_state_owner: tells this state from another profile's */

	/* The guest runtime's control block (CSAN_HC_ATTACH), in guest RAM; NULL until attached. */
	struct csan_control *control;
	unsigned control_ncounters; /* atomic: checked at attach; reads stay below it */
	unsigned control_size;	    /* atomic: bytes of the block, 0 until attached */

	/* The guest's last result line, without its newline; "" before one. */
	pthread_mutex_t result_lock;
	char result[SERIAL_LINE_MAX + 1];
};

extern const char csan_state_owner;

/*
 * csan_state_new - make @vm's csan state (vm->profile_state), freed with
 * the VM.  Returns 0, or -ENOMEM with a message in @why.
 */
int csan_state_new(struct vm *vm, char *why, size_t whylen);

/* csan_state - @vm's csan state, or NULL when another kind of guest (or none) runs. */
static inline struct csan_state *csan_state(const struct vm *vm)
{
	struct csan_state *cs = vm->profile_state;

	return cs && cs->owner == &csan_state_owner ? cs : NULL;
}

/* csan_control - @vm's attached control block, or NULL (not attached, not a csan guest). */
static inline struct csan_control *csan_control(const struct vm *vm)
{
	struct csan_state *cs = csan_state(vm);

	return cs ? __atomic_load_n(&cs->control, __ATOMIC_SEQ_CST) : NULL;
}

#endif /* CSAN_VMM_CSAN_STATE_H */

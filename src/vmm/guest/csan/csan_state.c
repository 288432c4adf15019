/* csan_state.c: the csan profile's state of one VM: the runtime's control block, the result line. */
#include <errno.h>

#include "vmm/guest/csan/csan_state.h"

/* Its address marks a state as the csan profile's (csan_state()). */
const char csan_state_owner;

int csan_state_new(struct vm *vm, char *why, size_t whylen)
{
	struct csan_state *cs = vm_zalloc(vm, sizeof(*cs), "csan", why, whylen);

	if (!cs)
		return -ENOMEM;
	cs->owner = &csan_state_owner;
	pthread_mutex_init(&cs->result_lock, NULL);
	vm->profile_state = cs;
	return 0;
}

/* csan_state.c: the csan ABI's state of one VM: the control block, the result line. */
#include "vmm/guest/csan/csan_state.h"

struct csan_state *csan_state_new(struct vm *vm, char *why, size_t whylen)
{
	struct csan_state *cs = vm_zalloc(vm, sizeof(*cs), "csan", why, whylen);

	/* Zeroed memory is an unlocked mutex on Linux; init says so anyway. */
	if (cs)
		pthread_mutex_init(&cs->result_lock, NULL);
	return cs;
}

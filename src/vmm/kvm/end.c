/* end.c: how a run ends: the first word on it wins, and every vCPU is told to stop. */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "vmm/base/log.h"
#include "vmm/kvm/vm.h"

bool vm_end(struct vm *vm, enum vm_end end, int guest_status, int signal)
{
	uint64_t one = 1;
	bool first;

	pthread_mutex_lock(&vm->end_lock);
	first = !vm->ended;
	if (first) {
		vm->ended = true;
		vm->outcome = (struct vm_outcome){ end, guest_status, signal };
	}
	pthread_mutex_unlock(&vm->end_lock);
	__atomic_store_n(&vm->stop, 1, __ATOMIC_SEQ_CST);
	/* One write to a fresh eventfd cannot block or overflow. */
	if (first && write(vm->end_fd, &one, sizeof(one)) != sizeof(one))
		log_error_errno(errno, "cannot wake the supervisor");
	return first;
}

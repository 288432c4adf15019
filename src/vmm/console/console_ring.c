/* console_ring.c: the UART's transmit register through KVM's coalesced PIO ring. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "vmm/console/console_ring.h"
#include "vmm/kvm/vm.h"

int console_ring_setup(struct vm *vm, char *why, size_t whylen)
{
	struct kvm_coalesced_mmio_zone zone = { .addr = CSAN_COM1_PORT, .size = 1, .pio = 1 };
	long page = sysconf(_SC_PAGESIZE);
	int offset = ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_COALESCED_MMIO);

	/* KVM_CAP_COALESCED_MMIO answers the ring's page offset in kvm_run's mapping. */
	if (ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_COALESCED_PIO) <= 0 || offset <= 0 ||
	    page <= 0 || (size_t)(offset + 1) * (size_t)page > vm->run_size)
		return 0;
	if (ioctl(vm->vm_fd, KVM_REGISTER_COALESCED_MMIO, &zone) < 0) {
		int e = errno;

		snprintf(why, whylen, "KVM_REGISTER_COALESCED_MMIO for the UART failed: %s",
			 strerror(e));
		return -e;
	}
	vm->ring = (struct kvm_coalesced_mmio_ring *)((char *)vm->vcpus[0]->run +
						      (size_t)offset * (size_t)page);
	vm->ring_max = (unsigned)(((size_t)page - sizeof(*vm->ring)) /
				  sizeof(vm->ring->coalesced_mmio[0]));
	pthread_mutex_lock(&vm->serial.lock);
	vm->serial.one_stream = true;
	pthread_mutex_unlock(&vm->serial.lock);
	return 0;
}

void console_ring_drain(struct vm *vm)
{
	struct kvm_coalesced_mmio_ring *ring = vm->ring;
	uint32_t first;

	/* KVM publishes last after the entry; an empty ring costs one load. */
	if (!ring || __atomic_load_n(&ring->last, __ATOMIC_ACQUIRE) == ring->first)
		return;
	pthread_mutex_lock(&vm->ring_lock);
	first = ring->first;
	while (first != __atomic_load_n(&ring->last, __ATOMIC_ACQUIRE)) {
		struct kvm_coalesced_mmio e = ring->coalesced_mmio[first];

		if (e.pio && e.phys_addr == CSAN_COM1_PORT && e.len && e.len <= sizeof(e.data))
			serial_io(&vm->serial, 0, CSAN_COM1_PORT, true, e.data, e.len, 1);
		first = (first + 1) % vm->ring_max;
		/* Hand the slot back to KVM only once the byte is taken. */
		__atomic_store_n(&ring->first, first, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&vm->ring_lock);
}

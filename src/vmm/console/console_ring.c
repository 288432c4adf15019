/* console_ring.c: the UART's transmit register through KVM's coalesced PIO ring. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "vmm/base/log.h"
#include "vmm/console/console_ring.h"
#include "vmm/dev/serial.h"
#include "vmm/kvm/vm.h"

/* KVM's ring in the first vCPU's kvm_run mapping, and the UART it feeds. */
struct console_ring {
	struct kvm_coalesced_mmio_ring *ring;
	unsigned max; /* entries */
	struct serial *serial;
};

static void ring_drain(struct console_ring *cr)
{
	struct kvm_coalesced_mmio_ring *ring = cr->ring;
	uint32_t first;

	/* KVM publishes last after the entry; an empty ring costs one load. */
	if (__atomic_load_n(&ring->last, __ATOMIC_ACQUIRE) == ring->first)
		return;
	pthread_mutex_lock(&cr->serial->stream_lock);
	first = ring->first;
	while (first != __atomic_load_n(&ring->last, __ATOMIC_ACQUIRE)) {
		struct kvm_coalesced_mmio e = ring->coalesced_mmio[first];

		if (e.pio && e.phys_addr == CSAN_COM1_PORT && e.len && e.len <= sizeof(e.data))
			serial_io(cr->serial, 0, CSAN_COM1_PORT, true, e.data, e.len, 1);
		first = (first + 1) % cr->max;
		/* Hand the slot back to KVM only once the byte is taken. */
		__atomic_store_n(&ring->first, first, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&cr->serial->stream_lock);
}

/* Before every exit (bytes written before it come first) and once the vCPUs stopped. */
static int drain_hook(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	(void)vm;
	(void)vcpu;
	ring_drain(ctx);
	return 0;
}

int console_ring_setup(struct vm *vm, char *why, size_t whylen)
{
	struct kvm_coalesced_mmio_zone zone = { .addr = CSAN_COM1_PORT, .size = 1, .pio = 1 };
	long page = sysconf(_SC_PAGESIZE);
	int offset = ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_COALESCED_MMIO);
	struct console_ring *cr;
	int r;

	/* KVM_CAP_COALESCED_MMIO answers the ring's page offset in kvm_run's mapping. */
	if (!vm->serial || ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_COALESCED_PIO) <= 0 ||
	    offset <= 0 || page <= 0 || (size_t)(offset + 1) * (size_t)page > vm->run_size)
		return 0;
	cr = vm_zalloc(vm, sizeof(*cr), "console ring", why, whylen);
	if (!cr)
		return -ENOMEM;
	if (ioctl(vm->vm_fd, KVM_REGISTER_COALESCED_MMIO, &zone) < 0)
		return why_errno(why, whylen, errno,
				 "KVM_REGISTER_COALESCED_MMIO for the UART failed");
	cr->serial = vm->serial;
	cr->ring = (struct kvm_coalesced_mmio_ring *)((char *)vm->vcpus[0]->run +
						      (size_t)offset * (size_t)page);
	cr->max = (unsigned)(((size_t)page - sizeof(*cr->ring)) /
			     sizeof(cr->ring->coalesced_mmio[0]));
	pthread_mutex_lock(&cr->serial->lock);
	cr->serial->one_stream = true;
	pthread_mutex_unlock(&cr->serial->lock);
	r = vm_hook_add(vm, VM_HOOK_BEFORE_EXIT, "console ring", drain_hook, cr, why, whylen);
	if (!r)
		r = vm_hook_add(vm, VM_HOOK_VCPUS_STOPPED, "console ring", drain_hook, cr, why,
				whylen);
	return r;
}

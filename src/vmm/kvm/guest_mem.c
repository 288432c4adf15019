/* guest_mem.c: a stopped vCPU's view: its registers and guest-linear memory. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "vmm/kvm/guest_mem.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"

int guest_get_regs(struct vcpu *vcpu, struct csan_regs *r, struct guest_cregs *c)
{
	struct kvm_regs k;
	struct kvm_sregs s;

	if (ioctl(vcpu->fd, KVM_GET_REGS, &k) < 0 || ioctl(vcpu->fd, KVM_GET_SREGS, &s) < 0)
		return -errno;
	*r = (struct csan_regs){
		.rax = k.rax,
		.rbx = k.rbx,
		.rcx = k.rcx,
		.rdx = k.rdx,
		.rsi = k.rsi,
		.rdi = k.rdi,
		.rbp = k.rbp,
		.rsp = k.rsp,
		.r8 = k.r8,
		.r9 = k.r9,
		.r10 = k.r10,
		.r11 = k.r11,
		.r12 = k.r12,
		.r13 = k.r13,
		.r14 = k.r14,
		.r15 = k.r15,
		.rip = k.rip,
		.rflags = k.rflags,
		.cs = s.cs.selector,
		.ss = s.ss.selector,
		.cr2 = s.cr2,
		.cr3 = s.cr3,
	};
	if (c)
		*c = (struct guest_cregs){ .cr0 = s.cr0, .cr4 = s.cr4, .efer = s.efer };
	return 0;
}

/* Linear address -> guest-physical through KVM's view of the guest's paging. */
static int translate(struct vcpu *vcpu, uint64_t linear, uint64_t *gpa)
{
	struct kvm_translation t = { .linear_address = linear };

	if (ioctl(vcpu->fd, KVM_TRANSLATE, &t) < 0)
		return -errno;
	if (!t.valid)
		return -EFAULT;
	*gpa = t.physical_address;
	return 0;
}

/*
 * Copy @len bytes between @buf and guest-linear @linear, page by page:
 * into @buf, or out of it with @to_guest.  Returns the bytes copied.
 */
static size_t copy_linear(struct vcpu *vcpu, uint64_t linear, void *buf, size_t len, bool to_guest)
{
	size_t done = 0;

	while (done < len) {
		uint64_t page_left = 4096 - ((linear + done) & 4095);
		size_t chunk = len - done < page_left ? len - done : (size_t)page_left;
		uint64_t gpa = 0;
		void *hva;

		if (translate(vcpu, linear + done, &gpa))
			break;
		hva = vm_gpa_to_hva(vcpu->vm, gpa, chunk);
		if (!hva)
			break;
		if (to_guest)
			memcpy(hva, (uint8_t *)buf + done, chunk);
		else
			memcpy((uint8_t *)buf + done, hva, chunk);
		done += chunk;
	}
	return done;
}

size_t guest_read_linear(struct vcpu *vcpu, uint64_t linear, void *buf, size_t len)
{
	return copy_linear(vcpu, linear, buf, len, false);
}

size_t guest_write_linear(struct vcpu *vcpu, uint64_t linear, const void *buf, size_t len)
{
	return copy_linear(vcpu, linear, (void *)buf, len, true);
}

size_t guest_read_code(struct vcpu *vcpu, uint64_t rip, uint8_t *buf, size_t len)
{
	struct kvm_sregs sregs;

	if (ioctl(vcpu->fd, KVM_GET_SREGS, &sregs) < 0)
		return 0;
	/* CS's base is ignored in 64-bit mode (SDM Vol. 3A, 3.4.4). */
	return guest_read_linear(vcpu, sregs.cs.l ? rip : sregs.cs.base + rip, buf, len);
}

bool guest_unwind_read(void *ctx, uint64_t gva, uint64_t *val)
{
	return guest_read_linear(ctx, gva, val, sizeof(*val)) == sizeof(*val);
}

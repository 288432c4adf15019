/* virtio_mmio.c: the virtio-mmio transport (virtio 1.x, register layout version 2). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "vmm/base/log.h"
#include "vmm/dev/virtio_mmio.h"
#include "vmm/kvm/bus.h"
#include "vmm/kvm/hooks.h"
#include "vmm/kvm/vm.h"

/*
 * ISA IRQs free on the Linux profile's PC: edge-triggered, active high
 * (no MADT override names them), which is why an interrupt is a pulse.
 */
static const unsigned slot_irqs[VIRTIO_MMIO_SLOTS] = { 5, 10, 11 };

int virtio_mmio_slot(unsigned n, struct virtio_mmio_place *out)
{
	if (n >= VIRTIO_MMIO_SLOTS)
		return -EINVAL;
	out->base = VIRTIO_MMIO_BASE + n * VIRTIO_MMIO_SIZE;
	out->irq = slot_irqs[n];
	return 0;
}

int virtio_mmio_announce(const struct virtio_mmio_place *p, char *buf, size_t len)
{
	int n = snprintf(buf, len, "virtio_mmio.device=%llu@%#" PRIx64 ":%u",
			 (unsigned long long)VIRTIO_MMIO_SIZE, p->base, p->irq);

	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/*
 * KVM's irqchip routes the GSI to both 8259s and the I/O APIC; both take
 * it edge-triggered, so 1 then 0 is one interrupt, and a pulse while the
 * driver's handler runs is latched for after it (4.2.3.4: the driver acks
 * what it read, then looks at every queue).
 */
static void kvm_irq_pulse(struct virtio_mmio *t)
{
	struct kvm_irq_level irq = { .irq = t->place.irq, .level = 1 };

	/* Cannot fail for a GSI the irqchip has; nothing better to do if it did. */
	(void)ioctl(t->vm->vm_fd, KVM_IRQ_LINE, &irq);
	irq.level = 0;
	(void)ioctl(t->vm->vm_fd, KVM_IRQ_LINE, &irq);
}

static void interrupt(struct virtio_mmio *t, uint32_t why)
{
	t->isr |= why;
	if (t->irq)
		t->irq(t);
}

/* Writing 0 to Status (2.4): every register and queue back to its first state. */
static void reset(struct virtio_mmio *t)
{
	t->status = 0;
	t->isr = 0;
	t->dev_features_sel = t->drv_features_sel = t->queue_sel = 0;
	t->drv_features = 0;
	memset(t->q, 0, sizeof(t->q));
}

void virtio_mmio_broken(struct virtio_mmio *t, const char *what)
{
	t->stats.broken++;
	if (!t->said_broken) {
		t->said_broken = true;
		log_error("%s: the guest's driver broke the device (%s); it needs a reset",
			  t->ops->name, what);
	}
	if (t->status & VIRTIO_STATUS_NEEDS_RESET)
		return;
	t->status |= VIRTIO_STATUS_NEEDS_RESET;
	/* A driver learns of NEEDS_RESET from a configuration change interrupt (4.2.3.4). */
	if (t->status & VIRTIO_STATUS_DRIVER_OK)
		interrupt(t, VIRTIO_MMIO_INT_CONFIG);
}

void virtio_mmio_used(struct virtio_mmio *t, struct virtq *q)
{
	if (virtq_wants_interrupt(&t->mem, q))
		interrupt(t, VIRTIO_MMIO_INT_VRING);
}

/* The selected queue, or NULL when QueueSel names none. */
static struct virtq *selected(struct virtio_mmio *t)
{
	return t->queue_sel < t->ops->nqueues ? &t->q[t->queue_sel] : NULL;
}

static uint32_t read_reg(struct virtio_mmio *t, uint64_t off)
{
	struct virtq *q = selected(t);
	uint64_t features = t->ops->features;

	switch (off) {
	case VIRTIO_MMIO_MAGIC_VALUE: return VIRTIO_MMIO_MAGIC;
	case VIRTIO_MMIO_VERSION: return VIRTIO_MMIO_VERSION_2;
	case VIRTIO_MMIO_DEVICE_ID: return t->ops->device_id;
	case VIRTIO_MMIO_VENDOR_ID: return VIRTIO_MMIO_VENDOR;
	case VIRTIO_MMIO_DEVICE_FEATURES:
		return t->dev_features_sel == 0	  ? (uint32_t)features
		       : t->dev_features_sel == 1 ? (uint32_t)(features >> 32)
						  : 0;
	case VIRTIO_MMIO_QUEUE_NUM_MAX: return q ? VIRTQ_NUM_MAX : 0;
	case VIRTIO_MMIO_QUEUE_READY: return q && q->ready;
	case VIRTIO_MMIO_INTERRUPT_STATUS: return t->isr;
	case VIRTIO_MMIO_STATUS: return t->status;
	/* No shared memory regions: their length reads as all ones (4.2.2). */
	case VIRTIO_MMIO_SHM_LEN_LOW:
	case VIRTIO_MMIO_SHM_LEN_HIGH:
	case VIRTIO_MMIO_SHM_BASE_LOW:
	case VIRTIO_MMIO_SHM_BASE_HIGH: return UINT32_MAX;
	case VIRTIO_MMIO_CONFIG_GENERATION: return 0; /* the configuration never changes */
	default:
		/* Write-only registers and holes read as zero. */
		return 0;
	}
}

/* FEATURES_OK is kept only for features the device offered, VERSION_1 among them (3.1.1). */
static bool features_acceptable(const struct virtio_mmio *t)
{
	return !(t->drv_features & ~t->ops->features) &&
	       (t->drv_features & (1ull << VIRTIO_F_VERSION_1));
}

static void write_status(struct virtio_mmio *t, uint32_t v)
{
	uint32_t driver_bits = VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
			       VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK |
			       VIRTIO_STATUS_FAILED;
	uint32_t next;

	if (v == 0) {
		reset(t);
		return;
	}
	/* The driver sets bits one step at a time; NEEDS_RESET is the device's. */
	next = (v & driver_bits) | (t->status & VIRTIO_STATUS_NEEDS_RESET);
	if ((next & VIRTIO_STATUS_FEATURES_OK) && !(t->status & VIRTIO_STATUS_FEATURES_OK) &&
	    !features_acceptable(t))
		next &= ~VIRTIO_STATUS_FEATURES_OK;
	if (!(next & VIRTIO_STATUS_FEATURES_OK))
		next &= ~VIRTIO_STATUS_DRIVER_OK;
	t->status = next;
}

/* One 32-bit half of a 64-bit register pair. */
static void write_half(uint64_t *field, bool high, uint32_t v)
{
	if (high)
		*field = (*field & 0xffffffffull) | (uint64_t)v << 32;
	else
		*field = (*field & ~0xffffffffull) | v;
}

static void write_queue_ready(struct virtio_mmio *t, struct virtq *q, uint32_t v)
{
	/* A driver that stops using a queue writes 0 and reads it back (4.2.2.1). */
	if (!v) {
		q->ready = false;
		return;
	}
	if (q->ready)
		return;
	if (!virtq_check(&t->mem, q)) {
		virtio_mmio_broken(t,
				   "a queue made ready with a size or address outside guest RAM");
		return;
	}
	q->last_avail = 0;
	q->used_idx = 0;
	q->ready = true;
}

static void notify(struct virtio_mmio *t, uint32_t v)
{
	uint32_t needed = VIRTIO_STATUS_DRIVER_OK;

	if ((t->status & (needed | VIRTIO_STATUS_NEEDS_RESET)) != needed || v >= t->ops->nqueues ||
	    !t->q[v].ready) {
		t->stats.early_notifies++;
		return;
	}
	t->stats.notifies++;
	t->ops->notify(t, t->ctx, &t->q[v]);
}

static void write_reg(struct virtio_mmio *t, uint64_t off, uint32_t v)
{
	struct virtq *q = selected(t);
	bool queue_writable = q && !q->ready;

	switch (off) {
	case VIRTIO_MMIO_DEVICE_FEATURES_SEL: t->dev_features_sel = v; return;
	case VIRTIO_MMIO_DRIVER_FEATURES_SEL: t->drv_features_sel = v; return;
	case VIRTIO_MMIO_DRIVER_FEATURES:
		/* Fixed once FEATURES_OK is set (3.1.1). */
		if (t->status & VIRTIO_STATUS_FEATURES_OK || t->drv_features_sel > 1)
			break;
		write_half(&t->drv_features, t->drv_features_sel, v);
		return;
	case VIRTIO_MMIO_QUEUE_SEL: t->queue_sel = v; return;
	case VIRTIO_MMIO_QUEUE_NUM:
		if (!queue_writable)
			break;
		/* Checked against QueueNumMax when the queue is made ready. */
		q->num = v > UINT16_MAX ? 0 : (uint16_t)v;
		return;
	case VIRTIO_MMIO_QUEUE_READY:
		if (!q)
			break;
		write_queue_ready(t, q, v);
		return;
	case VIRTIO_MMIO_QUEUE_NOTIFY: notify(t, v); return;
	case VIRTIO_MMIO_INTERRUPT_ACK: t->isr &= ~v; return;
	case VIRTIO_MMIO_STATUS: write_status(t, v); return;
	/* A queue's addresses: only while it is not ready (4.2.3.2). */
	case VIRTIO_MMIO_QUEUE_DESC_LOW:
	case VIRTIO_MMIO_QUEUE_DESC_HIGH:
		if (!queue_writable)
			break;
		write_half(&q->desc, off == VIRTIO_MMIO_QUEUE_DESC_HIGH, v);
		return;
	case VIRTIO_MMIO_QUEUE_DRIVER_LOW:
	case VIRTIO_MMIO_QUEUE_DRIVER_HIGH:
		if (!queue_writable)
			break;
		write_half(&q->avail, off == VIRTIO_MMIO_QUEUE_DRIVER_HIGH, v);
		return;
	case VIRTIO_MMIO_QUEUE_DEVICE_LOW:
	case VIRTIO_MMIO_QUEUE_DEVICE_HIGH:
		if (!queue_writable)
			break;
		write_half(&q->used, off == VIRTIO_MMIO_QUEUE_DEVICE_HIGH, v);
		return;
	case VIRTIO_MMIO_SHM_SEL: return; /* any region: none exists */
	default: break;
	}
	/* A read-only register, a hole, or a queue set-up write to a ready queue. */
	t->stats.bad_accesses++;
}

/* The configuration space: bytes of ops->config, any width; writes ignored. */
static void config_access(struct virtio_mmio *t, uint64_t off, bool is_write, uint8_t *data,
			  unsigned len)
{
	if (is_write || off > t->ops->config_len || len > t->ops->config_len - off) {
		t->stats.bad_accesses++;
		if (!is_write)
			memset(data, 0, len);
		return;
	}
	memcpy(data, t->ops->config + off, len);
}

void virtio_mmio_access(struct virtio_mmio *t, uint64_t off, bool is_write, uint8_t *data,
			unsigned len)
{
	uint32_t v = 0;

	if (!len || len > 8)
		return;
	pthread_mutex_lock(&t->lock);
	if (off >= VIRTIO_MMIO_CONFIG) {
		config_access(t, off - VIRTIO_MMIO_CONFIG, is_write, data, len);
	} else if (len != 4 || off % 4) {
		/* Registers are 32 bits wide and accessed whole (4.2.2.2). */
		t->stats.bad_accesses++;
		if (!is_write)
			memset(data, 0, len);
	} else if (is_write) {
		memcpy(&v, data, 4);
		write_reg(t, off, v);
	} else {
		v = read_reg(t, off);
		memcpy(data, &v, 4);
	}
	pthread_mutex_unlock(&t->lock);
}

static int mmio_access(struct vcpu *vcpu, void *ctx, uint64_t addr, bool is_write, uint8_t *data,
		       unsigned len)
{
	struct virtio_mmio *t = ctx;

	(void)vcpu;
	/* The bus hands over only accesses wholly inside the window. */
	virtio_mmio_access(t, addr - t->place.base, is_write, data, len);
	return VCPU_RESUME;
}

void virtio_mmio_init(struct virtio_mmio *t, const struct virtio_mmio_place *p,
		      const struct virtio_dev_ops *ops, void *ctx, const struct virtq_mem *mem)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->place = *p;
	t->ops = ops;
	t->ctx = ctx;
	t->mem = *mem;
}

void virtio_mmio_fini(struct virtio_mmio *t)
{
	if (t->ops && t->ops->destroy)
		t->ops->destroy(t->ctx);
	pthread_mutex_destroy(&t->lock);
}

static int destroy_hook(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	struct virtio_mmio *t = ctx;

	(void)vm;
	(void)vcpu;
	virtio_mmio_fini(t);
	free(t);
	return 0;
}

int virtio_mmio_attach(struct vm *vm, const struct virtio_mmio_place *p,
		       const struct virtio_dev_ops *ops, void *ctx, struct virtio_mmio **out,
		       char *why, size_t whylen)
{
	struct virtq_mem mem = { .ram = vm_ram(vm), .size = vm_ram_size(vm) };
	struct virtio_mmio *t = calloc(1, sizeof(*t));
	int rc;

	if (!t) {
		if (ops->destroy)
			ops->destroy(ctx);
		why_set(why, whylen, "out of memory");
		return -ENOMEM;
	}
	virtio_mmio_init(t, p, ops, ctx, &mem);
	t->vm = vm;
	t->irq = kvm_irq_pulse;
	rc = vm_hook_add(vm, VM_HOOK_DESTROY, ops->name, destroy_hook, t, why, whylen);
	if (rc) {
		virtio_mmio_fini(t);
		free(t);
		return rc;
	}
	rc = mmio_register(&vm->mmio, p->base, VIRTIO_MMIO_SIZE, ops->name, mmio_access, t, why,
			   whylen);
	if (!rc && out)
		*out = t;
	return rc;
}

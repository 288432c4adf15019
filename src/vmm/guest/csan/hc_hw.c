/* hc_hw.c: the CSAN_HC_HW_ARM and CSAN_HC_HW_DISARM hypercalls, into the watch engine. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "csan/abi.h"
#include "vmm/dev/hypercall.h"
#include "vmm/guest/csan/hc_hw.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"

/*
 * The bundled guest asks for its hardware watches by hypercall (abi.h); a
 * Linux guest asks in its own way (guest/linux/linux_watch.c).  So the
 * ABI's structs and checks stay here, and the engine sees only
 * hw_watch_arm and hw_watch_disarm.
 */

/* Write the OUT fields of a hypercall's struct back into guest RAM. */
static void write_back(struct vcpu *vcpu, uint32_t gpa, const void *src, size_t size)
{
	void *hva = vm_gpa_to_hva(vcpu->vm, gpa, size);

	/* hc_read_args checked the range already. */
	if (hva)
		memcpy(hva, src, size);
}

static int hc_hw_arm(struct vcpu *vcpu, uint32_t gpa)
{
	struct csan_hc_hw_arm a;
	int rc;

	rc = hc_read_args(vcpu, CSAN_HC_HW_ARM, gpa, &a, sizeof(a));
	if (rc != VCPU_RESUME)
		return rc;
	if (a.size < 1 || a.size > CSAN_HW_MAX_SIZE)
		return hc_fail(vcpu, CSAN_HC_HW_ARM, "size", "%" PRIu32 " not in 1..%u", a.size,
			       CSAN_HW_MAX_SIZE);
	if (a.access & ~CSAN_ACCESS_KNOWN)
		return hc_fail(vcpu, CSAN_HC_HW_ARM, "access", "unknown bits %#" PRIx32,
			       a.access & ~CSAN_ACCESS_KNOWN);
	rc = hw_watch_arm(vcpu, a.addr, &a.size, a.access, &a.ticket, &a.status);
	if (rc != VCPU_RESUME)
		return rc;
	write_back(vcpu, gpa, &a, sizeof(a));
	return VCPU_RESUME;
}

static int hc_hw_disarm(struct vcpu *vcpu, uint32_t gpa)
{
	struct csan_hc_hw_disarm d;
	struct hw_watch_result res;
	uint32_t ticket;
	int rc;

	rc = hc_read_args(vcpu, CSAN_HC_HW_DISARM, gpa, &d, sizeof(d));
	if (rc != VCPU_RESUME)
		return rc;
	ticket = d.ticket;
	rc = hw_watch_disarm(vcpu, ticket, &res);
	if (rc == -ENOENT)
		return hc_fail(vcpu, CSAN_HC_HW_DISARM, "ticket",
			       "%" PRIu32 " is not a watch this vCPU armed", d.ticket);
	if (rc != VCPU_RESUME)
		return rc;
	memset(&d, 0, sizeof(d));
	d.ticket = ticket;
	d.hits = res.hits;
	if (res.have_hit) {
		d.cpu = res.hit.cpu;
		d.context = res.hit.context;
		d.access = res.hit.access;
		d.size = res.hit.size;
		d.ip = res.hit.ip;
	}
	write_back(vcpu, gpa, &d, sizeof(d));
	return VCPU_RESUME;
}

int hc_hw_register(struct vm *vm, char *why, size_t whylen)
{
	int r = hc_register(vm, CSAN_HC_HW_ARM, "csan", hc_hw_arm, NULL, why, whylen);

	return r ? r : hc_register(vm, CSAN_HC_HW_DISARM, "csan", hc_hw_disarm, NULL, why, whylen);
}

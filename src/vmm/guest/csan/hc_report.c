/* hc_report.c: the CSAN_HC_REPORT hypercall, into the report pipeline. */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "csan/abi.h"
#include "vmm/base/log.h"
#include "vmm/guest/csan/hc_report.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/dev/hypercall.h"
#include "vmm/kvm/vm.h"
#include "watch/report_log.h"

/*
 * One report from a vCPU.  The record is copied before it is checked, so
 * another vCPU cannot change a field between check and use; the copy is
 * on this thread's stack because vCPUs report concurrently.
 */
static int hc_report(struct vcpu *vcpu, uint32_t gpa)
{
	struct csan_hc_report r;
	char why[256];
	int rc;

	rc = hc_read_args(vcpu, CSAN_HC_REPORT, gpa, &r, sizeof(r));
	if (rc != VCPU_RESUME)
		return rc;
	if (!vcpu->vm->reports)
		return hc_fail(vcpu, CSAN_HC_REPORT, "record", "no report pipeline in this run");
	hw_watch_complete_report(vcpu->vm, vcpu->id, &r);
	rc = report_log_submit(vcpu->vm->reports, &r, why, sizeof(why));
	if (rc == -EINVAL)
		return hc_fail(vcpu, CSAN_HC_REPORT, "record", "%s", why);
	if (rc < 0) {
		log_error("out of memory keeping a race report");
		vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
		return VCPU_STOP;
	}
	return VCPU_RESUME;
}

int hc_report_register(struct vm *vm, char *why, size_t whylen)
{
	return hc_register(vm, CSAN_HC_REPORT, "csan", hc_report, NULL, why, whylen);
}

/* host_select.c: --host=auto: this machine's /dev/kvm or the emulated host. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vmm/base/log.h"
#include "vmm/run/host_select.h"
#include "vmm/kvm/probe.h"
#include "vmm/guest/profile.h"
#include "vmm/kvm/kvm_api.h"

enum opt_host host_select(const struct options *o, const struct guest_profile *prof, char *why,
			  size_t whylen)
{
	char detail[400];
	int fd;

	if (o->host != OPT_HOST_AUTO)
		return o->host;
	fd = kvm_open_dev(detail, sizeof(detail));
	if (fd < 0) {
		snprintf(why, whylen, "%s", detail);
		return OPT_HOST_EMULATED;
	}
	close(fd);
	if (prof->unfit_for_pvm && probe_kvm_is_pvm()) {
		why_set(why, whylen, "%s", prof->unfit_for_pvm);
		return OPT_HOST_EMULATED;
	}
	if ((o->watch_hw || o->watch_sample || o->compare) &&
	    probe_data_watchpoints(detail, sizeof(detail)) != 1) {
		char *advice = strstr(detail, "; what to do"); /* the switch is the advice */

		if (advice)
			*advice = '\0';
		snprintf(why, whylen, "%s: %s",
			 o->compare	   ? "--compare"
			 : o->watch_sample ? "--watch=sample"
					   : "--watch=hw",
			 detail);
		return OPT_HOST_EMULATED;
	}
	return OPT_HOST_KVM;
}

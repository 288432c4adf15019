/* test-probe.c: probe_data_watchpoints, the start-up check of --watch=hw, on this /dev/kvm. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmm/kvm/probe.h"
#include "check.h"

/* Exit status for "skipped", as Automake's test driver reads it. */
#define EXIT_SKIP 77

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
	char why[512] = "";
	double t0, ms;
	int r, r2;

	/* The reasons read as tests/lib.sh's, which CI's summary groups by. */
	if (access("/dev/kvm", F_OK) != 0) {
		printf("SKIP: /dev/kvm does not exist (enable KVM on this host)\n");
		return EXIT_SKIP;
	}
	if (access("/dev/kvm", R_OK | W_OK) != 0) {
		printf("SKIP: /dev/kvm is not readable and writable by this user (run as a "
		       "member of its group)\n");
		return EXIT_SKIP;
	}
	t0 = now_ms();
	r = probe_data_watchpoints(why, sizeof(why));
	ms = now_ms() - t0;
	printf("probe_data_watchpoints: %d in %.1f ms: %s\n", r, ms, why);
	CHECK(r == 0 || r == 1);
	/*
	 * PVM never delivers guest data breakpoints (HOST-FACTS); everywhere
	 * else this test runs (VMX/SVM KVM) they fire.
	 */
	if (access("/sys/module/kvm_pvm", F_OK) == 0) {
		CHECK(r == 0);
		CHECK_CONTAINS(why, "data watchpoints do not fire");
		CHECK_CONTAINS(why,
			       "what to do: run on a host with VMX/SVM KVM, or in the emulated host "
				       "(--host=auto or --host=emulated), or use --watch=soft");
	} else {
		CHECK(r == 1);
		CHECK_CONTAINS(why, "data watchpoints fire");
	}
	/* Fast enough to run at every --watch=hw start; generous for a loaded machine. */
	CHECK(ms < 1000);
	/*
	 * Kept: --host=auto and then --watch=hw or --compare ask again in one
	 * run, and get the same answer and reason without a second VM.
	 */
	memset(why, 0, sizeof(why));
	t0 = now_ms();
	r2 = probe_data_watchpoints(why, sizeof(why));
	CHECK_EQ_U64(r2, r);
	CHECK_CONTAINS(why, "data watchpoints");
	CHECK(now_ms() - t0 < 1.0);
	return check_exit_status("test-probe");
}

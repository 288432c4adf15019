/* exit_status.h: csan-vmm's exit statuses (--help, csan-vmm(1), the README). */
#ifndef CSAN_VMM_EXIT_STATUS_H
#define CSAN_VMM_EXIT_STATUS_H

enum {
	EXIT_CLEAN = 0,	       /* the guest finished, nothing reported */
	EXIT_RACES = 1,	       /* the guest finished, races reported */
	EXIT_USAGE = 2,	       /* usage, configuration or host error */
	EXIT_GUEST_FAILED = 3, /* exception, triple fault, panic, timeout */
	EXIT_WORKLOAD_FAILED = 5, /* --run's command exited non-zero or never reported */
	EXIT_INTERRUPTED = 130,
};

#endif /* CSAN_VMM_EXIT_STATUS_H */

/* exit_status.h: csan-vmm's exit statuses (--help, csan-vmm(1), the README). */
#ifndef CSAN_VMM_EXIT_STATUS_H
#define CSAN_VMM_EXIT_STATUS_H

/*
 * What a CI script can tell apart.  run/verdict.c decides which one a
 * run ends with, and names each in the closing summary line and the
 * --report-json "exit" record by the word in its comment.
 */
enum {
	EXIT_CLEAN = 0,		  /* "clean": nothing reported, the workload (if any) passed */
	EXIT_RACES = 1,		  /* "races": races reported, the workload (if any) passed */
	EXIT_USAGE = 2,		  /* "error": usage, configuration or host error */
	EXIT_CRASH = 3,		  /* "crash": exception, triple fault, panic, bad hypercall */
	EXIT_TIMEOUT = 4,	  /* "timeout": still running at --timeout */
	EXIT_WORKLOAD_FAILED = 5, /* "workload-failed": its status non-zero, a KUnit case failed */
	EXIT_INTERRUPTED = 130,	  /* "interrupted": SIGINT or SIGTERM */
};

#endif /* CSAN_VMM_EXIT_STATUS_H */

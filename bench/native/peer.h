/* peer.h: driving bench-native-tsan, the ThreadSanitizer peer, from bench-native. */
#ifndef CSAN_BENCH_NATIVE_PEER_H
#define CSAN_BENCH_NATIVE_PEER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct peer {
	const char *path;
	pid_t pid;
	FILE *to, *from; /* its stdin and stdout */
};

/*
 * peer_start - start the peer program at @path, ready for requests.
 * Returns 0, or -1 with the reason in @why (@whylen bytes).
 */
int peer_start(struct peer *p, const char *path, char *why, size_t whylen);

/*
 * peer_run - have the peer run @workload for @iterations on @threads
 * threads; *@wall_s is the run's wall-clock time, *@cpu_ns its threads'
 * CPU time.  Returns 0, or -1 with the reason in @why (the peer's own
 * messages, libtsan's among them, are on stderr).
 */
int peer_run(struct peer *p, const char *workload, unsigned int iterations, unsigned int threads,
	     double *wall_s, uint64_t *cpu_ns, char *why, size_t whylen);

/*
 * peer_stop - end the peer and wait for it.  Returns 0 when it exited
 * cleanly, or -1 with the reason in @why: libtsan's exit status 66 means
 * it reported races in the race-free workloads.
 */
int peer_stop(struct peer *p, char *why, size_t whylen);

#endif /* CSAN_BENCH_NATIVE_PEER_H */

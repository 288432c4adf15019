/* peer.c: driving bench-native-tsan, the ThreadSanitizer peer, from bench-native. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peer.h"

/* libtsan's exit status when it reported anything (its exitcode option). */
#define TSAN_EXIT_REPORTED 66

/* How the peer ended, in words, for @why. */
static void describe_exit(const struct peer *p, int status, char *why, size_t whylen)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == TSAN_EXIT_REPORTED)
		snprintf(why, whylen,
			 "%s: ThreadSanitizer reported races (exit status %d, its reports are "
			 "above) in workloads that are race-free: it does not see their locks",
			 p->path, TSAN_EXIT_REPORTED);
	else if (WIFEXITED(status))
		snprintf(why, whylen, "%s exited with status %d (its messages are above)", p->path,
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(why, whylen, "%s was killed by signal %d (%s)", p->path, WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(why, whylen, "%s ended with wait status %#x", p->path, status);
}

static int reap(struct peer *p, char *why, size_t whylen)
{
	int status;

	if (p->to)
		fclose(p->to);
	if (p->from)
		fclose(p->from);
	p->to = p->from = NULL;
	if (p->pid <= 0)
		return -1;
	while (waitpid(p->pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(why, whylen, "waitpid %s: %s", p->path, strerror(errno));
			p->pid = 0;
			return -1;
		}
	p->pid = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	describe_exit(p, status, why, whylen);
	return -1;
}

int peer_start(struct peer *p, const char *path, char *why, size_t whylen)
{
	int in[2], out[2];

	*p = (struct peer){ .path = path };
	if (access(path, X_OK) < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (pipe(in) < 0 || pipe(out) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	/* A peer that dies must show up as an error from peer_run, not kill us on a write. */
	signal(SIGPIPE, SIG_IGN);
	fflush(NULL);
	p->pid = fork();
	if (p->pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		return -1;
	}
	if (p->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		execl(path, path, (char *)NULL);
		fprintf(stderr, "bench-native: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->to = fdopen(in[1], "w");
	p->from = fdopen(out[0], "r");
	if (!p->to || !p->from) {
		char ignored[256];

		snprintf(why, whylen, "fdopen: %s", strerror(errno));
		if (!p->to)
			close(in[1]);
		if (!p->from)
			close(out[0]);
		/* Its stdin is closed now, so it ends; why it ended adds nothing. */
		reap(p, ignored, sizeof(ignored));
		return -1;
	}
	return 0;
}

int peer_run(struct peer *p, const char *workload, unsigned int iterations, unsigned int threads,
	     double *wall_s, uint64_t *cpu_ns, char *why, size_t whylen)
{
	unsigned long long wall, cpu;
	char line[512];

	if (fprintf(p->to, "%s %u %u\n", workload, iterations, threads) < 0 || fflush(p->to) != 0 ||
	    !fgets(line, sizeof(line), p->from)) {
		/* It is gone: say why, from its exit status. */
		if (reap(p, why, whylen) == 0)
			snprintf(why, whylen, "%s ended without answering", p->path);
		return -1;
	}
	if (sscanf(line, "%llu %llu", &wall, &cpu) != 2) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(why, whylen, "%s: %s", p->path, line);
		return -1;
	}
	*wall_s = (double)wall * 1e-9;
	*cpu_ns = cpu;
	return 0;
}

int peer_stop(struct peer *p, char *why, size_t whylen)
{
	return reap(p, why, whylen);
}

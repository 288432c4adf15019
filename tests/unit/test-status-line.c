/* test-status-line.c: the status line through the run's hooks, on a real pseudo-terminal. */
#include "config.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmm/base/log.h"
#include "vmm/console/status_line.h"
#include "vmm/kvm/vm.h"
#include "check.h"

/* What the sampler hands the line, and how often it was asked. */
struct counts {
	unsigned calls;
	uint64_t races;
};

static void sample(struct vm *vm, void *ctx, struct status_sample *s)
{
	struct counts *c = ctx;

	(void)vm;
	c->calls++;
	s->setup_watchpoints = 10 * c->calls;
	s->races = c->races;
}

/* Everything the terminal got so far (the master side of the pty). */
static size_t drain(int master, char *buf, size_t len, size_t used)
{
	struct pollfd p = { .fd = master, .events = POLLIN };

	while (used + 1 < len && poll(&p, 1, 100) > 0) {
		ssize_t n = read(master, buf + used, len - 1 - used);

		if (n <= 0)
			break;
		used += (size_t)n;
	}
	buf[used] = '\0';
	return used;
}

/*
 * The line's numbers from two samples a second apart, worked out by hand:
 * the time since the start, and the rates over that second.
 */
static void check_format(void)
{
	const struct status_sample prev = { .ms = 1500, .setup_watchpoints = 1000, .hw_armed = 40 };
	const struct status_sample now = {
		.ms = 2500, .setup_watchpoints = 3000, .hw_armed = 540, .races = 1
	};
	char buf[160];

	status_line_format(buf, sizeof(buf), &now, &prev, false);
	CHECK_STREQ(buf, "csan-vmm: 2.5 s, 2000 watchpoints/s, 1 race");
	status_line_format(buf, sizeof(buf), &now, &prev, true);
	CHECK_STREQ(buf, "csan-vmm: 2.5 s, 2000 watchpoints/s, 500 hw arms/s, 1 race");
}

int main(void)
{
	struct counts c = { .races = 3 };
	static char term[8192];
	char why[256];
	int master, slave, saved, tick = -1, i;
	size_t used = 0;
	struct vm *vm;
	bool wanted;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master)) {
		puts("SKIP: no pseudo-terminal here");
		return 77;
	}
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	vm = vm_new(&(struct vm_config){ .ncpus = 1 });
	CHECK(slave >= 0 && vm);
	if (slave < 0 || !vm)
		return check_exit_status("test-status-line");
	CHECK(status_line_attach(vm, sample, &c, why, sizeof(why)) == 0);

	/* stderr on the terminal for the run; the checks print after it. */
	saved = dup(STDERR_FILENO);
	dup2(slave, STDERR_FILENO);
	setenv("TERM", "xterm", 1);
	wanted = status_line_wanted(false);
	vm_hooks_call(vm, VM_HOOK_RUN_START, NULL);
	/* The first draw waits STATUS_LINE_QUIET_MS; the tick says how long to wait. */
	for (i = 0; i < 40 && !strstr(term, "watchpoints/s"); i++) {
		tick = vm_hooks_call(vm, VM_HOOK_TICK, NULL);
		if (tick > 0)
			usleep((useconds_t)tick * 1000);
		used = drain(master, term, sizeof(term), used);
	}
	/* A message erases the line first, whoever writes it. */
	log_error("a message");
	used = drain(master, term, sizeof(term), used);
	vm_hooks_call(vm, VM_HOOK_RUN_ENDING, NULL);
	log_error("after the run");
	used = drain(master, term, sizeof(term), used);
	dup2(saved, STDERR_FILENO);

	CHECK(wanted);
	CHECK(tick >= 0);
	CHECK(c.calls >= 2); /* at the start, and for the draw */
	CHECK_CONTAINS(term, "\r\033[Kcsan-vmm: ");
	CHECK_CONTAINS(term, "watchpoints/s, 3 races");
	CHECK_CONTAINS(term, "\r\033[Kcsan-vmm: a message");
	/* Once the run ends the line is gone and messages are plain again. */
	CHECK(strstr(term, "after the run") && !strstr(term, "\033[Kcsan-vmm: after the run"));
	CHECK(vm_hooks_call(vm, VM_HOOK_TICK, NULL) == -1);
	check_format();
	if (check_failures)
		fprintf(stderr, "the terminal got: %s\n", term);
	vm_destroy(vm);
	close(slave);
	close(master);
	return check_exit_status("test-status-line");
}

/* emulated.c: csan-vmm runs itself inside the emulated host (--host=emulated). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmm/base/log.h"
#include "vmm/console/console_input.h"
#include "vmm/image/kernel_image.h"
#include "vmm/run/emulated.h"
#include "vmm/run/emulated_args.h"
#include "vmm/base/exit_status.h"
#include "vmm/run/guest_path.h"

/* The harness's own exit statuses (src/harness/emuhost.sh). */
enum {
	HARNESS_CANNOT_RUN = 77, /* something is missing here; one line says what */
	HARNESS_FAILED = 125,	 /* the emulated host did not boot, panicked, timed out */
	HARNESS_NO_COMMAND = 127,
};

/* Our child's status when the harness could not be started. */
#define EXEC_FAILED 126

static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* An absolute form of @path (which need not exist yet), malloc'd. */
static char *absolute(const char *path)
{
	char cwd[PATH_MAX];
	char *s;

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	return asprintf(&s, "%s/%s", cwd, path) < 0 ? NULL : s;
}

/*
 * The JSON files are written after the run, when the harness hands them
 * back; fail now, before a long run, if they cannot be.
 */
static int check_writable(const char *opt, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		log_error_errno(errno, "%s: cannot write %s", opt, path);
		return -1;
	}
	fclose(f);
	return 0;
}

/*
 * Start @argv (the harness) in a process group of its own, so a Ctrl-C on
 * our terminal reaches only us and is passed on once, by us.  Its stdin
 * is @stdin_fd (-1: /dev/null); stdout goes to @stdout_fd (-1: ours).
 */
static pid_t spawn(char **argv, int stdin_fd, int stdout_fd, const sigset_t *old_mask)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	setpgid(0, 0);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	if (stdin_fd < 0)
		stdin_fd = open("/dev/null", O_RDONLY);
	if (stdin_fd < 0 || dup2(stdin_fd, STDIN_FILENO) < 0 ||
	    (stdout_fd >= 0 && dup2(stdout_fd, STDOUT_FILENO) < 0))
		_exit(EXEC_FAILED);
	execv(argv[0], argv);
	log_error_errno(errno, "cannot run the emulated-host harness %s", argv[0]);
	_exit(EXEC_FAILED);
}

/* Copy what is waiting on @from to @to; false at end of input. */
static bool relay(int from, int to)
{
	char buf[256];
	ssize_t n = read(from, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	/* A vanished reader (the run is ending) only means the keys are moot. */
	return write(to, buf, (size_t)n) == n;
}

/*
 * Wait for @pid, passing on our signals and, with @relay_to >= 0, our
 * standard input.  Returns its wait status.
 */
static int supervise(pid_t pid, int sig_fd, int relay_to)
{
	struct pollfd pfd[2] = { { .fd = sig_fd, .events = POLLIN },
				 { .fd = relay_to >= 0 ? STDIN_FILENO : -1, .events = POLLIN } };
	struct signalfd_siginfo si;
	int status;

	/* SIGCHLD is read from sig_fd too, so poll wakes when the harness ends. */
	while (waitpid(pid, &status, WNOHANG) != pid) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR) {
			waitpid(pid, &status, 0);
			break;
		}
		if (pfd[1].revents && !relay(STDIN_FILENO, relay_to)) {
			close(relay_to); /* end of our input: end of theirs */
			pfd[1].fd = -1;
		}
		if ((pfd[0].revents & POLLIN) &&
		    read(sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si) && si.ssi_signo != SIGCHLD)
			kill(pid, (int)si.ssi_signo); /* the harness passes it on, then stops */
	}
	if (pfd[1].fd >= 0)
		close(relay_to);
	return status;
}

/* Block the signals we pass on, plus SIGCHLD, and read them from a signalfd. */
static int signals_take(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(forwarded_signals) / sizeof(forwarded_signals[0]); i++)
		sigaddset(&set, forwarded_signals[i]);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, old) < 0)
		return -errno;
	return signalfd(-1, &set, SFD_CLOEXEC);
}

/* Run @argv to its end; its wait status, or -1 with a message printed. */
static int run_harness(char **argv, bool relay_stdin, int stdout_fd)
{
	sigset_t old;
	int sig_fd, pipe_fd[2] = { -1, -1 }, status = -1;
	void (*old_pipe)(int);
	pid_t pid;

	sig_fd = signals_take(&old);
	if (sig_fd < 0) {
		log_error_errno(errno, "--host=emulated: signalfd");
		goto out;
	}
	if (relay_stdin && pipe2(pipe_fd, O_CLOEXEC) < 0) {
		log_error_errno(errno, "--host=emulated: pipe");
		goto out;
	}
	pid = spawn(argv, pipe_fd[0], stdout_fd, &old);
	if (pid < 0) {
		log_error_errno(errno, "--host=emulated: fork");
		goto out;
	}
	if (pipe_fd[0] >= 0)
		close(pipe_fd[0]);
	/* A write to a harness that has gone must fail, not kill us. */
	old_pipe = signal(SIGPIPE, SIG_IGN);
	status = supervise(pid, sig_fd, pipe_fd[1]);
	signal(SIGPIPE, old_pipe);
out:
	if (sig_fd >= 0)
		close(sig_fd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}

/* csan-vmm's exit status for the harness's wait status @ws. */
static int exit_status_of(int ws)
{
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	switch (WEXITSTATUS(ws)) {
	case HARNESS_CANNOT_RUN:
		log_error("--host=emulated: the emulated host cannot run here (the harness said "
			  "why, above)");
		return EXIT_USAGE;
	case HARNESS_FAILED:
		log_error("--host=emulated: the emulated host itself failed (QEMU or its kernel, "
			  "see above); this says nothing about the guest");
		return EXIT_USAGE;
	case HARNESS_NO_COMMAND:
	case EXEC_FAILED: return EXIT_USAGE;
	default: return WEXITSTATUS(ws);
	}
}

/* The harness's own verdict on this machine: 0 ready, else an exit status. */
static int harness_ready(const char *harness)
{
	char *argv[] = { (char *)harness, "--check", NULL };
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int ws = run_harness(argv, false, devnull);

	if (devnull >= 0)
		close(devnull);
	if (ws == -1)
		return EXIT_USAGE;
	return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : exit_status_of(ws);
}

static int self_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0) {
		log_error_errno(errno,
				"--host=emulated: cannot find this program (/proc/self/exe)");
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

int emulated_run(const struct options *o, const char *guest_path, const char *vmlinux)
{
	struct emu_inputs in = { .guest = guest_path };
	char self[PATH_MAX], why[512];
	char *harness = NULL, *report = NULL, *compare = NULL, **argv = NULL;
	char *disks[OPT_MAX_DISKS] = { NULL };
	unsigned i;
	struct stat st;
	int status = EXIT_USAGE, ws;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	harness = guest_path_harness(why, sizeof(why));
	if (!harness) {
		log_error("--host=emulated: %s", why);
		goto out;
	}
	if (self_path(self, sizeof(self)))
		goto out;
	if (stat(guest_path, &st) < 0) {
		log_error_errno(errno, "%s", guest_path);
		goto out;
	}
	in.guest_file_bytes = (unsigned long long)st.st_size;
	if (vmlinux && strcmp(vmlinux, KERNEL_VMLINUX_NONE) != 0) {
		if (stat(vmlinux, &st) < 0) {
			log_error_errno(errno, "%s", vmlinux);
			goto out;
		}
		in.guest_file_bytes += (unsigned long long)st.st_size;
	}
	in.vmlinux = vmlinux;
	if ((o->report_json && !(report = absolute(o->report_json))) ||
	    (o->compare_json && !(compare = absolute(o->compare_json)))) {
		log_error("out of memory");
		goto out;
	}
	for (i = 0; i < o->ndisks; i++) {
		if (!(disks[i] = absolute(o->disks[i].path))) {
			log_error("out of memory");
			goto out;
		}
		in.disks[i] = disks[i];
	}
	if ((report && check_writable("--report-json", report)) ||
	    (compare && check_writable("--compare-json", compare)))
		goto out;
	status = harness_ready(harness);
	if (status)
		goto out;
	in.harness = harness;
	in.self = self;
	in.report_json = report;
	in.compare_json = compare;
	in.host_cpus = ncpu > 0 ? (unsigned)ncpu : 1;
	in.relay_stdin = o->console_escapes == CONSOLE_ESCAPES_ON ||
			 (o->console_escapes == CONSOLE_ESCAPES_AUTO && console_is_our_tty(0));
	argv = emulated_argv(o, &in);
	if (!argv) {
		log_error("out of memory");
		status = EXIT_USAGE;
		goto out;
	}
	if (in.relay_stdin && isatty(STDIN_FILENO) &&
	    console_tty_make_raw(STDIN_FILENO, why, sizeof(why)))
		log_error("%s (keys go to the guest line by line)", why);
	ws = run_harness(argv, in.relay_stdin, -1);
	console_tty_put_back();
	status = ws == -1 ? EXIT_USAGE : exit_status_of(ws);
out:
	emulated_argv_free(argv);
	free(harness);
	free(report);
	free(compare);
	for (i = 0; i < OPT_MAX_DISKS; i++)
		free(disks[i]);
	return status;
}

int emulated_probe(FILE *out)
{
	char self[PATH_MAX], why[512], line[1024];
	char *harness = guest_path_harness(why, sizeof(why));
	char *argv[] = {
		harness, "--cpus=1", NULL, "--", "csan-vmm", "--host=kvm", "--probe", NULL
	};
	char *file_arg = NULL;
	FILE *tmp = NULL;
	int ws, status = 2;

	if (!harness) {
		fprintf(out, "emulated host: hardware-watchpoint mode: unavailable (%s)\n", why);
		return 2;
	}
	if (self_path(self, sizeof(self)) || asprintf(&file_arg, "--file=%s:" EMU_SELF, self) < 0)
		goto out;
	argv[2] = file_arg;
	status = harness_ready(harness);
	if (status) {
		fprintf(out, "emulated host: hardware-watchpoint mode: unavailable (the emulated "
			     "host cannot run here: see above)\n");
		status = 2;
		goto out;
	}
	tmp = tmpfile();
	if (!tmp)
		goto out;
	fflush(out);
	ws = run_harness(argv, false, fileno(tmp));
	rewind(tmp);
	while (fgets(line, sizeof(line), tmp))
		fprintf(out, "emulated host: %s", line);
	status = ws != -1 && WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : 2;
out:
	if (tmp)
		fclose(tmp);
	free(file_arg);
	free(harness);
	return status;
}

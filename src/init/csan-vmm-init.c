/* csan-vmm-init.c: the guest's first process for --run: mounts, CMD, its exit status to the host, power off. */
/*
 * Built with the host's gcc -static (no libraries needed in the guest)
 * and put in the initramfs at CSAN_WL_INIT; the kernel runs it through
 * rdinit=.  It is PID 1, so it never returns: whatever happens, it
 * reports a status (or says on the console why it cannot) and powers
 * the machine off, and csan-vmm sees the run end.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "csan/workload_abi.h"

#define CMD_MAX (1u << 20)

/* Messages go to the console with the same prefix the host's use. */
static void say(const char *fmt, ...)
{
	va_list ap;

	fputs("csan-vmm-init: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * One mount; a file system the kernel was built without (ENODEV: no
 * debugfs, say) is left out quietly, since CMD may not need it.
 */
static void mount_one(const char *src, const char *dir, const char *type, unsigned long flags,
		      const char *data)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, flags, data) < 0 && errno != EBUSY && errno != ENODEV)
		say("mount %s on %s: %s", type, dir, strerror(errno));
}

static void mount_all(void)
{
	mount_one("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_one("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount_one("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
	mount_one("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount_one("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
}

/*
 * Busybox's applets as links beside it, and /bin/sh when the user's
 * --initrd did not bring one: CMD runs under /bin/sh -c as the issue and
 * virtme-ng promise, and the user's own shell wins when there is one.
 */
static int install_busybox(void)
{
	pid_t pid = fork();
	int ws;

	if (pid == 0) {
		execl(CSAN_WL_BUSYBOX, "busybox", "--install", "-s", CSAN_WL_BIN, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws)) {
		say("%s --install failed: the applets are missing", CSAN_WL_BUSYBOX);
		return -1;
	}
	if (access("/bin/sh", X_OK) < 0) {
		mkdir("/bin", 0755);
		if (symlink(CSAN_WL_BUSYBOX, "/bin/sh") < 0) {
			say("cannot make /bin/sh: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* CMD as csan-vmm wrote it into the archive; NULL after a message. */
static char *read_cmd(void)
{
	int fd = open(CSAN_WL_CMD_FILE, O_RDONLY | O_CLOEXEC);
	char *buf = malloc(CMD_MAX + 1);
	ssize_t n = -1;

	if (fd >= 0 && buf)
		n = read(fd, buf, CMD_MAX);
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		say("cannot read %s: %s", CSAN_WL_CMD_FILE, strerror(errno));
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/*
 * Signals CMD's session leader leaves to CMD: what the terminal sends its
 * process group (^C, ^\, ^Z, a hangup), what "kill 0" in CMD sends to
 * it, and the stop a background group gets at tcsetpgrp.  The leader
 * ignores them; CMD gets them back at their defaults.
 */
static const int leader_ignores[] = { SIGINT, SIGQUIT, SIGTSTP, SIGHUP, SIGTERM, SIGTTOU };

static void set_leader_signals(void (*how)(int))
{
	size_t i;

	for (i = 0; i < sizeof(leader_ignores) / sizeof(leader_ignores[0]); i++)
		signal(leader_ignores[i], how);
}

/*
 * The child's side: a session of its own with the console as its
 * controlling terminal (so ^C from the host's terminal reaches CMD, not
 * PID 1), stdin/stdout/stderr on it, cwd /, then sh -c CMD in a child of
 * its own.  This process stays as the session's leader until CMD has
 * ended and the console has sent all CMD wrote: when a session leader
 * exits, the kernel hangs its controlling terminal up, and a hangup
 * throws away what is still in the terminal's transmit buffer (seen: the
 * tail of CMD's last line, cut after the UART's 16-byte FIFO load, in
 * one run of two).  It exits with CMD's status as sh reports one.
 */
static void lead_cmd_session(const char *cmd)
{
	pid_t pid;
	int fd, ws;

	setsid();
	fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		ioctl(fd, TIOCSCTTY, 0);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	if (chdir("/") < 0)
		_exit(126);
	set_leader_signals(SIG_IGN);
	pid = fork();
	if (pid < 0) {
		say("fork: %s", strerror(errno));
		_exit(126);
	}
	if (pid == 0) {
		set_leader_signals(SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		say("cannot run /bin/sh: %s", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &ws, 0) < 0) {
		if (errno != EINTR) {
			say("wait: %s", strerror(errno));
			_exit(126);
		}
	}
	/*
	 * CMD may have left another group in the foreground (a job-control
	 * shell): drain as the foreground group, or tcdrain fails with EIO.
	 */
	tcsetpgrp(1, getpgrp());
	tcdrain(1);
	_exit(WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws));
}

/*
 * Run @cmd and wait for it, reaping every orphan that PID 1 inherits on
 * the way.  Returns its status as sh reports one: the exit code, or
 * 128 + the signal that killed it.
 */
static int run_cmd(const char *cmd)
{
	pid_t pid = fork(), w;
	int ws;

	if (pid < 0) {
		say("fork: %s", strerror(errno));
		return 126;
	}
	if (pid == 0)
		lead_cmd_session(cmd);
	for (;;) {
		w = wait(&ws);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			say("wait: %s", strerror(errno));
			return 126;
		}
		if (w == pid)
			break;
	}
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return WEXITSTATUS(ws);
}

/*
 * The status to the host (workload_abi.h): outl after ioperm() where the
 * kernel has it, else the same four bytes through /dev/port.  Returns -1
 * after a message when neither way exists.
 */
static int report(int status)
{
	uint32_t v = CSAN_WL_MAGIC | ((unsigned)status & CSAN_WL_STATUS_MAX);
	int ioperm_err, fd;

	if (ioperm(CSAN_WL_PORT, CSAN_WL_PORT_COUNT, 1) == 0) {
		outl(v, CSAN_WL_PORT);
		return 0;
	}
	ioperm_err = errno;
	fd = open("/dev/port", O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && pwrite(fd, &v, sizeof(v), CSAN_WL_PORT) == (ssize_t)sizeof(v)) {
		close(fd);
		return 0;
	}
	say("cannot report the exit status to csan-vmm: ioperm: %s, /dev/port: %s (the kernel "
	    "needs CONFIG_X86_IOPL_IOPERM=y or CONFIG_DEVPORT=y)",
	    strerror(ioperm_err), strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Wait until everything written to the console has gone out of the UART. */
static void drain_console(void)
{
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return;
	tcdrain(fd);
	close(fd);
}

int main(void)
{
	char *cmd;
	int status = 126;

	if (getpid() != 1) {
		say("this is csan-vmm's init for a guest; it must run as PID 1");
		return 2;
	}
	/*
	 * No signal handling here: the kernel delivers to PID 1 only signals
	 * it handles, so ^C on the console reaches CMD (its session) alone.
	 */
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:" CSAN_WL_BIN,
	       1);
	setenv("HOME", "/", 0);
	setenv("TERM", "linux", 0);
	mount_all();
	cmd = read_cmd();
	if (cmd && install_busybox() == 0)
		status = run_cmd(cmd);
	/*
	 * CMD's last lines may still sit in the console's transmit buffer;
	 * powering off now would lose them (seen: the last line of a run).
	 */
	drain_console();
	report(status);
	sync();
	reboot(RB_POWER_OFF);
	say("power off failed: %s", strerror(errno));
	for (;;)
		pause();
}

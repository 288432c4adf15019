/* control_client.c: csan-vmm --control=PATH --send=COMMAND, the socket's client. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "vmm/base/log.h"
#include "vmm/run/control_client.h"
#include "vmm/run/control_cmd.h"

/* One reply line can hold every knob's name and value; beyond is cut. */
#define REPLY_LINE_MAX 1024

enum { SEND_OK = 0, SEND_ERROR_REPLY = 1, SEND_FAILED = 2 };

static int client_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_error("--control: '%s' is too long for a UNIX socket path", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		log_error("--control: cannot connect to '%s': %s (is a csan-vmm started with "
			  "--control=%s running?)",
			  path, strerror(errno), path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Read one byte, waiting at most CONTROL_CLIENT_TIMEOUT_S; 1, 0 at EOF, -1. */
static int read_byte(int fd, char *c)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int rc;

	do
		rc = poll(&p, 1, CONTROL_CLIENT_TIMEOUT_S * 1000);
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		errno = ETIMEDOUT;
	if (rc <= 0)
		return -1;
	do
		n = read(fd, c, 1);
	while (n < 0 && errno == EINTR);
	return (int)n;
}

/* Print the reply to @cmd up to its final line; returns a SEND_ status. */
static int read_reply(int fd, const char *path, const char *cmd)
{
	char line[REPLY_LINE_MAX];
	size_t len = 0;
	char c;
	int n;

	for (;;) {
		n = read_byte(fd, &c);
		if (n <= 0) {
			log_error("--control: '%s' %s before answering '%s'%s%s", path,
				  n == 0 ? "hung up" : "failed", cmd, n == 0 ? "" : ": ",
				  n == 0 ? "" : strerror(errno));
			return SEND_FAILED;
		}
		if (c != '\n') {
			if (len < sizeof(line) - 1)
				line[len++] = c;
			continue;
		}
		line[len] = '\0';
		len = 0;
		if (strcmp(line, "ok") == 0)
			return SEND_OK;
		if (strncmp(line, "error:", 6) == 0) {
			log_error("%s: %s", cmd, line);
			return SEND_ERROR_REPLY;
		}
		printf("%s\n", line);
	}
}

static bool send_line(int fd, const char *cmd)
{
	char buf[CONTROL_LINE_MAX + 2];
	size_t len = (size_t)snprintf(buf, sizeof(buf), "%s\n", cmd);
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		off += (size_t)n;
	}
	return true;
}

int control_client_send(const char *path, const char *const *cmds, size_t ncmds)
{
	int fd = client_connect(path);
	int status = SEND_OK;
	size_t i;

	if (fd < 0)
		return SEND_FAILED;
	for (i = 0; i < ncmds && status == SEND_OK; i++) {
		/* options_parse has checked each command's length and words. */
		if (!send_line(fd, cmds[i])) {
			log_error_errno(errno, "--control: cannot send to '%s'", path);
			status = SEND_FAILED;
		} else {
			status = read_reply(fd, path, cmds[i]);
		}
	}
	fflush(stdout);
	close(fd);
	return status;
}

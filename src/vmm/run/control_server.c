/* control_server.c: --control=PATH, the run-time control socket. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "vmm/base/log.h"
#include "vmm/run/control_cmd.h"
#include "vmm/run/control_server.h"
#include "vmm/kvm/vm.h"

/* Clients served at once; more wait in the listen backlog. */
#define CONTROL_MAX_CLIENTS 4
#define CONTROL_BACKLOG	    8

struct control_client {
	int fd;		 /* -1: free slot */
	bool discarding; /* the current line was too long: drop up to its newline */
	size_t len;
	char line[CONTROL_LINE_MAX + 1];
};

struct control_server {
	char *path;
	dev_t dev; /* the socket file we made, so we never remove someone else's */
	ino_t ino;
	int listen_fd;
	int wake_fd; /* eventfd: control_server_close asks the thread to leave */
	struct vm *vm;
	pthread_t thread;
	bool started;
	struct control_client clients[CONTROL_MAX_CLIENTS];
};

static int fill_addr(struct sockaddr_un *sa, const char *path, char *why, size_t whylen)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path)) {
		snprintf(why, whylen,
			 "--control: '%s' is %zu bytes long; a UNIX socket path must be "
			 "shorter than %zu: choose a shorter path",
			 path, strlen(path), sizeof(sa->sun_path));
		return -ENAMETOOLONG;
	}
	strcpy(sa->sun_path, path);
	return 0;
}

/*
 * Make room for the socket: nothing there, or a socket nobody answers on
 * (left by a csan-vmm that was killed), which is removed.
 */
static int clear_path(const char *path, const struct sockaddr_un *sa, char *why, size_t whylen)
{
	struct stat st;
	int fd, rc, e;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(why, whylen,
			 "--control: '%s' exists and is not a socket; remove it or choose "
			 "another path",
			 path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	e = errno; /* before close() can change it */
	close(fd);
	if (rc == 0) {
		snprintf(why, whylen,
			 "--control: '%s' is in use by another process (a running "
			 "csan-vmm?); choose another path",
			 path);
		return -EADDRINUSE;
	}
	if (e != ECONNREFUSED) {
		return why_errno(why, whylen, e, "--control: cannot check the existing socket '%s'",
				 path);
	}
	if (unlink(path) < 0) {
		return why_errno(why, whylen, errno,
				 "--control: cannot remove the stale socket '%s'", path);
	}
	return 0;
}

static int listen_on(struct control_server *s, const struct sockaddr_un *sa, char *why,
		     size_t whylen)
{
	struct stat st;

	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->listen_fd < 0 || bind(s->listen_fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 ||
	    listen(s->listen_fd, CONTROL_BACKLOG) < 0 || stat(s->path, &st) < 0) {
		int e = errno;

		snprintf(why, whylen, "--control: cannot create the socket '%s': %s%s", s->path,
			 strerror(e),
			 e == EACCES || e == ENOENT ? " (does its directory exist and is it "
						      "writable?)"
						    : "");
		return -e;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	return 0;
}

int control_server_open(const char *path, struct control_server **out, char *why, size_t whylen)
{
	struct control_server *s;
	struct sockaddr_un sa;
	int rc, i;

	rc = fill_addr(&sa, path, why, whylen);
	if (rc)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(path))) {
		free(s);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	s->listen_fd = s->wake_fd = -1;
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		s->clients[i].fd = -1;
	why[0] = '\0';
	rc = clear_path(path, &sa, why, whylen);
	if (rc && !why[0])
		snprintf(why, whylen, "--control: cannot use '%s': %s", path, strerror(-rc));
	if (!rc)
		rc = listen_on(s, &sa, why, whylen);
	if (!rc) {
		s->wake_fd = eventfd(0, EFD_CLOEXEC);
		if (s->wake_fd < 0) {
			rc = why_errno(why, whylen, errno, "--control: eventfd failed");
		}
	}
	if (rc) {
		control_server_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

static void client_close(struct control_client *c)
{
	close(c->fd);
	c->fd = -1;
	c->len = 0;
	c->discarding = false;
}

/*
 * Send without waiting: a reply is far smaller than a socket buffer, so a
 * send that would block means the client stopped reading; it is dropped
 * rather than allowed to stall the other clients.
 */
static bool client_send(struct control_client *c, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/* Run one complete line and send the reply; false when the client is gone. */
static bool client_line(struct control_server *s, struct control_client *c, const char *line)
{
	struct control_cmd cmd;
	enum control_after after = CONTROL_CONTINUE;
	char why[512], *text = NULL;
	size_t len = 0;
	FILE *reply;
	bool ok;

	reply = open_memstream(&text, &len);
	if (!reply)
		return client_send(c, "error: out of memory\n", 21);
	if (control_parse(line, &cmd, why, sizeof(why)))
		fprintf(reply, "error: %s\n", why);
	else
		after = control_run(s->vm, &cmd, reply);
	fclose(reply);
	ok = client_send(c, text, len);
	free(text);
	if (after == CONTROL_END_RUN)
		vm_end(s->vm, VM_END_QUIT, 0, 0);
	return ok;
}

/* Read what the client sent and run every complete line in it. */
static void client_input(struct control_server *s, struct control_client *c)
{
	char buf[512];
	ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	ssize_t i;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		client_close(c);
		return;
	}
	for (i = 0; i < n && c->fd >= 0; i++) {
		if (buf[i] != '\n') {
			if (c->discarding)
				continue;
			if (c->len < CONTROL_LINE_MAX) {
				c->line[c->len++] = buf[i];
				continue;
			}
			c->discarding = true;
			if (!client_send(c, "error: line too long\n", 21))
				client_close(c);
			continue;
		}
		c->line[c->len] = '\0';
		if (!c->discarding && !client_line(s, c, c->line)) {
			client_close(c);
			break;
		}
		c->len = 0;
		c->discarding = false;
	}
}

static void accept_client(struct control_server *s)
{
	int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	int i;

	if (fd < 0)
		return; /* EAGAIN, or the client gave up already */
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		if (s->clients[i].fd < 0) {
			s->clients[i].fd = fd;
			return;
		}
	}
	send(fd, "error: too many clients, try again later\n", 41, MSG_DONTWAIT | MSG_NOSIGNAL);
	close(fd);
}

static void *control_thread(void *arg)
{
	struct control_server *s = arg;
	struct pollfd pfd[2 + CONTROL_MAX_CLIENTS];
	int i;

	pthread_setname_np(pthread_self(), "csan-control");
	for (;;) {
		pfd[0] = (struct pollfd){ .fd = s->wake_fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
		for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
			pfd[2 + i] = (struct pollfd){ .fd = s->clients[i].fd, .events = POLLIN };
		if (poll(pfd, 2 + CONTROL_MAX_CLIENTS, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_error("--control: poll failed: %s; the socket stops serving",
				  strerror(errno));
			return NULL;
		}
		if (pfd[0].revents)
			return NULL;
		if (pfd[1].revents & POLLIN)
			accept_client(s);
		for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
			if (s->clients[i].fd >= 0 && pfd[2 + i].revents)
				client_input(s, &s->clients[i]);
	}
}

int control_server_start(struct control_server *s, struct vm *vm, char *why, size_t whylen)
{
	sigset_t all, old;
	int rc;

	s->vm = vm;
	/* The thread inherits this mask: SIGINT/SIGTERM stay vm_run's to read. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&s->thread, NULL, control_thread, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(why, whylen, "--control: cannot start its thread: %s", strerror(rc));
		return -rc;
	}
	s->started = true;
	return 0;
}

void control_server_close(struct control_server *s)
{
	uint64_t one = 1;
	struct stat st;
	int i;

	if (!s)
		return;
	if (s->started) {
		/* poll is a cancellation point: the fallback if the wake-up cannot be sent. */
		if (write(s->wake_fd, &one, sizeof(one)) != sizeof(one))
			pthread_cancel(s->thread);
		pthread_join(s->thread, NULL);
	}
	for (i = 0; i < CONTROL_MAX_CLIENTS; i++)
		if (s->clients[i].fd >= 0)
			client_close(&s->clients[i]);
	if (s->listen_fd >= 0) {
		close(s->listen_fd);
		if (s->ino && lstat(s->path, &st) == 0 && st.st_dev == s->dev &&
		    st.st_ino == s->ino)
			unlink(s->path);
	}
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	free(s->path);
	free(s);
}

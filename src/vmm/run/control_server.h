/* control_server.h: --control=PATH, the run-time control socket. */
#ifndef CSAN_VMM_CONTROL_SERVER_H
#define CSAN_VMM_CONTROL_SERVER_H

#include <stddef.h>

struct vm;
struct control_server;

/*
 * control_server_open - create the UNIX stream socket @path and listen on
 * it, before the guest boots, so a bad path is refused at once.  A stale
 * socket left by a csan-vmm that died is replaced; a path that is not a
 * socket, or a socket someone still serves, is refused.  Returns 0 with
 * the server in @out, or a negative errno with a message naming --control
 * and what to do in @why (@whylen bytes).
 */
int control_server_open(const char *path, struct control_server **out, char *why, size_t whylen);

/*
 * control_server_start - serve commands for @vm on a thread of its own
 * (all signals blocked there, as vm_run requires of other threads).
 * Returns 0, or a negative errno with a message in @why.
 */
int control_server_start(struct control_server *s, struct vm *vm, char *why, size_t whylen);

/*
 * control_server_close - stop the thread, hang up on clients, remove the
 * socket file (if it is still ours) and free @s; NULL is a no-op.
 */
void control_server_close(struct control_server *s);

#endif /* CSAN_VMM_CONTROL_SERVER_H */

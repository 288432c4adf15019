/* control_client.h: csan-vmm --control=PATH --send=COMMAND, the socket's client. */
#ifndef CSAN_VMM_CONTROL_CLIENT_H
#define CSAN_VMM_CONTROL_CLIENT_H

#include <stddef.h>

/* How long the client waits for a reply before giving up, in seconds. */
#define CONTROL_CLIENT_TIMEOUT_S 30

/*
 * control_client_send - connect to the control socket @path, send the
 * @ncmds commands @cmds in turn, print each reply's lines on stdout but
 * its final "ok", and stop at the first "error: ..." reply, which goes to
 * stderr.  Returns 0 when every command was answered "ok", 1 after an
 * error reply, 2 when the socket cannot be reached or stops answering
 * (said on stderr, naming --control and what to check).
 */
int control_client_send(const char *path, const char *const *cmds, size_t ncmds);

#endif /* CSAN_VMM_CONTROL_CLIENT_H */

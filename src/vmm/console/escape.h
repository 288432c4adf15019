/* escape.h: Ctrl-a escape keys on the host terminal, decoded byte by byte. */
#ifndef CSAN_VMM_ESCAPE_H
#define CSAN_VMM_ESCAPE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Ctrl-a, as QEMU's character-device multiplexer uses it. */
#define ESCAPE_CHAR 0x01

enum escape_action {
	ESCAPE_NONE,	/* nothing yet: the byte started an escape */
	ESCAPE_INPUT,	/* a byte for the guest (also Ctrl-a Ctrl-a's literal Ctrl-a) */
	ESCAPE_HELP,	/* Ctrl-a h */
	ESCAPE_WATCH,	/* Ctrl-a w: toggle hw/soft */
	ESCAPE_STATS,	/* Ctrl-a s */
	ESCAPE_QUIT,	/* Ctrl-a x */
	ESCAPE_UNKNOWN, /* Ctrl-a and a key with no meaning */
};

struct escape_state {
	bool after_escape; /* the last byte was a lone Ctrl-a */
};

/*
 * escape_feed - decode @byte typed on the terminal, given what came before
 * (@st, zeroed at start).  With ESCAPE_INPUT the byte to hand on is in
 * *@input.  Never fails.
 */
enum escape_action escape_feed(struct escape_state *st, uint8_t byte, uint8_t *input);

/* escape_help - the escape keys, one "csan-vmm:" line each, on @f. */
void escape_help(FILE *f);

#endif /* CSAN_VMM_ESCAPE_H */

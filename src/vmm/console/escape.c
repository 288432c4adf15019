/* escape.c: Ctrl-a escape keys on the host terminal, decoded byte by byte. */
#include "config.h"

#include "vmm/base/log.h"
#include "vmm/console/escape.h"

enum escape_action escape_feed(struct escape_state *st, uint8_t byte, uint8_t *input)
{
	if (!st->after_escape) {
		if (byte == ESCAPE_CHAR) {
			st->after_escape = true;
			return ESCAPE_NONE;
		}
		*input = byte;
		return ESCAPE_INPUT;
	}
	st->after_escape = false;
	switch (byte) {
	case ESCAPE_CHAR: *input = ESCAPE_CHAR; return ESCAPE_INPUT;
	case 'h':
	case 'H':
	case '?': return ESCAPE_HELP;
	case 'w':
	case 'W': return ESCAPE_WATCH;
	case 's':
	case 'S': return ESCAPE_STATS;
	case 'x':
	case 'X': return ESCAPE_QUIT;
	default: return ESCAPE_UNKNOWN;
	}
}

void escape_help(FILE *f)
{
	fprintf(f, LOG_PREFIX
		"escape keys (Ctrl-a, then):\n" LOG_PREFIX "  h    this help\n" LOG_PREFIX
		"  w    switch watch mode between soft and hw\n" LOG_PREFIX
		"  s    the guest runtime's counters and the races so far\n" LOG_PREFIX
		"  x    end the run (summary printed, as with the control "
		"socket's quit)\n" LOG_PREFIX "  C-a  send a Ctrl-a to the guest\n" LOG_PREFIX
		"other keys would go to the guest's serial input, which "
		"csan-vmm does not model: they are dropped\n");
}

/* fuzz-knobs.c: the guest runtime's csan.NAME=VALUE command-line parser. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csan/abi.h"

/*
 * knobs.c is the guest's own file, compiled for the host; these are the
 * port functions it calls, and its globals.
 */
extern struct csan_control csan_control;
void csan_init(const char *cmdline);
uint32_t csan_port_random(void);
bool csan_port_attach(struct csan_control *c);
void csan_port_printf(const char *fmt, ...);
uint64_t csan_watchpoints[1];

uint32_t csan_port_random(void)
{
	return 12345;
}

bool csan_port_attach(struct csan_control *c)
{
	return false;
}

void csan_port_printf(const char *fmt, ...)
{
}

/* Each knob's maximum, from the list the parser itself uses. */
#define KNOB_MAX(field, maximum) { offsetof(struct csan_control, field), maximum },
static const struct {
	size_t offset;
	uint32_t max;
} limits[] = { CSAN_KNOB_LIST(KNOB_MAX) };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct csan_control defaults;
	static bool saved;
	char *line;
	size_t i;

	if (!saved) {
		defaults = csan_control;
		saved = true;
	}
	csan_control = defaults;
	line = strndup((const char *)data, size);
	if (!line)
		return 0;
	csan_init(line);
	/* Whatever the command line says, no knob leaves its range. */
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		uint32_t v;

		memcpy(&v, (const char *)&csan_control + limits[i].offset, sizeof(v));
		if (v > limits[i].max)
			abort();
	}
	if (csan_control.magic != CSAN_CONTROL_MAGIC || csan_control.size != sizeof(csan_control))
		abort(); /* a knob write landed outside the knobs */
	free(line);
	return 0;
}

/* fuzz-options.c: the command line, as NUL-separated words. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/guest/profile.h"
#include "vmm/run/options.h"

#define FUZZ_MAX_ARGS 32

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[FUZZ_MAX_ARGS + 2];
	struct options o;
	char *copy, *p, *end;
	int argc = 0;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	/* A copy with a NUL after the last word, as the kernel builds argv. */
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[argc++] = "csan-vmm";
	for (p = copy, end = copy + size; p <= end && argc <= FUZZ_MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	memset(&o, 0, sizeof(o));
	if (options_parse(argc, argv, &o, devnull) == 0 && o.action == OPT_RUN) {
		/* What main builds next from an accepted command line. */
		free(csan_profile.cmdline(o.scenario, o.seed, o.append, o.kaslr));
	}
	options_free(&o);
	free(copy);
	return 0;
}

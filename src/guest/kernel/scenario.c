/* scenario.c: the scenario registry: find one by name, run it, report. */
#include <stdarg.h>

#include <csan/abi.h>

#include "cmdline.h"
#include "kstring.h"
#include "platform.h"
#include "printk.h"
#include "scenario.h"

/* guest.lds: the bounds of CSAN_SCENARIO_SECTION. */
extern const struct csan_scenario_desc __start_csan_scenarios[], __stop_csan_scenarios[];

#define RESULT_MAX 384
static char result_buf[RESULT_MAX];
static size_t result_len;
static const char *running_name;

static const char *desc_name(const struct csan_scenario_desc *d)
{
	return (const char *)(uintptr_t)d->name;
}

static const struct csan_scenario_desc *scenario_find(const char *name)
{
	const struct csan_scenario_desc *d;

	for (d = __start_csan_scenarios; d < __stop_csan_scenarios; d++)
		if (!strcmp(desc_name(d), name))
			return d;
	return NULL;
}

void csan_result_add(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (result_len + 2 >= sizeof(result_buf))
		return;
	result_buf[result_len++] = ' ';
	va_start(ap, fmt);
	n = vsnprintf(result_buf + result_len, sizeof(result_buf) - result_len, fmt, ap);
	va_end(ap);
	result_len += (size_t)n;
	if (result_len > sizeof(result_buf) - 1)
		result_len = sizeof(result_buf) - 1;
}

uint64_t csan_seed(void)
{
	return cmdline_get_u64("seed", 0);
}

const char *csan_scenario_name(void)
{
	return running_name;
}

static __noreturn void unknown_scenario(const char *name)
{
	const struct csan_scenario_desc *d;
	char list[256];
	size_t n = 0;

	for (d = __start_csan_scenarios; d < __stop_csan_scenarios && n < sizeof(list); d++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, " %s", desc_name(d));
	printk("csan-guest: unknown scenario '%s'; this guest has:%s\n", name, list);
	platform_exit(GUEST_EXIT_USAGE);
}

__noreturn void scenario_run(const char *name)
{
	const struct csan_scenario_desc *d = scenario_find(name);
	int (*run)(void);
	int rc;

	if (!d)
		unknown_scenario(name);
	running_name = desc_name(d);
	run = (int (*)(void))(uintptr_t)d->run;
	rc = run();
	/* The one machine-readable line the test suite looks for. */
	printk("csan-result: scenario=%s status=%s%s\n", running_name, rc ? "fail" : "pass",
	       result_buf);
	platform_exit(rc ? GUEST_EXIT_FAIL : GUEST_EXIT_PASS);
}

/* compare_modes.c: the watch modes --compare runs, as a set: names, parsing, order. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vmm/run/compare_modes.h"

static const char *const mode_names[COMPARE_NMODES] = {
	[COMPARE_SOFT] = "soft",
	[COMPARE_HW] = "hw",
	[COMPARE_SAMPLE] = "sample",
};

const char *compare_mode_name(enum compare_mode m)
{
	return (unsigned)m < COMPARE_NMODES ? mode_names[m] : "?";
}

/* The mode named by @len bytes at @name, or COMPARE_NMODES. */
static enum compare_mode mode_by_name(const char *name, size_t len)
{
	int m;

	for (m = 0; m < COMPARE_NMODES; m++)
		if (strlen(mode_names[m]) == len && strncmp(name, mode_names[m], len) == 0)
			return (enum compare_mode)m;
	return COMPARE_NMODES;
}

int compare_modes_parse(const char *list, unsigned *modes)
{
	unsigned set = 0;
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, ",");
		enum compare_mode m = mode_by_name(p, len);

		if (m == COMPARE_NMODES || (set & COMPARE_BIT(m)))
			return -EINVAL;
		set |= COMPARE_BIT(m);
		if (!p[len])
			break;
		p += len + 1;
	}
	*modes = set;
	return 0;
}

const char *compare_modes_format(unsigned modes, const char *sep, char *buf, size_t len)
{
	size_t used = 0;
	int m;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (m = 0; m < COMPARE_NMODES && used < len; m++)
		if (modes & COMPARE_BIT(m))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? sep : "",
						 mode_names[m]);
	return buf;
}

int compare_modes_count(unsigned modes)
{
	return __builtin_popcount(modes & COMPARE_ALL_MODES);
}

enum compare_mode compare_modes_first(unsigned modes)
{
	int m;

	for (m = 0; m < COMPARE_NMODES; m++)
		if (modes & COMPARE_BIT(m))
			return (enum compare_mode)m;
	return COMPARE_NMODES;
}

/* sample_filter.c: a site table cut down to the functions a user names (--sample-only). */
#include <fnmatch.h>
#include <string.h>

#include "watch/sample_sites.h"
#include "watch/sym.h"

bool sample_patterns_match(const char *patterns, const char *name)
{
	char pat[SAMPLE_PATTERN_MAX + 1];
	const char *p = patterns;

	while (*p) {
		size_t len = strcspn(p, ",");

		/* A pattern too long for the buffer matches nothing rather than a prefix of it. */
		if (len && len <= SAMPLE_PATTERN_MAX) {
			memcpy(pat, p, len);
			pat[len] = '\0';
			if (fnmatch(pat, name, 0) == 0)
				return true;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

size_t sample_table_keep_functions(struct sample_table *t, struct sym *sym, const char *patterns)
{
	size_t i, n, retired = 0;

	sample_table_sort(t);
	n = sample_table_count(t);
	for (i = 0; i < n; i++) {
		const struct sample_site *s = sample_table_site(t, i);
		const char *name = NULL;
		uint64_t start, size;

		if (s->retired)
			continue;
		if (sym_function_at(sym, s->addr, &start, &size, &name) == 0 && name &&
		    sample_patterns_match(patterns, name))
			continue;
		sample_table_retire(t, s->addr);
		retired++;
	}
	return retired;
}

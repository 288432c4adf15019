/* sample_module.c: a sampling-site table of one loaded Linux module's text. */
#include <errno.h>
#include <stdio.h>

#include "watch/sample_sites_priv.h"

/*
 * The functions of one text section: each start restarts the sweep, and
 * a handler function's range is left out, as for the vmlinux.  Between
 * functions lies alignment padding of a few bytes, stepped over one at a
 * time.
 */
static int add_functions(struct sample_table *t, const struct sample_module_text *s,
			 sample_function_at_fn fn_at, void *ctx)
{
	uint64_t pos = s->addr, end = s->addr + s->len;

	while (pos < end) {
		uint64_t start, size;
		const char *name = NULL;

		if (fn_at(ctx, pos, &start, &size, &name) != 0 || !size || pos < start ||
		    pos >= start + size) {
			pos++;
			continue;
		}
		if (start >= s->addr && sample_table_add_function(t, start))
			return -ENOMEM;
		if (name && sample_handler_function(name) &&
		    sample_table_exclude(t, start, start + size, SAMPLE_SKIP_HANDLER_FUNCTION))
			return -ENOMEM;
		pos = start + size;
	}
	return 0;
}

int sample_table_from_module(const struct sample_module_text *text, unsigned ntext,
			     const uint64_t *may_fault, size_t nfault, sample_function_at_fn fn_at,
			     void *ctx, struct sample_table **out, char *why, size_t whylen)
{
	struct sample_table *t = sample_table_new();
	size_t i;
	int rc = 0;

	*out = NULL;
	if (!t) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < nfault && !rc; i++)
		rc = sample_table_exclude(t, may_fault[i], may_fault[i] + 1, SAMPLE_SKIP_MAY_FAULT);
	for (i = 0; i < ntext && fn_at && !rc; i++)
		rc = add_functions(t, &text[i], fn_at, ctx);
	if (rc) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	for (i = 0; i < ntext; i++) {
		rc = sample_table_add_code(t, text[i].bytes, text[i].len, text[i].addr, why,
					   whylen);
		if (rc)
			goto fail;
	}
	if (!t->stats.text_bytes) {
		snprintf(why, whylen, "no text to sample");
		rc = -EINVAL;
		goto fail;
	}
	sample_table_sort(t);
	*out = t;
	return 0;
fail:
	sample_table_free(t);
	return rc;
}

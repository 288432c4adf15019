/* cmdline.c: the guest command line: split into key=value words. */
#include "cmdline.h"
#include "csan.h"
#include "kstring.h"
#include "printk.h"

/*
 * The keys the guest knows, and the race detector's csan.* knobs (the
 * runtime's list); anything else gets a warning (the VMM's --append
 * passes text through unchecked, and a typo should be visible without
 * stopping the run).
 */
static const char *const known_keys[] = {
	"scenario", /* which scenario to run (default: selftest) */
	"seed",	    /* seed for scenarios' pseudo-random choices */
	"timer_hz", /* local APIC timer rate (default: 1000) */
};

#define CMDLINE_MAX_WORDS 64
#define CMDLINE_BUF	  1024

static char words_buf[CMDLINE_BUF];
static struct {
	const char *key;
	const char *value;
} words[CMDLINE_MAX_WORDS];
static unsigned int nwords;

static bool key_known(const char *key)
{
	unsigned int i;

	if (!strncmp(key, "csan.", 5))
		return csan_knob_known(key + 5);
	for (i = 0; i < ARRAY_SIZE(known_keys); i++)
		if (!strcmp(key, known_keys[i]))
			return true;
	return false;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void cmdline_parse(const char *line)
{
	char *p = words_buf;

	if (strlcpy(words_buf, line, sizeof(words_buf)) >= sizeof(words_buf))
		printk("cmdline: longer than %u bytes; the rest is ignored\n", CMDLINE_BUF - 1);
	nwords = 0;
	for (;;) {
		char *word, *eq;

		while (is_space(*p))
			p++;
		if (!*p)
			break;
		word = p;
		while (*p && !is_space(*p))
			p++;
		if (*p)
			*p++ = '\0';

		eq = word;
		while (*eq && *eq != '=')
			eq++;
		if (!*eq) {
			printk("cmdline: ignoring '%s': not key=value\n", word);
			continue;
		}
		*eq = '\0';
		if (!key_known(word))
			printk("cmdline: warning: unknown key '%s' (ignored)\n", word);
		if (nwords == CMDLINE_MAX_WORDS) {
			printk("cmdline: more than %u words; ignoring '%s' and the rest\n",
			       CMDLINE_MAX_WORDS, word);
			break;
		}
		words[nwords].key = word;
		words[nwords].value = eq + 1;
		nwords++;
	}
}

const char *cmdline_get(const char *key)
{
	unsigned int i;

	/* The last one wins, so --append can override what the VMM set. */
	for (i = nwords; i-- > 0;)
		if (!strcmp(words[i].key, key))
			return words[i].value;
	return NULL;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

uint64_t cmdline_get_u64(const char *key, uint64_t def)
{
	const char *s = cmdline_get(key);
	uint64_t v;

	if (!s)
		return def;
	if (!parse_u64(s, &v)) {
		printk("cmdline: %s=%s is not a number; using %lu\n", key, s, (unsigned long)def);
		return def;
	}
	return v;
}

/* json-check.h: a strict little JSON syntax check for the report tests. */
#ifndef CSAN_TESTS_JSON_CHECK_H
#define CSAN_TESTS_JSON_CHECK_H

#include <stdbool.h>
#include <string.h>

/*
 * Enough of RFC 8259 to catch what a formatter gets wrong: unbalanced
 * brackets, missing commas or colons, bad escapes, raw control characters
 * in strings, trailing garbage.  Each function advances *p past one value.
 */
static bool json_value(const char **p, int depth);

static void json_ws(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
		(*p)++;
}

static bool json_string(const char **p)
{
	if (*(*p)++ != '"')
		return false;
	for (;;) {
		unsigned char c = (unsigned char)*(*p)++;

		if (c == '"')
			return true;
		if (c < 0x20)
			return false;
		if (c == '\\') {
			c = (unsigned char)*(*p)++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++, (*p)++)
					if (!strchr("0123456789abcdefABCDEF", **p) || !**p)
						return false;
			} else if (!c || !strchr("\"\\/bfnrt", c)) {
				return false;
			}
		}
	}
}

static bool json_number(const char **p)
{
	const char *s = *p;

	if (**p == '-')
		(*p)++;
	while ((**p >= '0' && **p <= '9') || **p == '.' || **p == 'e' || **p == 'E' || **p == '+' ||
	       **p == '-')
		(*p)++;
	return *p > s && (s[0] != '-' || *p > s + 1);
}

/* An object or array: @close is '}' or ']', @keyed says members have keys. */
static bool json_members(const char **p, int depth, char close, bool keyed)
{
	(*p)++;
	json_ws(p);
	if (**p == close) {
		(*p)++;
		return true;
	}
	for (;;) {
		json_ws(p);
		if (keyed) {
			if (!json_string(p))
				return false;
			json_ws(p);
			if (*(*p)++ != ':')
				return false;
		}
		if (!json_value(p, depth + 1))
			return false;
		json_ws(p);
		if (**p == close) {
			(*p)++;
			return true;
		}
		if (*(*p)++ != ',')
			return false;
	}
}

static bool json_value(const char **p, int depth)
{
	json_ws(p);
	if (depth > 32)
		return false;
	switch (**p) {
	case '{': return json_members(p, depth, '}', true);
	case '[': return json_members(p, depth, ']', false);
	case '"': return json_string(p);
	case 't': return strncmp(*p, "true", 4) == 0 && (*p += 4);
	case 'f': return strncmp(*p, "false", 5) == 0 && (*p += 5);
	case 'n': return strncmp(*p, "null", 4) == 0 && (*p += 4);
	default: return json_number(p);
	}
}

/* json_line_ok - @s is exactly one JSON object followed by one newline. */
static inline bool json_line_ok(const char *s)
{
	const char *p = s;

	if (*p != '{' || !json_value(&p, 0))
		return false;
	return p[0] == '\n' && p[1] == '\0';
}

#endif

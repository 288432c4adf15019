/* cmdline.h: the guest command line: key=value words. */
#ifndef GUEST_CMDLINE_H
#define GUEST_CMDLINE_H

#include "compiler.h"

/*
 * cmdline_parse - split @line into words and check them against the known
 * keys; unknown keys and words without '=' get a warning, not a failure.
 */
void cmdline_parse(const char *line);

/* cmdline_get - the value of the last @key=value word, or NULL. */
const char *cmdline_get(const char *key);

/*
 * cmdline_get_u64 - parse @key's value as a decimal or 0x-hex number.
 * Returns @def when the key is absent, and also (with a warning) when the
 * value is not a number.
 */
uint64_t cmdline_get_u64(const char *key, uint64_t def);

#endif /* GUEST_CMDLINE_H */

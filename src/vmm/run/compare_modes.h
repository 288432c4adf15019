/* compare_modes.h: the watch modes --compare runs, as a set: names, parsing, order. */
#ifndef CSAN_VMM_COMPARE_MODES_H
#define CSAN_VMM_COMPARE_MODES_H

#include <stddef.h>

/* In the order they run and print: each later mode is measured against the first. */
enum compare_mode { COMPARE_SOFT, COMPARE_HW, COMPARE_SAMPLE, COMPARE_NMODES };

#define COMPARE_BIT(m)	  (1u << (m))
#define COMPARE_ALL_MODES (COMPARE_BIT(COMPARE_NMODES) - 1)
/*
 * Plain --compare: soft and hw.  Sampling is asked for by name
 * (--compare=soft,hw,sample): it needs a Linux kernel and its vmlinux,
 * and over a whole kernel a short run rarely samples a given race.
 */
#define COMPARE_DEFAULT_MODES (COMPARE_BIT(COMPARE_SOFT) | COMPARE_BIT(COMPARE_HW))
/* The modes that need data watchpoints on the host (the probe's question). */
#define COMPARE_HW_MODES (COMPARE_BIT(COMPARE_HW) | COMPARE_BIT(COMPARE_SAMPLE))

/* Each mode of @set (COMPARE_BIT), in run order, in int @m. */
#define for_each_mode(m, set)                                                                      \
	for ((m) = 0; (m) < COMPARE_NMODES; (m)++)                                                 \
		if ((set)&COMPARE_BIT(m))

/* compare_mode_name - "soft", "hw" or "sample". */
const char *compare_mode_name(enum compare_mode m);

/*
 * compare_modes_parse - a comma-separated list of mode names ("soft,hw,
 * sample"; order free, each at most once) into a COMPARE_BIT set in
 * *@modes.  Returns 0, or -EINVAL for an empty list, an unknown name or
 * a repeated one (*@modes untouched).
 */
int compare_modes_parse(const char *list, unsigned *modes);

/*
 * compare_modes_format - @modes as a list compare_modes_parse reads back,
 * in run order, joined by @sep ("," or "+"), into @buf (@len bytes,
 * truncated).  Returns @buf.
 */
const char *compare_modes_format(unsigned modes, const char *sep, char *buf, size_t len);

/* compare_modes_count - how many modes @modes holds. */
int compare_modes_count(unsigned modes);

/* compare_modes_first - the first mode of @modes in run order; COMPARE_NMODES if none. */
enum compare_mode compare_modes_first(unsigned modes);

#endif /* CSAN_VMM_COMPARE_MODES_H */

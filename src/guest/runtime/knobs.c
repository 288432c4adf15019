/* knobs.c: the control block: knobs (csan.NAME=), counters, start-up. */
#include "internal.h"

struct csan_cpu csan_cpus[CSAN_MAX_CPUS];

/*
 * KCSAN's defaults (CONFIG_KCSAN_SKIP_WATCH=4000, UDELAY_TASK=80,
 * UDELAY_INTERRUPT=20, the others as Linux builds them by default).
 * Disabled until csan_init(): before that, per-CPU state may not exist.
 */
struct csan_control csan_control __attribute__((aligned(64))) = {
	.magic = CSAN_CONTROL_MAGIC,
	.size = sizeof(struct csan_control),
	.ncounters = CSAN_COUNTER_MAX,
	.enabled = 0,
	.skip_watch = 4000,
	.udelay_task = 80,
	.udelay_interrupt = 20,
	.interrupt_watcher = 0,
	.report_value_change_only = 1,
	.assume_plain_writes_atomic = 1,
	.report_unknown_origin = 1,
};

/* The knob list is the ABI header's, shared with the host's control socket. */
#define KNOB_ENTRY(field, maximum) { #field, offsetof(struct csan_control, field), maximum },
static const struct knob {
	const char *name;
	size_t offset;
	uint32_t max;
} knobs[] = { CSAN_KNOB_LIST(KNOB_ENTRY) };
#undef KNOB_ENTRY

/* KCSAN's debugfs names, so numbers compare at a glance. */
static const char *const counter_names[] = CSAN_COUNTER_NAMES_INIT;
_Static_assert(sizeof(counter_names) / sizeof(counter_names[0]) == CSAN_COUNTER_MAX,
	       "a name for every counter");

static int str_eq(const char *a, const char *b, size_t blen)
{
	size_t i;

	for (i = 0; i < blen; i++)
		if (a[i] != b[i])
			return 0;
	return a[blen] == '\0';
}

static const struct knob *knob_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (str_eq(knobs[i].name, name, len))
			return &knobs[i];
	return NULL;
}

int csan_knob_known(const char *name)
{
	size_t len = 0;

	while (name[len])
		len++;
	return knob_find(name, len) != NULL;
}

bool csan_knob_get(const char *name, uint32_t *value)
{
	const struct knob *k;
	size_t len = 0;

	while (name[len])
		len++;
	k = knob_find(name, len);
	if (!k)
		return false;
	*value = CSAN_READ(*(const uint32_t *)((const char *)&csan_control + k->offset));
	return true;
}

/* Decimal or 0x-hex, or y/n for booleans as Linux module parameters take them. */
static bool parse_value(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	unsigned int base = 10;
	size_t i = 0;

	if (len == 1 && (s[0] == 'y' || s[0] == 'Y' || s[0] == 'n' || s[0] == 'N')) {
		*out = (s[0] == 'y' || s[0] == 'Y');
		return true;
	}
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		unsigned int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = (unsigned int)(s[i] - '0');
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = (unsigned int)(s[i] - 'a' + 10);
		else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
			d = (unsigned int)(s[i] - 'A' + 10);
		else
			return false;
		if (v > (UINT32_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/* One csan.NAME=VALUE word (without "csan."); complains and ignores a bad one. */
static void knob_word(const char *w, size_t len)
{
	size_t eq = 0;
	const struct knob *k;
	uint64_t v;

	while (eq < len && w[eq] != '=')
		eq++;
	k = eq < len ? knob_find(w, eq) : NULL;
	if (!k) {
		/* The kernel's command-line parser already warned about it. */
		return;
	}
	if (!parse_value(w + eq + 1, len - eq - 1, &v) || v > k->max) {
		csan_port_printf("csan: ignoring a bad value for csan.%s: want a number up to %u\n",
				 k->name, k->max);
		return;
	}
	CSAN_WRITE(*(uint32_t *)((char *)&csan_control + k->offset), (uint32_t)v);
}

/* Apply every csan.NAME=VALUE word of @line; the last one of a name wins. */
static void knobs_parse(const char *line)
{
	const char *p = line;

	while (p && *p) {
		const char *w;
		size_t len = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		w = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			p++;
		len = (size_t)(p - w);
		if (len > 5 && w[0] == 'c' && w[1] == 's' && w[2] == 'a' && w[3] == 'n' &&
		    w[4] == '.')
			knob_word(w + 5, len - 5);
	}
}

/*
 * A number in [0, bound): Numerical Recipes' LCG, as KCSAN uses for the
 * same job.  Quality hardly matters; cost does, and it is per CPU.
 *
 * Scaled from the state's high bits, never taken modulo @bound: an LCG
 * modulo 2^32 has low bits of short period (bit k repeats every 2^(k+1)
 * draws), and a watch draws twice (its skip, its delay), so "% bound"
 * gave every skip the same residue mod 4 on a CPU.  A loop of four
 * sampled accesses then had the same two of them watched every time and
 * the other two never: whether range-memcpy's copy was ever watched
 * turned on the seed (20 s and 25,000 watchpoints without a report, in
 * either watch mode, on seeds 2 and 4).
 */
uint32_t csan_random(struct csan_cpu *c, uint32_t bound)
{
	c->rand = 1664525u * c->rand + 1013904223u;
	return (uint32_t)(((uint64_t)c->rand * bound) >> 32);
}

bool csan_watch_hw(void)
{
	return csan_knob(watch_hw) != 0;
}

uint64_t csan_counter(unsigned int c)
{
	return c < CSAN_COUNTER_MAX ? __atomic_load_n(&csan_control.counters[c], __ATOMIC_RELAXED)
				    : 0;
}

const char *csan_counter_name(unsigned int c)
{
	return c < CSAN_COUNTER_MAX ? counter_names[c] : NULL;
}

/* Append @s to @buf of @size at *@n, always leaving room for the NUL. */
static void append(char *buf, size_t size, size_t *n, const char *s)
{
	while (*s && *n + 1 < size)
		buf[(*n)++] = *s++;
	buf[*n] = '\0';
}

static void append_u64(char *buf, size_t size, size_t *n, uint64_t v)
{
	char digits[24];
	int d = (int)sizeof(digits) - 1;

	digits[d] = '\0';
	do {
		digits[--d] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	append(buf, size, n, &digits[d]);
}

void csan_counters_print(void)
{
	char line[384];
	size_t n = 0;
	unsigned int c;

	line[0] = '\0';
	for (c = 0; c < CSAN_COUNTER_MAX; c++) {
		append(line, sizeof(line), &n, c ? " " : "");
		append(line, sizeof(line), &n, counter_names[c]);
		append(line, sizeof(line), &n, "=");
		append_u64(line, sizeof(line), &n, csan_counter(c));
	}
	csan_port_printf("csan: counters: %s\n", line);
}

void csan_init(const char *cmdline)
{
	uint32_t seed = csan_port_random();
	bool attached;
	unsigned int cpu;

	csan_control.enabled = 1;
	knobs_parse(cmdline);
	for (cpu = 0; cpu < CSAN_MAX_CPUS; cpu++) {
		struct csan_cpu *c = &csan_cpus[cpu];
		uint32_t skip = csan_knob(skip_watch);

		/* Different streams per CPU, or they would pick the same delays. */
		c->rand = seed ^ (cpu * 0x9e3779b9u);
		/*
		 * A random start too (KCSAN starts at 0): otherwise every CPU
		 * watches its first access, and CPUs that start work together
		 * watch each other's first accesses at once.
		 */
		c->skip = skip ? (long)(skip - csan_random(c, skip)) : 0;
	}
	/* For hardware-watchpoint mode: how the host tells a data_race() access. */
	csan_control.disable_base = (uintptr_t)&csan_cpus[0].task.disable_count;
	csan_control.disable_stride = sizeof(struct csan_cpu);
	csan_control.disable_irq_offset = offsetof(struct csan_cpu, irq) - offsetof(struct csan_cpu, task);
	/* The host may rewrite knobs while attaching: report what is in force after. */
	attached = csan_port_attach(&csan_control);
	csan_port_printf(
		"csan: soft watchpoints %s: skip_watch=%u udelay_task=%u "
		"udelay_interrupt=%u interrupt_watcher=%u report_value_change_only=%u "
		"assume_plain_writes_atomic=%u report_unknown_origin=%u, host control %s\n",
		csan_knob(enabled) ? "on" : "off", csan_knob(skip_watch), csan_knob(udelay_task),
		csan_knob(udelay_interrupt), csan_knob(interrupt_watcher),
		csan_knob(report_value_change_only), csan_knob(assume_plain_writes_atomic),
		csan_knob(report_unknown_origin), attached ? "attached" : "not attached");
}

/* emulated_args.c: the emulated host's command line for a csan-vmm run. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/image/kernel_image.h"
#include "vmm/run/compare_modes.h"
#include "vmm/run/emulated_args.h"
#include "vmm/guest/linux/linux_guest.h"

struct argv_builder {
	char **v;
	size_t n, cap;
	bool failed;
};

static void add(struct argv_builder *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	if (b->failed)
		return;
	if (b->n + 2 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		char **v = realloc(b->v, cap * sizeof(*v));

		if (!v) {
			b->failed = true;
			return;
		}
		b->v = v;
		b->cap = cap;
	}
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0) {
		b->failed = true;
		return;
	}
	b->v[b->n++] = s;
	b->v[b->n] = NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static unsigned emu_cpus(const struct options *o, const struct emu_inputs *in)
{
	unsigned n = o->cpus < in->host_cpus ? o->cpus : in->host_cpus;

	return n ? n : 1;
}

/*
 * The emulated host keeps the initramfs (which holds the guest ELF) in
 * RAM twice while it unpacks it, and the guest's RAM comes on top of its
 * own needs.
 */
static unsigned long long emu_memory_mb(const struct options *o, const struct emu_inputs *in)
{
	unsigned long long mb = (o->mem_bytes >> 20) + EMU_MEMORY_EXTRA_MB +
				2 * ((in->guest_file_bytes >> 20) + 1) +
				(in->initrd ? 2 * ((in->initrd_bytes >> 20) + 1) : 0);

	return mb < EMU_MEMORY_MIN_MB ? EMU_MEMORY_MIN_MB : mb;
}

static unsigned emu_timeout(const struct options *o)
{
	/* --compare runs the guest once per mode and scenario, each up to --timeout. */
	if (!o->timeout_s || o->compare)
		return EMU_TIMEOUT_NONE_S;
	return o->timeout_s + EMU_TIMEOUT_MARGIN_S;
}

static void add_harness_options(struct argv_builder *b, const struct options *o,
				const struct emu_inputs *in)
{
	size_t i;

	add(b, "%s", in->harness);
	add(b, "--cpus=%u", emu_cpus(o, in));
	add(b, "--memory=%llu", emu_memory_mb(o, in));
	add(b, "--timeout=%u", emu_timeout(o));
	if (in->relay_stdin)
		add(b, "--stdin");
	add(b, "--file=%s:" EMU_SELF, in->self);
	add(b, "--file=%s:" EMU_GUEST_DIR "%s", in->guest, base_name(in->guest));
	if (in->initrd)
		add(b, "--file=%s:" EMU_INITRD, in->initrd);
	if (in->vmlinux && strcmp(in->vmlinux, KERNEL_VMLINUX_NONE) != 0)
		add(b, "--file=%s:" EMU_VMLINUX, in->vmlinux);
	/* Only the .ko files: a kernel build tree is far too big to copy. */
	for (i = 0; i < in->nmodules; i++)
		add(b, "--file=%s:" EMU_MODULES_DIR "/%s", in->modules[i],
		    base_name(in->modules[i]));
	if (in->report_json)
		add(b, "--output=" EMU_REPORT_JSON ":%s", in->report_json);
	if (in->compare_json)
		add(b, "--output=" EMU_COMPARE_JSON ":%s", in->compare_json);
	for (i = 0; i < o->ndisks; i++)
		add(b, "--disk=%s%s", in->disks[i], o->disks[i].ro ? ",ro" : "");
	add(b, "--");
}

static void add_inner_options(struct argv_builder *b, const struct options *o,
			      const struct emu_inputs *in)
{
	unsigned i;

	add(b, "csan-vmm");
	add(b, "--host=kvm"); /* inside, /dev/kvm is kvm-amd: never recurse */
	add(b, "--cpus=%u", o->cpus);
	if (o->mem_given)
		add(b, "--memory=%lluK", (unsigned long long)(o->mem_bytes >> 10));
	if (o->guest_kind != GUEST_AUTO)
		add(b, "--guest=%s", o->guest_kind == GUEST_LINUX ? "linux" : "csan");
	if (o->append)
		add(b, "--append=%s", o->append);
	/* The symbols outside were found or given once; inside, no search and no second word. */
	if (in->vmlinux)
		add(b, "--vmlinux=%s",
		    strcmp(in->vmlinux, KERNEL_VMLINUX_NONE) ? EMU_VMLINUX : KERNEL_VMLINUX_NONE);
	if (o->scenario)
		add(b, "--scenario=%s", o->scenario);
	if (o->timeout_s)
		add(b, "--timeout=%u", o->timeout_s);
	if (o->seed_given)
		add(b, "--seed=%" PRIu64, o->seed);
	if (o->report_json)
		add(b, "--report-json=" EMU_REPORT_JSON);
	if (o->watch_given)
		add(b, "--watch=%s", o->watch_sample ? "sample" : o->watch_hw ? "hw" : "soft");
	if (o->sample_breakpoints)
		add(b, "--sample-breakpoints=%u", o->sample_breakpoints);
	if (o->sample_delay_given)
		add(b, "--sample-delay=%u", o->sample_delay_ms);
	if (o->sample_period_ms)
		add(b, "--sample-period=%u", o->sample_period_ms);
	if (o->sample_only)
		add(b, "--sample-only=%s", o->sample_only);
	if (o->kaslr)
		add(b, "--kaslr");
	if (in->nmodules)
		add(b, "--modules=" EMU_MODULES_DIR);
	if (o->compare && o->compare_modes) {
		char modes[32];

		add(b, "--compare=%s",
		    compare_modes_format(o->compare_modes, ",", modes, sizeof(modes)));
	} else if (o->compare) {
		add(b, "--compare");
	}
	if (o->compare_json)
		add(b, "--compare-json=" EMU_COMPARE_JSON);
	/* Our terminal's keys arrive on the inner one's standard input. */
	add(b, "--console-escapes=%s", in->relay_stdin ? "on" : "off");
	if (o->sandbox_given)
		add(b, "--sandbox=%s", o->sandbox ? "on" : "off");
	if (o->quiet)
		add(b, "--quiet");
	for (i = 0; i < o->ndisks; i++)
		add(b, "--disk=" EMU_DISK_PREFIX "%c%s", 'a' + i, o->disks[i].ro ? ",ro" : "");
	if (o->workload.run)
		add(b, "--run=%s", o->workload.run);
	if (in->initrd)
		add(b, "--initrd=" EMU_INITRD);
	if (o->workload.run && in->initrd)
		add(b, "--workload-in-initrd");
	add(b, EMU_GUEST_DIR "%s", base_name(in->guest));
}

char **emulated_argv(const struct options *o, const struct emu_inputs *in)
{
	struct argv_builder b = { 0 };

	add_harness_options(&b, o, in);
	add_inner_options(&b, o, in);
	if (b.failed) {
		emulated_argv_free(b.v); /* NULL-terminated after every add */
		return NULL;
	}
	return b.v;
}

void emulated_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

char *const *emulated_inner_argv(char *const *argv)
{
	size_t i;

	for (i = 0; argv[i]; i++)
		if (strcmp(argv[i], "--") == 0)
			return argv[i + 1] ? &argv[i + 1] : NULL;
	return NULL;
}

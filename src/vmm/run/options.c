/* options.c: parse and check the csan-vmm command line. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "csan/abi.h"
#include "vmm/base/log.h"
#include "vmm/run/compare_modes.h"
#include "vmm/run/control_cmd.h"
#include "vmm/run/options.h"
#include "vmm/guest/profile.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/sample/sample.h"

/* guest_kind_parse - --guest's "auto", "csan", "linux" to @out; -EINVAL otherwise. */
static int guest_kind_parse(const char *s, enum guest_kind *out)
{
	static const struct {
		const char *name;
		enum guest_kind kind;
	} kinds[] = { { "auto", GUEST_AUTO }, { "csan", GUEST_CSAN }, { "linux", GUEST_LINUX } };
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!strcmp(s, kinds[i].name)) {
			*out = kinds[i].kind;
			return 0;
		}
	}
	return -EINVAL;
}

/* Long-only options get values above the char range. */
enum {
	OPTK_TIMEOUT = 0x100,
	OPTK_SEED,
	OPTK_VERSION,
	OPTK_REPORT_JSON,
	OPTK_WATCH,
	OPTK_PROBE,
	OPTK_COMPARE,
	OPTK_COMPARE_JSON,
	OPTK_CONTROL,
	OPTK_SEND,
	OPTK_CONSOLE_ESCAPES,
	OPTK_SANDBOX,
	OPTK_HOST,
	OPTK_GUEST,
	OPTK_SOURCE_ROOT,
	OPTK_MODULES,
	OPTK_VMLINUX,
	OPTK_DISK,
	OPTK_RUN,
	OPTK_ADD,
	OPTK_INITRD,
	OPTK_WORKLOAD_IN_INITRD,
	OPTK_SAMPLE_BREAKPOINTS,
	OPTK_SAMPLE_DELAY,
	OPTK_SAMPLE_PERIOD,
	OPTK_SAMPLE_ONLY,
	OPTK_KASLR,
};

/*
 * Sanitizer runtimes report from the thread that erred, and a report runs
 * a symbolizer and reads /proc: calls the vCPU sandbox refuses.  So such
 * builds start with it off (--sandbox=on still turns it on).
 */
#ifdef CSAN_SANITIZED_BUILD
#define OPT_DEFAULT_SANDBOX	 false
#define OPT_DEFAULT_SANDBOX_NAME "off"
#else
#define OPT_DEFAULT_SANDBOX	 true
#define OPT_DEFAULT_SANDBOX_NAME "on"
#endif

static const struct option long_options[] = {
	{ "cpus", required_argument, NULL, 'c' },
	{ "memory", required_argument, NULL, 'm' },
	{ "append", required_argument, NULL, 'a' },
	{ "scenario", required_argument, NULL, 's' },
	{ "timeout", required_argument, NULL, OPTK_TIMEOUT },
	{ "seed", required_argument, NULL, OPTK_SEED },
	{ "report-json", required_argument, NULL, OPTK_REPORT_JSON },
	{ "source-root", required_argument, NULL, OPTK_SOURCE_ROOT },
	{ "modules", required_argument, NULL, OPTK_MODULES },
	{ "watch", required_argument, NULL, OPTK_WATCH },
	{ "sample-breakpoints", required_argument, NULL, OPTK_SAMPLE_BREAKPOINTS },
	{ "sample-delay", required_argument, NULL, OPTK_SAMPLE_DELAY },
	{ "sample-period", required_argument, NULL, OPTK_SAMPLE_PERIOD },
	{ "sample-only", required_argument, NULL, OPTK_SAMPLE_ONLY },
	{ "kaslr", no_argument, NULL, OPTK_KASLR },
	{ "compare", optional_argument, NULL, OPTK_COMPARE },
	{ "compare-json", required_argument, NULL, OPTK_COMPARE_JSON },
	{ "control", required_argument, NULL, OPTK_CONTROL },
	{ "send", required_argument, NULL, OPTK_SEND },
	{ "console-escapes", required_argument, NULL, OPTK_CONSOLE_ESCAPES },
	{ "sandbox", required_argument, NULL, OPTK_SANDBOX },
	{ "host", required_argument, NULL, OPTK_HOST },
	{ "guest", required_argument, NULL, OPTK_GUEST },
	{ "vmlinux", required_argument, NULL, OPTK_VMLINUX },
	{ "disk", required_argument, NULL, OPTK_DISK },
	{ "run", required_argument, NULL, OPTK_RUN },
	{ "add", required_argument, NULL, OPTK_ADD },
	{ "initrd", required_argument, NULL, OPTK_INITRD },
	{ "workload-in-initrd", no_argument, NULL, OPTK_WORKLOAD_IN_INITRD },
	{ "quiet", no_argument, NULL, 'q' },
	{ "probe", no_argument, NULL, OPTK_PROBE },
	{ "version", no_argument, NULL, OPTK_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void options_usage(FILE *f)
{
	fprintf(f,
		"Usage: csan-vmm [OPTIONS] [KERNEL]\n"
		"Run a kernel under a small KVM hypervisor that hunts data races.\n"
		"KERNEL is a bzImage (arch/x86/boot/bzImage) or a PVH ELF (a\n"
		"vmlinux with CONFIG_PVH, a csan guest); without it, the bundled\n"
		"guest kernel and its race zoo run.\n"
		"\n"
		"  -c, --cpus=N          vCPUs to start (1-%d, default %d)\n"
		"  -m, --memory=SIZE     guest RAM, suffix K, M or G; a bare number\n"
		"                        is MiB (default %lluM, for Linux %lluM; at\n"
		"                        least %lluM, at most %lluG)\n"
		"  -a, --append=STRING   add STRING to the guest command line (for\n"
		"                        Linux, after the default console=ttyS0)\n"
		"      --disk=IMAGE[,ro] attach raw disk image IMAGE as a virtio block\n"
		"                        device (virtio-mmio, announced on the Linux\n"
		"                        command line: the first disk is /dev/vda, e.g.\n"
		"                        --append=root=/dev/vda); the guest's writes go\n"
		"                        to IMAGE, or with ,ro it may only read; one disk\n"
		"                        per run; Linux guests only\n"
		"      --guest=KIND      auto (default): a PVH kernel with the csan-vmm\n"
		"                        ABI note is a csan guest, one without is Linux;\n"
		"                        csan or linux force the kind\n"
		"      --vmlinux=PATH    the vmlinux with a bzImage's symbols (default:\n"
		"                        the one at the top of the build tree holding\n"
		"                        arch/x86/boot/bzImage, or beside the bzImage,\n"
		"                        or for /boot/vmlinuz-RELEASE the debug package's\n"
		"                        /usr/lib/debug/boot/vmlinux-RELEASE; none: run\n"
		"                        unsymbolized, said in one line)\n"
		"      --run=CMD         Linux: boot with an initramfs csan-vmm builds\n"
		"                        (busybox, its own init, the --add'ed files) and\n"
		"                        run CMD there under /bin/sh -c, in /, output on\n"
		"                        the console; the guest powers off when CMD ends,\n"
		"                        and CMD's exit status is reported (exit status 5\n"
		"                        when it is not 0)\n"
		"      --add=HOSTPATH[:GUESTPATH]  with --run: put a file or a directory\n"
		"                        (recursively, modes kept) in the guest at\n"
		"                        GUESTPATH (default /BASENAME; CMD runs in /);\n"
		"                        a dynamically linked executable brings its\n"
		"                        libraries; may be repeated\n"
		"      --initrd=FILE     Linux: hand the cpio archive FILE (compressed as\n"
		"                        the kernel can unpack) to the kernel; with --run,\n"
		"                        csan-vmm's archive follows it, so CMD runs among\n"
		"                        FILE's files (FILE's /init is not run)\n"
		"      --workload-in-initrd  internal, for --host=emulated: --initrd\n"
		"                        already holds --run's archive\n"
		"  -s, --scenario=NAME   run scenario NAME of the bundled guest\n"
		"                        (default %s); --scenario=list lists them;\n"
		"                        with --compare, --scenario=all runs each one\n"
		"      --timeout=SECONDS stop a guest still running after SECONDS\n"
		"                        (exit status 4; default 0, no limit)\n"
		"      --seed=N          seed for the guest's randomness (default:\n"
		"                        from the clock, printed at start)\n"
		"      --report-json=FILE  also write every printed report, then a\n"
		"                        summary and the exit record, to FILE as JSON Lines\n"
		"      --source-root=DIR print source paths relative to DIR (default:\n"
		"                        the tree the guest's DWARF says it was built from)\n"
		"      --modules=DIR     Linux: look for the .ko of a module's report frames\n"
		"                        under DIR first (default: the vmlinux's build\n"
		"                        tree, then /lib/modules/RELEASE)\n"
		"      --watch=MODE      soft: the guest's soft watchpoints only (default);\n"
		"                        hw: also back each one with debug registers on\n"
		"                        every vCPU (needs a host whose KVM delivers guest\n"
		"                        data breakpoints: see --probe); on Linux, KCSAN's\n"
		"                        watchpoints, followed from the host (start in hw\n"
		"                        mode to switch later); sample: Linux only, no\n"
		"                        race detector needed in the kernel: the host\n"
		"                        puts code breakpoints on a few of its memory\n"
		"                        accesses at a time (drawn from the vmlinux and\n"
		"                        the loaded modules with --seed) and, at a hit,\n"
		"                        watches the address with\n"
		"                        data breakpoints on every vCPU while it holds\n"
		"                        the hitting one back (chosen at start only)\n"
		"      --sample-breakpoints=N  code breakpoints live at once (1-%d,\n"
		"                        default %d; the other debug registers are for\n"
		"                        the data watches)\n"
		"      --sample-delay=MS hold a vCPU at a hit for MS ms (0-1000,\n"
		"                        default %d)\n"
		"      --sample-period=MS draw new sites every MS ms (1-60000, default %d)\n"
		"      --sample-only=PATTERN[,PATTERN...]  sample only the functions whose\n"
		"                        names match a shell PATTERN (e.g. 'ext4_*'), in\n"
		"                        the vmlinux or in modules as they load\n"
		"      --kaslr           with --watch=sample: let a Linux kernel built with\n"
		"                        RANDOMIZE_BASE place itself at random (csan-vmm\n"
		"                        otherwise adds nokaslr); the offset is found in\n"
		"                        the running guest\n"
		"      --control=PATH    serve run-time commands (watch hw|soft|sample, stats,\n"
		"                        get/set KNOB, quit) on UNIX socket PATH\n"
		"      --send=COMMAND    with --control=PATH: send COMMAND to the\n"
		"                        csan-vmm serving PATH, print its reply, exit\n"
		"                        0 on ok, 1 on error, 2 if unreachable; may be\n"
		"                        repeated ('help' lists the commands)\n"
		"      --console-escapes=auto|on|off  Ctrl-a keys on standard input:\n"
		"                        h help, w watch mode, s stats, x quit;\n"
		"                        auto (default) = on when it is a terminal\n"
		"      --sandbox=on|off  put vCPU threads under a seccomp allow-list\n"
		"                        once the guest runs (default %s; off is for\n"
		"                        debugging the VMM)\n"
		"      --host=auto|kvm|emulated  where the guest runs: kvm = this\n"
		"                        machine's /dev/kvm; emulated = csan-vmm runs itself\n"
		"                        in the emulated host (QEMU TCG with an AMD CPU and\n"
		"                        real kvm-amd: works anywhere, debug registers work,\n"
		"                        guest code 10-25x slower); auto (default) = kvm\n"
		"                        when /dev/kvm exists and can do what is asked\n"
		"                        (--watch=hw, --compare need data watchpoints),\n"
		"                        else emulated, said in one line on stderr\n"
		"      --compare         run the guest twice, in soft then in hw mode, with\n"
		"                        the same seed and --timeout, and print a table of\n"
		"                        each race: which mode found it, how often, how\n"
		"                        soon, what saw the other side; then the totals and\n"
		"                        the hw/soft slowdown.  With --host=kvm on a host\n"
		"                        that cannot do hw mode (see --probe) it says so\n"
		"                        and runs soft only\n"
		"      --compare=MODES   the same, once in each of MODES, a comma list of\n"
		"                        soft, hw and sample (e.g. soft,hw,sample); sample:\n"
		"                        a Linux kernel with its vmlinux, the --sample-*\n"
		"                        knobs apply, and its column counts the sampler's\n"
		"                        reports only, not the kernel's own KCSAN's.\n"
		"                        --run's workload runs in each mode from one\n"
		"                        initramfs; a --disk must be ,ro\n"
		"      --compare-json=FILE  also write the comparison to FILE as JSON\n"
		"  -q, --quiet           print only the guest console, findings and the\n"
		"                        closing summary line (no start line, no\n"
		"                        status line; otherwise one is drawn on stderr\n"
		"                        while the guest runs, when stderr is a terminal\n"
		"                        and TERM is set and not dumb)\n"
		"      --probe           check what this host's KVM can do (debug\n"
		"                        registers for hardware-watchpoint mode) and,\n"
		"                        unless --host=kvm, the emulated host; exit 0 when\n"
		"                        hw mode can run with this --host, 2 when not\n"
		"      --version         print the version and the guest ABI\n"
		"  -h, --help            print this help\n"
		"\n"
		"Exit status, and its word on the closing summary line:\n"
		"  0   clean            nothing reported; the workload, if any, passed\n"
		"  1   races            races reported; the workload, if any, passed\n"
		"  2   error            usage, configuration or host error\n"
		"  3   crash            the guest crashed: exception, triple fault,\n"
		"                       panic, bad hypercall\n"
		"  4   timeout          still running at --timeout\n"
		"  5   workload-failed  the workload (--run's command, the bundled\n"
		"                       guest's scenario) exited non-zero or never\n"
		"                       said, or a KUnit case failed; wins over 1\n"
		"  130 interrupted      SIGINT or SIGTERM\n"
		"A crash wins over a timeout, both over the workload.  With --compare,\n"
		"the most serious of the runs, in the order 130, 2, 3, 4, 5, 1, 0.\n"
		"See csan-vmm(1).\n",
		CSAN_MAX_CPUS, OPT_DEFAULT_CPUS, OPT_DEFAULT_MEMORY >> 20,
		(unsigned long long)linux_profile.default_mem_bytes >> 20, OPT_MIN_MEMORY >> 20,
		(unsigned long long)CSAN_RAM_LIMIT >> 30, OPT_DEFAULT_SCENARIO, HW_CODE_MAX,
		SAMPLE_DEFAULT_BREAKPOINTS, SAMPLE_DEFAULT_DELAY_MS, SAMPLE_DEFAULT_PERIOD_MS,
		OPT_DEFAULT_SANDBOX_NAME);
}

static int usage_error(FILE *errf, const char *fmt, ...)
{
	va_list ap;

	fputs(LOG_PREFIX, errf);
	va_start(ap, fmt);
	vfprintf(errf, fmt, ap);
	va_end(ap);
	fputs("\nTry 'csan-vmm --help' for more information.\n", errf);
	return -EINVAL;
}

/* Strict unsigned parse: digits only (base 10 or 0x hex), no sign, no junk. */
static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int options_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	unsigned long long v;
	unsigned shift = 20; /* bare numbers are MiB */

	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case '\0': break;
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default: return -EINVAL;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return -EINVAL;
	*bytes = (uint64_t)v << shift;
	return 0;
}

static int parse_cpus(const char *arg, struct options *o, FILE *errf)
{
	uint64_t v;

	if (parse_u64(arg, &v) || v < 1 || v > CSAN_MAX_CPUS)
		return usage_error(errf, "--cpus: '%s' is not a vCPU count from 1 to %d", arg,
				   CSAN_MAX_CPUS);
	o->cpus = (unsigned)v;
	return 0;
}

static int parse_memory(const char *arg, struct options *o, FILE *errf)
{
	uint64_t v;

	if (options_parse_size(arg, &v))
		return usage_error(errf, "--memory: '%s' is not a size such as 64M or 1G", arg);
	if (v < OPT_MIN_MEMORY || v > CSAN_RAM_LIMIT)
		return usage_error(
			errf, "--memory: %s is out of range: give at least %lluM and at most %lluG",
			arg, OPT_MIN_MEMORY >> 20, (unsigned long long)CSAN_RAM_LIMIT >> 30);
	if (v & 0xfff)
		return usage_error(errf, "--memory: %s is not a multiple of 4K", arg);
	o->mem_bytes = v;
	return 0;
}

static int parse_timeout(const char *arg, struct options *o, FILE *errf)
{
	uint64_t v;

	/* One day is far beyond any sensible run and keeps arithmetic small. */
	if (parse_u64(arg, &v) || v > 86400)
		return usage_error(
			errf, "--timeout: '%s' is not a number of seconds from 0 to 86400", arg);
	o->timeout_s = (unsigned)v;
	return 0;
}

/* Several -a options accumulate, separated by spaces, as on a kernel command line. */
static int add_append(const char *arg, struct options *o, FILE *errf)
{
	size_t old = o->append ? strlen(o->append) : 0;
	char *s = malloc(old + strlen(arg) + 2);

	if (!s) {
		fputs(LOG_PREFIX "out of memory\n", errf);
		return -ENOMEM;
	}
	if (old)
		sprintf(s, "%s %s", o->append, arg);
	else
		strcpy(s, arg);
	free((char *)o->append);
	o->append = s;
	return 0;
}

/*
 * --disk=IMAGE[,ro] (",rw" is the default, said out loud).  Whether IMAGE
 * opens is checked when the run starts, where the file is opened once.
 */
static int add_disk(const char *arg, struct options *o, FILE *errf)
{
	const char *comma = strrchr(arg, ',');
	struct opt_disk *d = &o->disks[o->ndisks];
	char *path;

	if (o->ndisks == OPT_MAX_DISKS)
		return usage_error(errf, "--disk: only %d disk per run; drop --disk=%s",
				   OPT_MAX_DISKS, arg);
	path = strdup(arg);
	if (!path) {
		fputs(LOG_PREFIX "out of memory\n", errf);
		return -ENOMEM;
	}
	d->ro = false;
	if (comma && (!strcmp(comma + 1, "ro") || !strcmp(comma + 1, "rw"))) {
		d->ro = comma[2] == 'o';
		path[comma - arg] = '\0';
	}
	if (!path[0]) {
		free(path);
		return usage_error(errf, "--disk: give a raw disk image, e.g. --disk=root.img "
					 "or --disk=root.img,ro");
	}
	d->path = path;
	o->ndisks++;
	return 0;
}

static int parse_scenario(const char *arg, struct options *o, FILE *errf)
{
	if (!arg[0])
		return usage_error(errf, "--scenario: give a scenario name, or 'list'");
	if (strcmp(arg, "list") == 0)
		o->action = OPT_LIST_SCENARIOS;
	else
		o->scenario = arg;
	return 0;
}

static int add_send(const char *arg, struct options *o, FILE *errf)
{
	const char **s;

	if (strlen(arg) > CONTROL_LINE_MAX || strchr(arg, '\n') || !arg[strspn(arg, " \t\r")])
		return usage_error(errf,
				   "--send: give one command of at most %d bytes without a "
				   "newline, e.g. --send=stats ('help' lists them)",
				   CONTROL_LINE_MAX);
	s = realloc(o->sends, (o->nsends + 1) * sizeof(*s));
	if (!s) {
		fputs(LOG_PREFIX "out of memory\n", errf);
		return -ENOMEM;
	}
	s[o->nsends++] = arg;
	o->sends = s;
	if (o->action == OPT_RUN)
		o->action = OPT_SEND;
	return 0;
}

static int add_add(const char *arg, struct options *o, FILE *errf)
{
	const char **a;
	char why[512], *h, *g;

	if (workload_add_parse(arg, &h, &g, why, sizeof(why)))
		return usage_error(errf, "%s", why);
	free(h);
	free(g);
	a = realloc(o->workload.adds, (o->workload.nadds + 1) * sizeof(*a));
	if (!a) {
		fputs(LOG_PREFIX "out of memory\n", errf);
		return -ENOMEM;
	}
	a[o->workload.nadds++] = arg;
	o->workload.adds = a;
	return 0;
}

static int parse_console_escapes(const char *arg, struct options *o, FILE *errf)
{
	if (strcmp(arg, "auto") == 0)
		o->console_escapes = CONSOLE_ESCAPES_AUTO;
	else if (strcmp(arg, "on") == 0)
		o->console_escapes = CONSOLE_ESCAPES_ON;
	else if (strcmp(arg, "off") == 0)
		o->console_escapes = CONSOLE_ESCAPES_OFF;
	else
		return usage_error(errf, "--console-escapes: '%s' is not auto, on or off", arg);
	return 0;
}

/* --sample-*: the range the control socket's 'set' checks too (sample_knobs). */
static int parse_sample_knob(const char *arg, enum sample_knob_id id, const char *opt,
			     const char *what, unsigned *out, FILE *errf)
{
	const struct sample_knob *k = &sample_knobs[id];
	uint64_t v;

	if (parse_u64(arg, &v) || v < k->min || v > k->max)
		return usage_error(errf, "%s: '%s' is not %s from %" PRIu32 " to %" PRIu32, opt,
				   arg, what, k->min, k->max);
	*out = (unsigned)v;
	return 0;
}

static int parse_one(int c, const char *arg, struct options *o, FILE *errf)
{
	uint64_t v;

	switch (c) {
	case 'c': return parse_cpus(arg, o, errf);
	case 'm': o->mem_given = true; return parse_memory(arg, o, errf);
	case 'a': return add_append(arg, o, errf);
	case 's': return parse_scenario(arg, o, errf);
	case OPTK_TIMEOUT: return parse_timeout(arg, o, errf);
	case OPTK_SEED:
		if (parse_u64(arg, &v))
			return usage_error(errf, "--seed: '%s' is not an unsigned 64-bit number",
					   arg);
		o->seed = v;
		o->seed_given = true;
		return 0;
	case OPTK_REPORT_JSON:
		if (!arg[0])
			return usage_error(errf, "--report-json: give a file name");
		o->report_json = arg;
		return 0;
	case OPTK_SOURCE_ROOT:
		if (!arg[0])
			return usage_error(errf, "--source-root: give a directory");
		o->source_root = arg;
		return 0;
	case OPTK_MODULES: {
		struct stat st;

		if (!arg[0])
			return usage_error(errf,
					   "--modules: give the directory holding the .ko files");
		/* Said now, not after the guest has booted and printed a module frame. */
		if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
			return usage_error(
				errf, "--modules=%s: %s; give the directory holding the .ko files",
				arg, stat(arg, &st) != 0 ? strerror(errno) : "not a directory");
		o->modules_dir = arg;
		return 0;
	}
	case OPTK_WATCH:
		if (strcmp(arg, "soft") && strcmp(arg, "hw") && strcmp(arg, "sample"))
			return usage_error(
				errf, "--watch: '%s' is not a mode; use soft, hw or sample", arg);
		o->watch_hw = strcmp(arg, "hw") == 0;
		o->watch_sample = strcmp(arg, "sample") == 0;
		o->watch_given = true;
		return 0;
	case OPTK_SAMPLE_BREAKPOINTS:
		return parse_sample_knob(arg, SAMPLE_KNOB_BREAKPOINTS, "--sample-breakpoints",
					 "a count", &o->sample_breakpoints, errf);
	case OPTK_SAMPLE_DELAY:
		o->sample_delay_given = true;
		return parse_sample_knob(arg, SAMPLE_KNOB_DELAY_MS, "--sample-delay",
					 "a number of ms", &o->sample_delay_ms, errf);
	case OPTK_SAMPLE_PERIOD:
		return parse_sample_knob(arg, SAMPLE_KNOB_PERIOD_MS, "--sample-period",
					 "a number of ms", &o->sample_period_ms, errf);
	case OPTK_SAMPLE_ONLY:
		if (!arg[strspn(arg, ", ")])
			return usage_error(errf, "--sample-only: give function name patterns, e.g. "
						 "--sample-only='ext4_*,jbd2_*'");
		o->sample_only = arg;
		return 0;
	case OPTK_COMPARE:
		o->compare = true;
		if (arg && compare_modes_parse(arg, &o->compare_modes))
			return usage_error(errf,
					   "--compare=%s: give watch modes, each once, as a "
					   "comma list of soft, hw and sample (e.g. "
					   "--compare=soft,hw,sample)",
					   arg);
		return 0;
	case OPTK_COMPARE_JSON:
		if (!arg[0])
			return usage_error(errf, "--compare-json: give a file name");
		o->compare_json = arg;
		return 0;
	case OPTK_CONTROL:
		if (!arg[0])
			return usage_error(errf, "--control: give a socket path");
		o->control_path = arg;
		return 0;
	case OPTK_SEND: return add_send(arg, o, errf);
	case OPTK_CONSOLE_ESCAPES: return parse_console_escapes(arg, o, errf);
	case OPTK_SANDBOX:
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			return usage_error(errf, "--sandbox: '%s' is not on or off", arg);
		o->sandbox = strcmp(arg, "on") == 0;
		o->sandbox_given = true;
		return 0;
	case OPTK_HOST:
		if (strcmp(arg, "auto") == 0)
			o->host = OPT_HOST_AUTO;
		else if (strcmp(arg, "kvm") == 0)
			o->host = OPT_HOST_KVM;
		else if (strcmp(arg, "emulated") == 0)
			o->host = OPT_HOST_EMULATED;
		else
			return usage_error(errf, "--host: '%s' is not auto, kvm or emulated", arg);
		return 0;
	case OPTK_VMLINUX:
		if (!arg[0])
			return usage_error(errf, "--vmlinux: give the path of a vmlinux");
		o->vmlinux = arg;
		return 0;
	case OPTK_DISK: return add_disk(arg, o, errf);
	case OPTK_GUEST:
		if (guest_kind_parse(arg, &o->guest_kind))
			return usage_error(
				errf, "--guest: '%s' is not a kind; use auto, csan or linux", arg);
		return 0;
	case OPTK_RUN:
		if (!arg[strspn(arg, " \t")])
			return usage_error(errf, "--run: give a command, e.g. --run='uname -a'");
		o->workload.run = arg;
		return 0;
	case OPTK_ADD: return add_add(arg, o, errf);
	case OPTK_INITRD:
		if (!arg[0])
			return usage_error(errf, "--initrd: give a cpio archive");
		o->workload.initrd = arg;
		return 0;
	case OPTK_WORKLOAD_IN_INITRD: o->workload.prebuilt = true; return 0;
	case OPTK_KASLR: o->kaslr = true; return 0;
	case 'q': o->quiet = true; return 0;
	case 'h': o->action = OPT_HELP; return 0;
	case OPTK_VERSION: o->action = OPT_VERSION; return 0;
	case OPTK_PROBE: o->action = OPT_PROBE; return 0;
	default: return -EINVAL; /* getopt already said what was wrong */
	}
}

/* Options that only make sense together, or not at all together. */
static int check_combinations(struct options *o, FILE *errf)
{
	if (o->action != OPT_RUN)
		return 0;
	if (o->compare_json && !o->compare)
		return usage_error(errf, "--compare-json: only with --compare; add --compare");
	if (!o->watch_sample && !(o->compare_modes & COMPARE_BIT(COMPARE_SAMPLE))) {
		const char *knob = o->sample_breakpoints ? "--sample-breakpoints"
				   : o->sample_delay_given ? "--sample-delay"
				   : o->sample_period_ms   ? "--sample-period"
				   : o->sample_only	   ? "--sample-only"
							   : NULL;

		if (knob)
			return usage_error(errf, "%s: only with --watch=sample or "
						 "--compare=...,sample; add one",
					   knob);
	}
	/*
	 * hw mode plants its traps in KCSAN's code at the vmlinux's addresses,
	 * and soft mode's reports are read against them: only sampling finds
	 * where a kernel moved itself.
	 */
	if (o->kaslr && (o->compare || !o->watch_sample))
		return usage_error(errf, "--kaslr: only with --watch=sample (soft and hw mode, and "
					 "so --compare, need the kernel at its link address)");
	if (o->compare && o->watch_given)
		return usage_error(errf, "--watch: --compare runs each mode itself (soft and hw, or "
					 "those --compare=MODES names); drop --watch");
	if (o->workload.nadds && !o->workload.run)
		return usage_error(errf, "--add: the files are for --run's command; add --run=CMD "
					 "(--run=sh for a shell on the console)");
	if (o->workload.prebuilt && !(o->workload.initrd && o->workload.run))
		return usage_error(errf, "--workload-in-initrd: only with --initrd and --run "
					 "(it says --initrd holds --run's archive already)");
	/* Each mode boots the guest anew: a disk it writes would not be the same disk. */
	if (o->compare && o->ndisks && !o->disks[0].ro)
		return usage_error(errf, "--disk=%s: --compare boots the guest once per mode, and "
					 "each run would find the last one's writes; add ,ro "
					 "(--disk=%s,ro)",
				   o->disks[0].path, o->disks[0].path);
	if (o->scenario && strcmp(o->scenario, OPT_ALL_SCENARIOS) == 0 && !o->compare)
		return usage_error(errf, "--scenario=all: only with --compare; add --compare, "
					 "or name one scenario (--scenario=list lists them)");
	return 0;
}

int options_parse(int argc, char **argv, struct options *o, FILE *errf)
{
	int c, rc;

	memset(o, 0, sizeof(*o));
	o->action = OPT_RUN;
	o->cpus = OPT_DEFAULT_CPUS;
	o->mem_bytes = OPT_DEFAULT_MEMORY;
	o->sandbox = OPT_DEFAULT_SANDBOX;

	optind = 0; /* full reset, so tests can parse several times */
	opterr = 0; /* we print our own messages, on errf */
	while ((c = getopt_long(argc, argv, ":c:m:a:s:qh", long_options, NULL)) != -1) {
		if (c == '?') {
			if (optopt)
				rc = usage_error(errf, "unknown option '-%c'", optopt);
			else
				rc = usage_error(errf, "unknown option '%s'", argv[optind - 1]);
			goto fail;
		}
		if (c == ':') {
			rc = usage_error(errf, "option '%s' needs a value", argv[optind - 1]);
			goto fail;
		}
		rc = parse_one(c, optarg, o, errf);
		if (rc)
			goto fail;
	}
	if (o->nsends && !o->control_path) {
		rc = usage_error(errf, "--send needs --control=PATH: the socket of the "
				       "csan-vmm to send to");
		goto fail;
	}
	if (optind < argc)
		o->guest_path = argv[optind++];
	if (optind < argc) {
		rc = usage_error(errf, "unexpected argument '%s' after GUEST-ELF '%s'",
				 argv[optind], o->guest_path);
		goto fail;
	}
	rc = check_combinations(o, errf);
	if (rc)
		goto fail;
	return 0;
fail:
	options_free(o);
	return rc;
}

const char *options_host_name(enum opt_host h)
{
	switch (h) {
	case OPT_HOST_KVM: return "kvm";
	case OPT_HOST_EMULATED: return "emulated";
	default: return "auto";
	}
}

void options_free(struct options *o)
{
	free((char *)o->append);
	o->append = NULL;
	free(o->sends);
	o->sends = NULL;
	free(o->workload.adds);
	o->workload.adds = NULL;
	o->workload.nadds = 0;
	o->nsends = 0;
	while (o->ndisks)
		free((char *)o->disks[--o->ndisks].path);
}

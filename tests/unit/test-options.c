/* test-options.c: command-line parsing, defaults and rejections. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csan/abi.h"
#include "vmm/guest/profile.h"
#include "vmm/run/compare_modes.h"
#include "vmm/run/options.h"
#include "check.h"

#define ARGV(...) ((char *[]){ "csan-vmm", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "csan-vmm", __VA_ARGS__ }) / sizeof(char *)))

/* Parse with errors captured into @msg (for checking what the user sees). */
static int parse(int argc, char **argv, struct options *o, char *msg, size_t len)
{
	FILE *f = fmemopen(msg, len, "w");
	int rc;

	msg[0] = '\0';
	rc = options_parse(argc, argv, o, f);
	fclose(f);
	return rc;
}

#define PARSE(o, msg, ...) parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o, msg, sizeof(msg))

static void test_defaults(void)
{
	struct options o;
	char msg[512];

	CHECK(PARSE(&o, msg, "-q") == 0);
	CHECK(o.action == OPT_RUN);
	CHECK(o.cpus == OPT_DEFAULT_CPUS);
	CHECK_EQ_U64(o.mem_bytes, 64ull << 20);
	CHECK(o.timeout_s == 0 && !o.seed_given && o.quiet);
	CHECK(o.guest_path == NULL && o.scenario == NULL && o.append == NULL);
#ifdef CSAN_SANITIZED_BUILD
	CHECK(!o.sandbox); /* a sanitizer's report needs calls the sandbox refuses */
#else
	CHECK(o.sandbox);
#endif
	options_free(&o);
}

static void test_values(void)
{
	struct options o;
	char msg[512];
	char *cmd;

	CHECK(PARSE(&o, msg, "-c", "4", "--memory=1G", "--timeout=30", "--seed=0x10", "-a",
		    "timer_hz=100", "--append=x=1", "-s", "fault", "k.elf") == 0);
	CHECK(o.cpus == 4);
	CHECK_EQ_U64(o.mem_bytes, 1ull << 30);
	CHECK(o.timeout_s == 30);
	CHECK(o.seed_given && o.seed == 16);
	CHECK(o.scenario && strcmp(o.scenario, "fault") == 0);
	CHECK(o.guest_path && strcmp(o.guest_path, "k.elf") == 0);
	CHECK(o.append && strcmp(o.append, "timer_hz=100 x=1") == 0);
	cmd = csan_profile.cmdline(o.scenario, o.seed, o.append, false);
	CHECK(cmd && strcmp(cmd, "scenario=fault seed=16 timer_hz=100 x=1") == 0);
	free(cmd);
	cmd = csan_profile.cmdline(NULL, o.seed, o.append, false);
	CHECK(cmd && strcmp(cmd, "seed=16 timer_hz=100 x=1") == 0);
	free(cmd);
	options_free(&o);

	CHECK(PARSE(&o, msg, "--scenario=list") == 0 && o.action == OPT_LIST_SCENARIOS);
	CHECK(PARSE(&o, msg, "--help") == 0 && o.action == OPT_HELP);
	CHECK(PARSE(&o, msg, "--version") == 0 && o.action == OPT_VERSION);
	CHECK(PARSE(&o, msg, "--probe") == 0 && o.action == OPT_PROBE);
	CHECK(PARSE(&o, msg, "-c", "64") == 0 && o.cpus == CSAN_MAX_CPUS);
	CHECK(PARSE(&o, msg, "--sandbox=off") == 0 && !o.sandbox);
	CHECK(PARSE(&o, msg, "--sandbox=off", "--sandbox=on") == 0 && o.sandbox);
	CHECK(PARSE(&o, msg, "k.elf") == 0 && o.guest_kind == GUEST_AUTO && !o.mem_given);
	CHECK(PARSE(&o, msg, "--guest=linux") == 0 && o.guest_kind == GUEST_LINUX);
	CHECK(PARSE(&o, msg, "--guest=csan") == 0 && o.guest_kind == GUEST_CSAN);
	CHECK(PARSE(&o, msg, "--guest=csan", "--guest=auto") == 0 && o.guest_kind == GUEST_AUTO);
	CHECK(PARSE(&o, msg, "-m", "128M") == 0 && o.mem_given);
}

static void test_sizes(void)
{
	uint64_t b;

	CHECK(options_parse_size("64", &b) == 0 && b == 64ull << 20);
	CHECK(options_parse_size("512K", &b) == 0 && b == 512ull << 10);
	CHECK(options_parse_size("2g", &b) == 0 && b == 2ull << 30);
	CHECK(options_parse_size("128MiB", &b) == 0 && b == 128ull << 20);
	CHECK(options_parse_size("", &b) == -EINVAL);
	CHECK(options_parse_size("-1", &b) == -EINVAL);
	CHECK(options_parse_size("1T", &b) == -EINVAL);
	CHECK(options_parse_size("1Mx", &b) == -EINVAL);
	CHECK(options_parse_size("99999999999999999999", &b) == -EINVAL);
	CHECK(options_parse_size("17179869184G", &b) == -EINVAL); /* overflows */
}

/* Each rejection names the option and points at --help. */
static void expect_rejected(int rc, const char *msg, const char *what)
{
	CHECK(rc == -EINVAL);
	CHECK_CONTAINS(msg, what);
	CHECK_CONTAINS(msg, "csan-vmm --help");
}

static void test_rejections(void)
{
	struct options o;
	char msg[512];

	expect_rejected(PARSE(&o, msg, "--cpus=0"), msg, "--cpus");
	expect_rejected(PARSE(&o, msg, "-c", "65"), msg, "--cpus");
	expect_rejected(PARSE(&o, msg, "-c", "2x"), msg, "--cpus");
	expect_rejected(PARSE(&o, msg, "-c", "-1"), msg, "--cpus");
	expect_rejected(PARSE(&o, msg, "-m", "8M"), msg, "--memory");
	expect_rejected(PARSE(&o, msg, "-m", "4G"), msg, "at most 3G");
	expect_rejected(PARSE(&o, msg, "-m", "16385K"), msg, "multiple of 4K");
	expect_rejected(PARSE(&o, msg, "--timeout=1e3"), msg, "--timeout");
	/* The range the rejection states, from its top end: a day is in, a second more is not. */
	CHECK(PARSE(&o, msg, "--timeout=86400") == 0 && o.timeout_s == 86400);
	options_free(&o);
	expect_rejected(PARSE(&o, msg, "--timeout=86401"), msg, "from 0 to 86400");
	expect_rejected(PARSE(&o, msg, "--seed=-5"), msg, "--seed");
	expect_rejected(PARSE(&o, msg, "--scenario="), msg, "--scenario");
	expect_rejected(PARSE(&o, msg, "--bogus"), msg, "'--bogus'");
	expect_rejected(PARSE(&o, msg, "-z"), msg, "'-z'");
	expect_rejected(PARSE(&o, msg, "--cpus"), msg, "needs a value");
	expect_rejected(PARSE(&o, msg, "a.elf", "b.elf"), msg, "'b.elf'");
	expect_rejected(PARSE(&o, msg, "--sandbox=yes"), msg, "--sandbox");
	expect_rejected(PARSE(&o, msg, "--guest=bsd"), msg, "--guest: 'bsd' is not a kind");
	expect_rejected(PARSE(&o, msg, "--disk=,ro"), msg, "--disk: give a raw disk image");
	expect_rejected(PARSE(&o, msg, "--disk="), msg, "--disk: give a raw disk image");
	expect_rejected(PARSE(&o, msg, "--disk=a.img", "--disk=b.img"), msg,
			"--disk: only 1 disk per run; drop --disk=b.img");
	expect_rejected(PARSE(&o, msg, "--watch=dc"), msg, "use soft, hw or sample");
	expect_rejected(PARSE(&o, msg, "--sample-delay=5"), msg,
			"--sample-delay: only with --watch=sample");
	expect_rejected(PARSE(&o, msg, "--sample-only=ext4_*"), msg,
			"--sample-only: only with --watch=sample");
	expect_rejected(PARSE(&o, msg, "--sample-breakpoints=1"), msg,
			"--sample-breakpoints: only with --watch=sample");
	expect_rejected(PARSE(&o, msg, "--watch=sample", "--sample-breakpoints=4"), msg,
			"--sample-breakpoints: '4' is not a count from 1 to 3");
	expect_rejected(PARSE(&o, msg, "--watch=sample", "--sample-breakpoints=0"), msg,
			"from 1 to 3");
	expect_rejected(PARSE(&o, msg, "--watch=sample", "--sample-delay=1001"), msg,
			"from 0 to 1000");
	expect_rejected(PARSE(&o, msg, "--watch=sample", "--sample-period=0"), msg,
			"from 1 to 60000");
	expect_rejected(PARSE(&o, msg, "--watch=sample", "--sample-only=,"), msg,
			"--sample-only: give function name patterns");
	/* The ranges' ends the rejections state are in. */
	CHECK(PARSE(&o, msg, "--watch=sample", "--sample-breakpoints=3", "--sample-delay=1000",
		    "--sample-period=60000") == 0);
	CHECK(o.watch_sample && !o.watch_hw && o.sample_breakpoints == 3 &&
	      o.sample_delay_ms == 1000 && o.sample_period_ms == 60000);
	options_free(&o);
}

/* --compare[=MODES]: plain is soft and hw (0); sampling's knobs come with its mode. */
static void test_compare_modes(void)
{
	struct options o;
	char msg[512];

	CHECK(PARSE(&o, msg, "--compare") == 0);
	CHECK(o.compare && o.compare_modes == 0);
	options_free(&o);
	CHECK(PARSE(&o, msg, "--compare=sample,soft,hw", "--sample-only=test_kernel_*",
		    "--sample-delay=0") == 0);
	CHECK(o.compare && o.compare_modes == COMPARE_ALL_MODES && !o.watch_sample);
	CHECK(o.sample_only && strcmp(o.sample_only, "test_kernel_*") == 0);
	CHECK(o.sample_delay_given && o.sample_delay_ms == 0);
	options_free(&o);
	CHECK(PARSE(&o, msg, "--compare=hw") == 0);
	CHECK(o.compare_modes == COMPARE_BIT(COMPARE_HW));
	options_free(&o);
	expect_rejected(PARSE(&o, msg, "--compare=all"), msg,
			"--compare=all: give watch modes, each once, as a comma list of soft, hw "
			"and sample");
	expect_rejected(PARSE(&o, msg, "--compare="), msg, "--compare=: give watch modes");
	expect_rejected(PARSE(&o, msg, "--compare=soft,soft"), msg, "each once");
	expect_rejected(PARSE(&o, msg, "--compare=soft,,hw"), msg, "give watch modes");
	expect_rejected(PARSE(&o, msg, "--compare=soft,hw", "--sample-period=5"), msg,
			"--sample-period: only with --watch=sample or --compare=...,sample");
	expect_rejected(PARSE(&o, msg, "--compare=sample", "--watch=sample"), msg,
			"--watch: --compare runs each mode itself");
}

/* --disk=IMAGE[,ro]: the flag comes off the path; a comma elsewhere stays in it. */
static void test_disk(void)
{
	struct options o;
	char msg[512];

	/* --compare boots once per mode: a disk it writes is refused, a read-only one taken. */
	expect_rejected(PARSE(&o, msg, "--compare", "--disk=root.img"), msg,
			"--disk=root.img: --compare boots the guest once per mode, and each run "
			"would find the last one's writes; add ,ro (--disk=root.img,ro)");
	CHECK(PARSE(&o, msg, "--compare", "--disk=root.img,ro", "--run=true") == 0);
	CHECK(o.compare && o.ndisks == 1 && o.workload.run != NULL);
	options_free(&o);
	CHECK(PARSE(&o, msg, "--disk=root.img,ro") == 0);
	CHECK(o.ndisks == 1 && o.disks[0].ro && strcmp(o.disks[0].path, "root.img") == 0);
	options_free(&o);
	CHECK(o.ndisks == 0);
	CHECK(PARSE(&o, msg, "--disk=a,b.img") == 0);
	CHECK(o.ndisks == 1 && !o.disks[0].ro && strcmp(o.disks[0].path, "a,b.img") == 0);
	options_free(&o);
	CHECK(PARSE(&o, msg, "--disk=x.img,rw") == 0);
	CHECK(o.ndisks == 1 && !o.disks[0].ro && strcmp(o.disks[0].path, "x.img") == 0);
	options_free(&o);
	CHECK(PARSE(&o, msg, "g.elf") == 0 && o.ndisks == 0);
	options_free(&o);
}

/* --kaslr: sampling only; Linux's command line then has no nokaslr. */
static void test_kaslr(void)
{
	struct options o;
	char msg[512], *cmd;

	CHECK(PARSE(&o, msg, "--watch=sample", "--kaslr", "bzImage") == 0 && o.kaslr);
	options_free(&o);
	CHECK(PARSE(&o, msg, "--kaslr", "bzImage") != 0);
	CHECK(strstr(msg, "--kaslr: only with --watch=sample") != NULL);
	CHECK(PARSE(&o, msg, "--watch=hw", "--kaslr", "bzImage") != 0);
	CHECK(PARSE(&o, msg, "--compare=soft,hw,sample", "--kaslr", "bzImage") != 0);
	CHECK(strstr(msg, "--kaslr: only with --watch=sample") != NULL);

	cmd = linux_profile.cmdline(NULL, 1, NULL, false);
	CHECK(cmd && strcmp(cmd, "console=ttyS0 nokaslr") == 0);
	free(cmd);
	cmd = linux_profile.cmdline(NULL, 1, NULL, true);
	CHECK(cmd && strcmp(cmd, "console=ttyS0") == 0);
	free(cmd);
	cmd = linux_profile.cmdline(NULL, 1, "quiet", true);
	CHECK(cmd && strcmp(cmd, "console=ttyS0 quiet") == 0);
	free(cmd);
	cmd = linux_profile.cmdline(NULL, 1, "console=hvc0 quiet", false);
	CHECK(cmd && strcmp(cmd, "nokaslr console=hvc0 quiet") == 0);
	free(cmd);
	cmd = linux_profile.cmdline(NULL, 1, "console=hvc0 quiet", true);
	CHECK(cmd && strcmp(cmd, "console=hvc0 quiet") == 0);
	free(cmd);
	CHECK(linux_profile.takes_kaslr && !csan_profile.takes_kaslr);
}

int main(void)
{
	test_defaults();
	test_values();
	test_sizes();
	test_rejections();
	test_disk();
	test_compare_modes();
	test_kaslr();
	return check_exit_status("test-options");
}

/* test-emulated.c: the emulated host's command line for a run (--host=emulated). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "vmm/run/compare_modes.h"
#include "vmm/run/emulated_args.h"
#include "vmm/run/options.h"
#include "check.h"

#define ARGV(...) ((char *[]){ "csan-vmm", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "csan-vmm", __VA_ARGS__ }) / sizeof(char *)))

static size_t count(char *const *v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

/* Whether @v holds @s before the "--" (harness side) or after (inner side). */
static bool has(char *const *v, const char *s, bool inner)
{
	bool past = false;

	for (; *v; v++) {
		if (strcmp(*v, "--") == 0 && !past) {
			past = true;
			continue;
		}
		if (past == inner && strcmp(*v, s) == 0)
			return true;
	}
	return false;
}

static const struct emu_inputs base = {
	.harness = "/opt/lib/csan-vmm/emuhost",
	.self = "/build/csan-vmm",
	.guest = "/home/u/my guest.elf",
	.guest_file_bytes = 70ull << 20,
	.host_cpus = 2,
};

/* Every option the user gave reaches the inner csan-vmm with the same meaning. */
static void test_round_trip(void)
{
	struct options o, back;
	struct emu_inputs in = base;
	char **v;
	char *const *inner;

	CHECK(options_parse(ARGC("--cpus=4", "-m", "1G", "-a", "x=1", "-a", "y='2 3'",
				 "--scenario=bits", "--timeout=30", "--seed=99", "--watch=hw",
				 "--report-json=r.json", "--sandbox=off", "-q", "--host=emulated",
				 "--guest=linux", "--disk=d.img,ro", "g.elf"),
			    ARGV("--cpus=4", "-m", "1G", "-a", "x=1", "-a", "y='2 3'",
				 "--scenario=bits", "--timeout=30", "--seed=99", "--watch=hw",
				 "--report-json=r.json", "--sandbox=off", "-q", "--host=emulated",
				 "--guest=linux", "--disk=d.img,ro", "g.elf"),
			    &o, stderr) == 0);
	in.report_json = "/home/u/r.json";
	in.disks[0] = "/home/u/d.img";
	v = emulated_argv(&o, &in);
	CHECK(v != NULL);
	if (!v)
		return;
	inner = emulated_inner_argv(v);
	CHECK(inner && strcmp(inner[0], "csan-vmm") == 0);
	CHECK(options_parse((int)count(inner), (char **)inner, &back, stderr) == 0);
	CHECK(back.host == OPT_HOST_KVM); /* inside, never recurse */
	CHECK(back.cpus == 4);
	CHECK(back.mem_given);
	CHECK_EQ_U64(back.mem_bytes, 1ull << 30);
	CHECK(back.guest_kind == GUEST_LINUX);
	CHECK(back.append && strcmp(back.append, "x=1 y='2 3'") == 0);
	CHECK(back.scenario && strcmp(back.scenario, "bits") == 0);
	CHECK(back.timeout_s == 30 && back.seed_given && back.seed == 99);
	CHECK(back.watch_given && back.watch_hw && !back.compare);
	CHECK(back.report_json && strcmp(back.report_json, EMU_REPORT_JSON) == 0);
	CHECK(back.sandbox_given && !back.sandbox && back.quiet);
	CHECK(back.console_escapes == CONSOLE_ESCAPES_OFF);
	CHECK(back.guest_path && strcmp(back.guest_path, EMU_GUEST_DIR "my guest.elf") == 0);
	/* The disk: the emulated host's first virtio drive inside, the user's file outside. */
	CHECK(back.ndisks == 1 && back.disks[0].ro && strcmp(back.disks[0].path, "/dev/vda") == 0);
	CHECK(has(v, "--disk=/home/u/d.img,ro", false));
	/* The harness side: the files carried in and handed back. */
	CHECK(strcmp(v[0], base.harness) == 0);
	CHECK(has(v, "--file=/build/csan-vmm:" EMU_SELF, false));
	CHECK(has(v, "--file=/home/u/my guest.elf:" EMU_GUEST_DIR "my guest.elf", false));
	CHECK(has(v, "--output=" EMU_REPORT_JSON ":/home/u/r.json", false));
	CHECK(has(v, "--cpus=2", false)); /* 4 vCPUs, but this machine has 2 CPUs */
	/* 1 GiB guest + 1024 + twice the 70 MiB ELF (rounded up). */
	CHECK(has(v, "--memory=2190", false));
	CHECK(has(v, "--timeout=330", false));
	CHECK(!has(v, "--stdin", false));
	options_free(&o);
	options_free(&back);
	emulated_argv_free(v);
}

/* --compare with its JSON; keys relayed; no --timeout: the harness's long limit. */
static void test_compare_and_keys(void)
{
	struct options o, back;
	struct emu_inputs in = base;
	char **v;
	char *const *inner;
	char limit[32];

	CHECK(options_parse(ARGC("--compare", "--compare-json=c.json", "--scenario=all", "-c", "1"),
			    ARGV("--compare", "--compare-json=c.json", "--scenario=all", "-c", "1"),
			    &o, stderr) == 0);
	in.compare_json = "/tmp/c.json";
	in.relay_stdin = true;
	in.guest_file_bytes = 100 << 10;
	v = emulated_argv(&o, &in);
	CHECK(v != NULL);
	if (!v)
		return;
	inner = emulated_inner_argv(v);
	CHECK(options_parse((int)count(inner), (char **)inner, &back, stderr) == 0);
	CHECK(back.compare && !back.watch_given && back.compare_modes == 0);
	CHECK(back.compare_json && strcmp(back.compare_json, EMU_COMPARE_JSON) == 0);
	CHECK(back.scenario && strcmp(back.scenario, "all") == 0);
	CHECK(back.console_escapes == CONSOLE_ESCAPES_ON);
	CHECK(!back.seed_given && !back.sandbox_given && back.timeout_s == 0);
	CHECK(!back.mem_given && back.guest_kind == GUEST_AUTO); /* the defaults stay the inner's */
	CHECK(has(v, "--stdin", false));
	CHECK(has(v, "--cpus=1", false));
	/* No --memory: room for a Linux guest's 512 MiB default, at least the floor. */
	CHECK(has(v, "--memory=2048", false));
	snprintf(limit, sizeof(limit), "--timeout=%u", EMU_TIMEOUT_NONE_S);
	CHECK(has(v, limit, false));
	CHECK(has(v, "--output=" EMU_COMPARE_JSON ":/tmp/c.json", false));
	CHECK(!has(v, "--report-json=" EMU_REPORT_JSON, true));
	CHECK(back.ndisks == 0);
	options_free(&o);
	options_free(&back);
	emulated_argv_free(v);

	/* --compare=MODES crosses whole, with sampling's knobs. */
	CHECK(options_parse(ARGC("--compare=sample,soft", "--sample-only=f_*"),
			    ARGV("--compare=sample,soft", "--sample-only=f_*"), &o, stderr) == 0);
	v = emulated_argv(&o, &base);
	CHECK(v != NULL);
	if (!v)
		return;
	inner = emulated_inner_argv(v);
	CHECK(has(v, "--compare=soft,sample", true));
	CHECK(options_parse((int)count(inner), (char **)inner, &back, stderr) == 0);
	CHECK(back.compare &&
	      back.compare_modes == (COMPARE_BIT(COMPARE_SOFT) | COMPARE_BIT(COMPARE_SAMPLE)));
	CHECK(back.sample_only && strcmp(back.sample_only, "f_*") == 0);
	options_free(&o);
	options_free(&back);
	emulated_argv_free(v);
}

/*
 * --run with --add and --initrd: the archive built outside crosses as one
 * file, the inner csan-vmm gets it as --initrd with --workload-in-initrd
 * and no --add (the host's files stay here); a bare --initrd crosses as is.
 */
static void test_workload(void)
{
	struct options o, back;
	struct emu_inputs in = base;
	char **v;
	char *const *inner;

	CHECK(options_parse(
		      ARGC("--run=./repro 'a b'", "--add=/home/u/repro", "--initrd=u.cpio", "bz"),
		      ARGV("--run=./repro 'a b'", "--add=/home/u/repro", "--initrd=u.cpio", "bz"),
		      &o, stderr) == 0);
	in.initrd = "/tmp/csan-vmm-initrd.abc";
	in.initrd_bytes = 1500ull << 20; /* counts twice: 64 + 1024 + 2 * 71 + 2 * 1501 */
	v = emulated_argv(&o, &in);
	CHECK(v != NULL);
	if (!v)
		return;
	inner = emulated_inner_argv(v);
	CHECK(inner != NULL);
	CHECK(has(v, "--file=/tmp/csan-vmm-initrd.abc:" EMU_INITRD, false));
	CHECK(has(v, "--memory=4232", false));
	CHECK(inner && options_parse((int)count(inner), (char **)inner, &back, stderr) == 0);
	if (inner) {
		CHECK(back.workload.run && strcmp(back.workload.run, "./repro 'a b'") == 0);
		CHECK(back.workload.initrd && strcmp(back.workload.initrd, EMU_INITRD) == 0);
		CHECK(back.workload.prebuilt && back.workload.nadds == 0);
		options_free(&back);
	}
	options_free(&o);
	emulated_argv_free(v);

	CHECK(options_parse(ARGC("--initrd=u.cpio", "bz"), ARGV("--initrd=u.cpio", "bz"), &o,
			    stderr) == 0);
	in.initrd = "/home/u/u.cpio";
	v = emulated_argv(&o, &in);
	inner = v ? emulated_inner_argv(v) : NULL;
	CHECK(inner && options_parse((int)count(inner), (char **)inner, &back, stderr) == 0);
	if (inner) {
		CHECK(!back.workload.run && !back.workload.prebuilt);
		CHECK(back.workload.initrd && strcmp(back.workload.initrd, EMU_INITRD) == 0);
		options_free(&back);
	}
	CHECK(v && has(v, "--file=/home/u/u.cpio:" EMU_INITRD, false));
	options_free(&o);
	emulated_argv_free(v);
}

/* A Linux guest's module files are copied in, and the inner run told where. */
static void test_modules(void)
{
	char *const kos[] = { "/k/drivers/a-b.ko", "/k/lib/c.ko.xz" };
	struct emu_inputs in = base;
	struct options o;
	char **v;

	CHECK(options_parse(ARGC("--modules=/"), ARGV("--modules=/"), &o, stderr) == 0);
	CHECK(o.modules_dir && strcmp(o.modules_dir, "/") == 0);
	v = emulated_argv(&o, &in);
	CHECK(v && !has(v, "--modules=" EMU_MODULES_DIR, true)); /* none found: none said */
	emulated_argv_free(v);
	in.modules = kos;
	in.nmodules = 2;
	v = emulated_argv(&o, &in);
	CHECK(v != NULL);
	if (v) {
		CHECK(has(v, "--file=/k/drivers/a-b.ko:" EMU_MODULES_DIR "/a-b.ko", false));
		CHECK(has(v, "--file=/k/lib/c.ko.xz:" EMU_MODULES_DIR "/c.ko.xz", false));
		CHECK(has(v, "--modules=" EMU_MODULES_DIR, true));
	}
	emulated_argv_free(v);
	options_free(&o);
	/* A --modules that is not a directory is refused when given. */
	CHECK(options_parse(ARGC("--modules=/nonexistent-dir"), ARGV("--modules=/nonexistent-dir"),
			    &o, stderr) != 0);
}

/* --watch=sample and its knobs reach the inner csan-vmm as given; knobs not given stay unset. */
static void test_sample(void)
{
	struct options o, back;
	struct emu_inputs in = base;
	char **v;
	char *const *inner;

	CHECK(options_parse(ARGC("--watch=sample", "--sample-breakpoints=3", "--sample-delay=0",
				 "--sample-only=race_test_*,foo", "vmlinux"),
			    ARGV("--watch=sample", "--sample-breakpoints=3", "--sample-delay=0",
				 "--sample-only=race_test_*,foo", "vmlinux"),
			    &o, stderr) == 0);
	v = emulated_argv(&o, &in);
	CHECK(v != NULL);
	if (!v)
		return;
	inner = emulated_inner_argv(v);
	CHECK(options_parse((int)count(inner), (char **)inner, &back, stderr) == 0);
	CHECK(back.watch_given && back.watch_sample && !back.watch_hw);
	CHECK(back.sample_breakpoints == 3);
	CHECK(back.sample_delay_given && back.sample_delay_ms == 0);
	CHECK(back.sample_period_ms == 0);
	CHECK(back.sample_only && strcmp(back.sample_only, "race_test_*,foo") == 0);
	options_free(&o);
	options_free(&back);
	emulated_argv_free(v);
}

int main(void)
{
	test_round_trip();
	test_sample();
	test_compare_and_keys();
	test_workload();
	test_modules();
	return check_exit_status("test-emulated");
}

/* main.c: csan-vmm's entry point: options, guest image, VM, exit status. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "csan/abi.h"
#include "vmm/base/log.h"
#include "vmm/run/compare.h"
#include "vmm/run/disks.h"
#include "vmm/run/control_client.h"
#include "vmm/image/elf_guest.h"
#include "vmm/image/kernel_image.h"
#include "vmm/run/emulated.h"
#include "vmm/base/exit_status.h"
#include "vmm/run/guest_path.h"
#include "vmm/run/guest_run.h"
#include "vmm/run/host_select.h"
#include "vmm/run/options.h"
#include "vmm/run/workload_run.h"
#include "vmm/kvm/probe.h"
#include "vmm/guest/profile.h"

#define WHY_LEN 512

static void list_scenarios(const struct elf_guest *g)
{
	size_t i;

	for (i = 0; i < g->nscenarios; i++) {
		const struct elf_scenario *s = &g->scenarios[i];

		if (s->flags & CSAN_SCENARIO_TEST_ONLY)
			continue;
		printf("%-24s %s\n", s->name, s->summary);
	}
}

/* One run, as the command line says; returns the exit status. */
static int run_once(const struct options *o, struct elf_guest *g)
{
	struct guest_run_opts ro = { .o = o,
				     .watch_hw = o->watch_hw,
				     .watch_sample = o->watch_sample };
	struct guest_run_result res;
	char hw_why[WHY_LEN];
	uint8_t *initrd = NULL;
	int status;

	if (guest_run_pick_scenario(o, g, &ro.scenario))
		return EXIT_USAGE;
	/*
	 * Can this host do hardware-watchpoint mode?  A few milliseconds in a
	 * throw-away VM.  --watch=hw where guest data breakpoints never fire
	 * (PVM, HOST-FACTS.md) would silently find only what soft mode finds:
	 * refuse with what the probe saw.  A run starting in soft mode leaves
	 * the question to its first switch to hw mode (watch_mode.c).
	 */
	if ((o->watch_hw || o->watch_sample) &&
	    probe_data_watchpoints(hw_why, sizeof(hw_why)) != 1) {
		log_error("--watch=%s: %s", o->watch_sample ? "sample" : "hw", hw_why);
		return EXIT_USAGE;
	}
	ro.hw_known = o->watch_hw;
	if (o->report_json) {
		ro.report_json = fopen(o->report_json, "w");
		if (!ro.report_json) {
			log_error_errno(errno, "--report-json: cannot write %s", o->report_json);
			return EXIT_USAGE;
		}
	}
	if (workload_run_build(o, &initrd, &ro.initrd.len)) {
		if (ro.report_json)
			fclose(ro.report_json);
		return EXIT_USAGE;
	}
	ro.initrd.data = initrd;
	status = guest_run(g, &ro, &res);
	guest_run_result_free(&res);
	free(initrd);
	if (ro.report_json && fclose(ro.report_json))
		log_error_errno(errno, "--report-json");
	return status;
}

/*
 * --probe: this machine's KVM, then (unless --host=kvm) the emulated host;
 * the exit status says whether hw mode runs with the --host given.
 */
static int probe(const struct options *o)
{
	int direct = 2, emu = 2;

	if (o->host != OPT_HOST_EMULATED)
		direct = probe_report(stdout, stderr);
	if (o->host == OPT_HOST_KVM)
		return direct;
	emu = emulated_probe(stdout);
	if (o->host == OPT_HOST_EMULATED)
		return emu;
	printf("--host=auto: --watch=hw and --compare run %s\n", !direct ? "on this machine's KVM"
								 : !emu	 ? "in the emulated host"
									 : "nowhere here");
	return direct && emu ? 2 : 0;
}

/*
 * A run in the emulated host: refuse what cannot cross into it, check the
 * scenario name here (a typo should not cost a boot), then hand over.
 */
static int run_emulated(const struct options *o, const struct elf_guest *g,
			const struct guest_profile *prof, const char *why)
{
	const char *scenario;

	if (o->control_path) {
		log_error("--control: not available in the emulated host, where csan-vmm runs "
			  "inside QEMU and the socket would be too; use the Ctrl-a keys on the "
			  "terminal (they reach it), or a host with /dev/kvm (--host=kvm)");
		return EXIT_USAGE;
	}
	if (!(o->compare && o->scenario && strcmp(o->scenario, OPT_ALL_SCENARIOS) == 0) &&
	    guest_run_pick_scenario(o, g, &scenario))
		return EXIT_USAGE;
	if (o->compare && compare_check(o, g))
		return EXIT_USAGE;
	/* The image goes to the emulated host as its QEMU's drive: check it opens here. */
	if (run_disks_check(o, prof, true))
		return EXIT_USAGE;
	if (o->host == OPT_HOST_AUTO)
		log_error("%s: running in the emulated host (%s); --host=kvm to refuse", why,
			  HOST_EMULATED_COST);
	return emulated_run(o, g->path,
			    g->bz ? (g->sym_path ? g->sym_path : KERNEL_VMLINUX_NONE) : NULL);
}

int main(int argc, char **argv)
{
	struct options o;
	struct elf_guest g;
	struct kernel_symbols_note symbols;
	const struct guest_profile *prof;
	char why[WHY_LEN];
	char *bundled = NULL;
	const char *path;
	int status;

	if (options_parse(argc, argv, &o, stderr))
		return EXIT_USAGE;
	if (o.action == OPT_HELP) {
		options_usage(stdout);
		return EXIT_CLEAN;
	}
	if (o.action == OPT_PROBE) {
		status = probe(&o);
		options_free(&o);
		return status;
	}
	if (o.action == OPT_SEND) {
		status = control_client_send(o.control_path, o.sends, o.nsends);
		options_free(&o);
		return status;
	}
	if (o.action == OPT_VERSION) {
		printf("%s %s (guest ABI %d)\n", PACKAGE_NAME, PACKAGE_VERSION, CSAN_ABI_VERSION);
		return EXIT_CLEAN;
	}
	/* A missing --add or --initrd file is said before anything is opened or booted. */
	if (workload_check(&o.workload, why, sizeof(why))) {
		log_error("%s", why);
		options_free(&o);
		return EXIT_USAGE;
	}
	if (!o.seed_given)
		o.seed = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();

	path = o.guest_path;
	if (!path) {
		bundled = guest_path_bundled(why, sizeof(why));
		if (!bundled) {
			log_error("%s", why);
			options_free(&o);
			return EXIT_USAGE;
		}
		path = bundled;
	}
	if (kernel_image_open(path, o.vmlinux, &g, &symbols, why, sizeof(why))) {
		log_error("%s", why);
		status = EXIT_USAGE;
		goto out;
	}
	/* Once per invocation, before any boot: where the symbols come from, or why none. */
	if (symbols.found[0] && !o.quiet)
		log_error("symbols from %s (the vmlinux of %s's build; --vmlinux to choose)",
			  symbols.found, g.path);
	if (symbols.missing[0])
		log_warn("%s", symbols.missing);
	if (o.action == OPT_LIST_SCENARIOS) {
		if (!g.nscenarios) {
			log_error("%s has no scenario table", g.path);
			status = EXIT_USAGE;
		} else {
			list_scenarios(&g);
			status = EXIT_CLEAN;
		}
	} else if (!(prof = guest_profile_pick(&g, o.guest_kind, why, sizeof(why)))) {
		log_error("%s", why);
		status = EXIT_USAGE;
	} else if ((o.workload.run || o.workload.initrd) && prof != &linux_profile) {
		log_error("%s: %s is a %s guest, which has no user space; give a Linux kernel "
			  "(bzImage or vmlinux)",
			  o.workload.run ? "--run" : "--initrd", g.path, prof->name);
		status = EXIT_USAGE;
	} else if (host_select(&o, prof, why, sizeof(why)) == OPT_HOST_EMULATED) {
		status = run_emulated(&o, &g, prof, why);
	} else {
		status = o.compare ? compare_run(&o, &g) : run_once(&o, &g);
	}
	elf_guest_close(&g);
out:
	free(bundled);
	options_free(&o);
	return status;
}

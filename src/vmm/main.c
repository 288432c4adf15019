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
#include "vmm/elf_guest.h"
#include "vmm/guest_path.h"
#include "vmm/options.h"
#include "vmm/vm.h"

/* Exit statuses, documented in --help, csan-vmm(1) and the README. */
enum {
	EXIT_CLEAN = 0,
	EXIT_RACES = 1,
	EXIT_USAGE = 2,
	EXIT_GUEST_FAILED = 3,
	EXIT_INTERRUPTED = 130,
};

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

/*
 * The scenario the guest is told to run: the one asked for, else the
 * default when the image has it; NULL leaves the choice to the guest.
 * Returns -ENOENT (after saying so) for a name the image does not have.
 */
static int pick_scenario(const struct options *o, const struct elf_guest *g,
			 const char **out)
{
	if (!o->scenario) {
		*out = elf_guest_find_scenario(g, OPT_DEFAULT_SCENARIO)
			       ? OPT_DEFAULT_SCENARIO
			       : NULL;
		return 0;
	}
	if (!g->nscenarios) {
		fprintf(stderr, "csan-vmm: --scenario: %s has no scenario table "
				"(section " CSAN_SCENARIO_SECTION "); drop --scenario "
				"or use the bundled guest\n", g->path);
		return -ENOENT;
	}
	if (!elf_guest_find_scenario(g, o->scenario)) {
		fprintf(stderr, "csan-vmm: --scenario: %s has no scenario '%s'; "
				"'csan-vmm --scenario=list' shows the ones it has\n",
			g->path, o->scenario);
		return -ENOENT;
	}
	*out = o->scenario;
	return 0;
}

static int exit_status(const struct vm_outcome *out, bool quiet)
{
	switch (out->end) {
	case VM_END_EXIT:
		if (out->guest_status == 0) {
			if (!quiet)
				fprintf(stderr, "csan-vmm: guest finished, no races reported\n");
			return EXIT_CLEAN;
		}
		fprintf(stderr, "csan-vmm: guest reported failure (exit status %d)\n",
			out->guest_status);
		return EXIT_GUEST_FAILED;
	case VM_END_SIGNAL:
		fprintf(stderr, "csan-vmm: stopped by %s\n", strsignal(out->signal));
		return EXIT_INTERRUPTED;
	case VM_END_HOST_ERROR:
		return EXIT_USAGE;
	case VM_END_FAULT:
	case VM_END_TIMEOUT:
	default:
		/* vm_run already printed the fault, registers or timeout. */
		return EXIT_GUEST_FAILED;
	}
}

static int run_guest(const struct options *o, struct elf_guest *g)
{
	struct vm_config cfg = {
		.ncpus = o->cpus,
		.mem_bytes = o->mem_bytes,
		.timeout_s = o->timeout_s,
		.quiet = o->quiet,
	};
	struct vm_outcome out = { 0 };
	const char *scenario;
	char why[WHY_LEN];
	char *cmdline = NULL;
	struct vm *vm = NULL;
	int status = EXIT_USAGE;

	if (pick_scenario(o, g, &scenario))
		return EXIT_USAGE;
	if (elf_guest_check_fits(g, o->mem_bytes, why, sizeof(why))) {
		fprintf(stderr, "csan-vmm: %s\n", why);
		return EXIT_USAGE;
	}
	cmdline = options_guest_cmdline(o, scenario);
	if (!cmdline) {
		fprintf(stderr, "csan-vmm: out of memory\n");
		return EXIT_USAGE;
	}
	if (vm_create(&cfg, &vm, why, sizeof(why)) ||
	    elf_guest_load(g, vm_ram(vm), vm_ram_size(vm), why, sizeof(why)) ||
	    vm_boot_setup(vm, g->pvh_entry, cmdline, why, sizeof(why))) {
		fprintf(stderr, "csan-vmm: %s\n", why);
		goto out;
	}
	if (!o->quiet)
		fprintf(stderr, "csan-vmm: booting %s on %u vCPU%s, %" PRIu64 " MiB, "
				"command line \"%s\"\n",
			g->path, o->cpus, o->cpus == 1 ? "" : "s",
			o->mem_bytes >> 20, cmdline);
	if (vm_run(vm, &out)) {
		status = EXIT_USAGE;
		goto out;
	}
	status = exit_status(&out, o->quiet);
out:
	if (vm)
		vm_destroy(vm);
	free(cmdline);
	return status;
}

int main(int argc, char **argv)
{
	struct options o;
	struct elf_guest g;
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
	if (o.action == OPT_VERSION) {
		printf("%s %s (guest ABI %d)\n", PACKAGE_NAME, PACKAGE_VERSION,
		       CSAN_ABI_VERSION);
		return EXIT_CLEAN;
	}
	if (!o.seed_given)
		o.seed = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();

	path = o.guest_path;
	if (!path) {
		bundled = guest_path_bundled(why, sizeof(why));
		if (!bundled) {
			fprintf(stderr, "csan-vmm: %s\n", why);
			options_free(&o);
			return EXIT_USAGE;
		}
		path = bundled;
	}
	if (elf_guest_open(path, &g, why, sizeof(why))) {
		fprintf(stderr, "csan-vmm: %s\n", why);
		status = EXIT_USAGE;
		goto out;
	}
	if (o.action == OPT_LIST_SCENARIOS) {
		if (!g.nscenarios) {
			fprintf(stderr, "csan-vmm: %s has no scenario table\n", g.path);
			status = EXIT_USAGE;
		} else {
			list_scenarios(&g);
			status = EXIT_CLEAN;
		}
	} else {
		status = run_guest(&o, &g);
	}
	elf_guest_close(&g);
out:
	free(bundled);
	options_free(&o);
	return status;
}

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
#include "vmm/console_input.h"
#include "vmm/control_client.h"
#include "vmm/control_server.h"
#include "vmm/elf_guest.h"
#include "vmm/hc_attach.h"
#include "vmm/hc_report.h"
#include "vmm/hw_watch.h"
#include "vmm/guest_path.h"
#include "vmm/options.h"
#include "vmm/probe.h"
#include "vmm/vm.h"
#include "vmm/watch_mode.h"
#include "watch/report_log.h"
#include "watch/sym.h"
#include "watch/unwind.h"

/*
 * Exit statuses, documented in --help, csan-vmm(1) and the README.  A quit
 * asked for by the user (Ctrl-a x, the control socket's quit) is the
 * normal way to end a guest that never exits by itself, so it answers the
 * question a run asks, like a guest that finished: races or none.
 */
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

/* The report pipeline: symbols and unwinder for the image, the report log. */
struct pipeline {
	struct sym *sym;
	struct unwinder *unw;
	struct report_log *log;
	FILE *json;
};

static void pipeline_close(struct pipeline *p)
{
	report_log_free(p->log);
	if (p->json && fclose(p->json))
		perror("csan-vmm: --report-json");
	unwind_free(p->unw); /* before sym_close: it holds sym's Dwfl */
	sym_close(p->sym);
	memset(p, 0, sizeof(*p));
}

/*
 * Open the symbolizer on @path and the report log (and the JSON file).
 * Returns 0, or -errno after printing why.
 */
static int pipeline_open(struct pipeline *p, const struct options *o, const char *path)
{
	struct report_log_opts lo = { 0 };
	char why[WHY_LEN];
	int rc;

	memset(p, 0, sizeof(*p));
	rc = sym_open(path, &p->sym, why, sizeof(why));
	if (!rc)
		rc = unwind_new(p->sym, &p->unw, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "csan-vmm: %s\n", why);
		goto fail;
	}
	if (o->report_json) {
		p->json = fopen(o->report_json, "w");
		if (!p->json) {
			rc = -errno;
			fprintf(stderr, "csan-vmm: --report-json: cannot write %s: %s\n",
				o->report_json, strerror(errno));
			goto fail;
		}
	}
	lo.sym = p->sym;
	lo.env.guest = path;
	lo.env.mode = o->watch_hw ? "hw" : "soft";
	lo.text = stderr;
	lo.json = p->json;
	lo.interval_ms = REPORT_LOG_DEFAULT_INTERVAL_MS;
	rc = report_log_new(&lo, &p->log);
	if (rc) {
		fprintf(stderr, "csan-vmm: out of memory\n");
		goto fail;
	}
	return 0;
fail:
	pipeline_close(p);
	return rc;
}

static int exit_status(const struct vm_outcome *out, uint64_t races, bool quiet)
{
	switch (out->end) {
	case VM_END_EXIT:
		if (out->guest_status == 0 && races) {
			fprintf(stderr, "csan-vmm: guest finished, %" PRIu64 " race report%s\n",
				races, races == 1 ? "" : "s");
			return EXIT_RACES;
		}
		if (out->guest_status == 0) {
			if (!quiet)
				fprintf(stderr, "csan-vmm: guest finished, no races reported\n");
			return EXIT_CLEAN;
		}
		fprintf(stderr, "csan-vmm: guest reported failure (exit status %d)\n",
			out->guest_status);
		return EXIT_GUEST_FAILED;
	case VM_END_QUIT:
		fprintf(stderr, "csan-vmm: stopped on request (quit), %" PRIu64 " race report%s\n",
			races, races == 1 ? "" : "s");
		return races ? EXIT_RACES : EXIT_CLEAN;
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
	struct pipeline pipe;
	const char *scenario;
	char why[WHY_LEN];
	char *cmdline = NULL;
	struct vm *vm = NULL;
	struct control_server *control = NULL;
	struct console_input *console = NULL;
	char hw_why[256];
	bool probe_ok;
	int status = EXIT_USAGE;

	if (pick_scenario(o, g, &scenario))
		return EXIT_USAGE;
	/*
	 * Can this host do hardware-watchpoint mode?  A few milliseconds in a
	 * throw-away VM.  --watch=hw where guest data breakpoints never fire
	 * (PVM, HOST-FACTS.md) would silently find only what soft mode finds:
	 * refuse with what the probe saw.  Otherwise the finding is kept for
	 * the run-time toggle.
	 */
	probe_ok = probe_data_watchpoints(hw_why, sizeof(hw_why)) == 1;
	if (!probe_ok && o->watch_hw) {
		fprintf(stderr, "csan-vmm: --watch=hw: %s\n", hw_why);
		return EXIT_USAGE;
	}
	/* Before anything boots, so a bad --control path costs nothing. */
	if (o->control_path && control_server_open(o->control_path, &control, why, sizeof(why))) {
		fprintf(stderr, "csan-vmm: %s\n", why);
		return EXIT_USAGE;
	}
	memset(&pipe, 0, sizeof(pipe));
	if (elf_guest_check_fits(g, o->mem_bytes, why, sizeof(why))) {
		fprintf(stderr, "csan-vmm: %s\n", why);
		goto out;
	}
	if (pipeline_open(&pipe, o, g->path))
		goto out;
	cmdline = options_guest_cmdline(o, scenario);
	if (!cmdline) {
		fprintf(stderr, "csan-vmm: out of memory\n");
		goto out;
	}
	if (vm_create(&cfg, &vm, why, sizeof(why)) ||
	    elf_guest_load(g, vm_ram(vm), vm_ram_size(vm), why, sizeof(why)) ||
	    vm_boot_setup(vm, g->pvh_entry, cmdline, why, sizeof(why))) {
		fprintf(stderr, "csan-vmm: %s\n", why);
		goto out;
	}
	vm->sym = pipe.sym;
	vm->unw = pipe.unw;
	vm->reports = pipe.log;
	if (probe_ok)
		vm->hw_unavailable[0] = '\0';
	else
		snprintf(vm->hw_unavailable, sizeof(vm->hw_unavailable), "%s", hw_why);
	if (o->watch_hw && watch_mode_set(vm, true, why, sizeof(why))) {
		fprintf(stderr, "csan-vmm: --watch=hw: %s\n", why);
		goto out;
	}
	if ((control && control_server_start(control, vm, why, sizeof(why))) ||
	    console_input_start(vm, STDIN_FILENO, o->console_escapes, &console, why,
				sizeof(why))) {
		fprintf(stderr, "csan-vmm: %s\n", why);
		goto out;
	}
	if (!o->quiet)
		fprintf(stderr, "csan-vmm: booting %s on %u vCPU%s, %" PRIu64 " MiB, "
				"watch mode %s, command line \"%s\"\n",
			g->path, o->cpus, o->cpus == 1 ? "" : "s",
			o->mem_bytes >> 20, o->watch_hw ? "hw" : "soft", cmdline);
	if (vm_run(vm, &out)) {
		status = EXIT_USAGE;
		goto out;
	}
	/* The terminal back to normal before the summary; no more commands. */
	console_input_stop(console);
	console = NULL;
	control_server_close(control);
	control = NULL;
	/* Every vCPU has stopped: the log is complete, whatever ended the run. */
	report_log_summary(pipe.log);
	if (!o->quiet) {
		hc_attach_print_counters(vm, stderr);
		hw_watch_print_stats(vm, stderr);
	}
	status = exit_status(&out, report_log_total(pipe.log), o->quiet);
out:
	console_input_stop(console);
	control_server_close(control);
	if (vm)
		vm_destroy(vm);
	pipeline_close(&pipe);
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
	if (o.action == OPT_PROBE) {
		status = probe_report(stdout, stderr);
		options_free(&o);
		return status;
	}
	if (hc_report_register() || hc_attach_register() || hw_watch_register()) {
		fprintf(stderr, "csan-vmm: internal error: cannot register the hypercalls\n");
		return EXIT_USAGE;
	}
	if (o.action == OPT_SEND) {
		status = control_client_send(o.control_path, o.sends, o.nsends);
		options_free(&o);
		return status;
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

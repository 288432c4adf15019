/* guest_run.c: one run of the guest in one watch mode, start to exit status. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "csan/abi.h"
#include "vmm/base/clock.h"
#include "vmm/base/log.h"
#include "vmm/console/console_input.h"
#include "vmm/run/control_server.h"
#include "vmm/image/elf_guest.h"
#include "vmm/base/exit_status.h"
#include "vmm/run/guest_run.h"
#include "vmm/run/control_cmd.h"
#include "vmm/run/disks.h"
#include "vmm/image/boot.h"
#include "vmm/dev/serial.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/guest/csan/csan_profile.h"
#include "vmm/guest/profile.h"
#include "vmm/run/options.h"
#include "vmm/console/status_line.h"
#include "vmm/hwwatch/watch_mode.h"
#include "vmm/sample/sample.h"
#include "vmm/run/verdict.h"
#include "vmm/run/workload_run.h"
#include "vmm/workload/workload.h"
#include "watch/kmod.h"
#include "watch/report_log.h"
#include "watch/sym.h"
#include "watch/unwind.h"

#define WHY_LEN 512

int guest_run_pick_scenario(const struct options *o, const struct elf_guest *g, const char **out)
{
	if (!o->scenario) {
		*out = elf_guest_find_scenario(g, OPT_DEFAULT_SCENARIO) ? OPT_DEFAULT_SCENARIO
									: NULL;
		return 0;
	}
	if (!g->nscenarios) {
		log_error("--scenario: %s has no scenario table (section " CSAN_SCENARIO_SECTION
			  "); drop --scenario or use the bundled guest",
			  g->path);
		return -ENOENT;
	}
	if (!elf_guest_find_scenario(g, o->scenario)) {
		log_error("--scenario: %s has no scenario '%s'; 'csan-vmm --scenario=list' shows "
			  "the ones it has",
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
};

/* kmod.c's word about a module whose .ko was not found: once per module. */
/* The watch mode a run starts in, as reports, the start line and the JSON say it. */
static const char *watch_mode_word(const struct guest_run_opts *ro)
{
	return ro->watch_sample ? "sample" : ro->watch_hw ? "hw" : "soft";
}

static void note_modules(void *ctx, const char *msg)
{
	(void)ctx;
	log_warn("%s", msg);
}

static void pipeline_close(struct pipeline *p)
{
	report_log_free(p->log);
	unwind_free(p->unw); /* before sym_close: it holds sym's Dwfl */
	sym_close(p->sym);
	memset(p, 0, sizeof(*p));
}

/*
 * Open the symbolizer on @path (NULL: none) and a report log for a run of
 * @guest in @ro's mode.
 * Returns 0, or -errno after printing why.
 */
static int pipeline_open(struct pipeline *p, const struct guest_run_opts *ro, const char *guest,
			 const char *path, const struct guest_profile *prof)
{
	struct report_log_opts lo = { 0 };
	char why[WHY_LEN];
	int rc;

	memset(p, 0, sizeof(*p));
	/* No symbols (a bzImage without its vmlinux): reports stay as the guest printed them. */
	rc = path ? sym_open(path, &p->sym, why, sizeof(why)) : 0;
	if (!rc && p->sym && ro->o->source_root &&
	    sym_set_source_root(p->sym, ro->o->source_root)) {
		snprintf(why, sizeof(why), "--source-root: out of memory");
		rc = -ENOMEM;
	}
	if (!rc && p->sym && !ro->o->source_root && prof->source_root)
		prof->source_root(p->sym);
	if (!rc && p->sym)
		rc = unwind_new(p->sym, &p->unw, why, sizeof(why));
	/* Modules are read beside the vmlinux's symbols: none without them. */
	if (!rc && p->sym) {
		struct kmod_opts ko = { .dir = ro->o->modules_dir, .note = note_modules };

		rc = kmod_attach(p->sym, &ko, why, sizeof(why));
	}
	if (rc) {
		log_error("%s", why);
		goto fail;
	}
	lo.sym = p->sym;
	lo.env.guest = guest;
	lo.env.mode = watch_mode_word(ro);
	lo.text = stderr;
	lo.json = ro->report_json;
	lo.interval_ms = REPORT_LOG_DEFAULT_INTERVAL_MS;
	lo.before_print = log_before_output;
	if (prof->report_log_opts)
		prof->report_log_opts(&lo);
	rc = report_log_new(&lo, &p->log);
	if (rc) {
		log_error("out of memory");
		goto fail;
	}
	return 0;
fail:
	pipeline_close(p);
	return rc;
}

/*
 * The kernel's command line: the profile's, and with --run our init as
 * rdinit=, after the user's --append so it wins (the kernel keeps the
 * last rdinit=): CMD runs, whatever /init the user's --initrd has.
 */
static char *run_cmdline(const struct guest_profile *prof, const struct guest_run_opts *ro,
			 const char *user_append)
{
	const struct options *o = ro->o;
	char *append = NULL, *cmdline;

	if (!o->workload.run)
		return prof->cmdline(ro->scenario, o->seed, user_append, o->kaslr);
	if (asprintf(&append, "%s%s" WORKLOAD_CMDLINE, user_append ? user_append : "",
		     user_append ? " " : "") < 0)
		return NULL;
	cmdline = prof->cmdline(ro->scenario, o->seed, append, o->kaslr);
	free(append);
	return cmdline;
}

/*
 * Say how the run ended, in the words users and tests have read since
 * before the closing summary line: a guest that finished, a quit, a
 * signal.  A fault, a timeout and a host error were said by vm_run.
 */
static void say_how_it_ended(const struct vm_outcome *out, uint64_t races, bool quiet)
{
	switch (out->end) {
	case VM_END_EXIT:
		if (out->guest_status)
			log_error("guest reported failure (exit status %d)", out->guest_status);
		else if (races)
			log_error("guest finished, %" PRIu64 " race report%s", races,
				  races == 1 ? "" : "s");
		else if (!quiet)
			log_error("guest finished, no races reported");
		break;
	case VM_END_QUIT:
		log_error("stopped on request (quit), %" PRIu64 " race report%s", races,
			  races == 1 ? "" : "s");
		break;
	case VM_END_SIGNAL: log_error("stopped by %s", strsignal(out->signal)); break;
	default: break;
	}
}

/*
 * Decide the exit status from what the run and the profile saw, and say
 * it: the closing summary line on stderr (even with --quiet: it is the
 * run's one-line verdict for a CI log) and the "exit" record of
 * --report-json.  Returns the status.
 */
static int conclude(struct vm *vm, const struct guest_profile *prof,
		    const struct guest_run_opts *ro, const struct vm_outcome *out, uint64_t races)
{
	struct verdict_facts f = { .end = *out, .races = races };
	char line[256];
	int status;

	say_how_it_ended(out, races, ro->o->quiet);
	guest_findings_init(&f.seen);
	if (prof->summarize)
		prof->summarize(vm, &f.seen, stderr);
	/* --run: CMD's own status, from the init's port (workload/). */
	if (ro->o->workload.run) {
		f.seen.workload_expected = true;
		f.seen.workload_status = workload_exit_status(vm);
		if (f.seen.workload_status >= 0)
			log_error("workload: '%s' exited with status %d", ro->o->workload.run,
				  f.seen.workload_status);
		else if (out->end == VM_END_EXIT)
			log_error(
				"workload: '%s' never reported an exit status (the guest's init "
				"did not run, or could not reach the status port; see the console)",
				ro->o->workload.run);
	}
	status = verdict_status(&f);
	log_error("%s", verdict_line(line, sizeof(line), &f, status));
	if (ro->report_json) {
		verdict_json(ro->report_json, &f, status, watch_mode_word(ro));
		fflush(ro->report_json);
	}
	return status;
}

/* Ctrl-a w: the watch mode the other way round. */
static int toggle_watch(struct vm *vm, char *why, size_t whylen)
{
	return watch_mode_set(vm, !watch_mode_hw(vm), why, whylen);
}

static const struct console_actions console_actions = {
	.toggle_watch = toggle_watch,
	.watch_name = watch_mode_name,
	.print_stats = control_print_stats,
};

/* A profile plugged into a VM: the context of the hooks that call it. */
struct plug {
	struct vm *vm;
	const struct guest_profile *prof;
};

/* Every console line to the profile, in console order, and its verdict (serial.c). */
static enum console_verdict profile_line_hook(void *ctx, const char *line, size_t len, char *note,
					      size_t notelen)
{
	struct plug *p = ctx;

	return p->prof->console_line(p->vm, line, len, note, notelen);
}

/* The profile's timed work, as a supervisor tick (kvm/hooks.h). */
static int profile_tick_hook(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	const struct guest_profile *prof = ctx;

	(void)vcpu;
	return prof->tick(vm);
}

/* The profile's view of how a run ends, as an exit handler (kvm/hooks.h). */
static int profile_exit_hook(struct vcpu *vcpu, void *ctx)
{
	const struct guest_profile *prof = ctx;

	return prof->exit(vcpu);
}

/*
 * Plug @prof's run-time hooks into @vm's core: console lines, timed work,
 * the exits that end its runs, its preparation for hw mode.
 */
static int plug_profile(struct plug *p, char *why, size_t whylen)
{
	const struct guest_profile *prof = p->prof;
	struct vm *vm = p->vm;
	unsigned i;
	int rc = 0;

	if (prof->console_line)
		rc = serial_set_line_sink(vm->serial, prof->name, profile_line_hook, p, why,
					  whylen);
	if (!rc && prof->tick)
		rc = vm_hook_add(vm, VM_HOOK_TICK, prof->name, profile_tick_hook, (void *)prof, why,
				 whylen);
	for (i = 0;
	     !rc && prof->exit && i < sizeof(prof->exit_reasons) / sizeof(prof->exit_reasons[0]) &&
	     prof->exit_reasons[i];
	     i++)
		rc = vm_handle_exit_reason(vm, prof->exit_reasons[i], prof->name, profile_exit_hook,
					   (void *)prof, why, whylen);
	vm->watch_hw_prepare = prof->watch_hw;
	vm->watch_mode_changed = prof->watch_changed;
	return rc;
}

/* The status line's counts: the guest's watchpoints and the races so far. */
static void status_sample(struct vm *vm, void *ctx, struct status_sample *s)
{
	const struct plug *p = ctx;

	if (p->prof->watchpoint_counts)
		p->prof->watchpoint_counts(vm, &s->setup_watchpoints, &s->hw_armed);
	s->races = vm->reports ? report_log_total(vm->reports) : 0;
}

/*
 * Create the VM with the devices every guest has (the 16550, the
 * debug-register engine), load @g, let @prof add its own, plug it in and
 * set up the boot; prints why not.  Returns 0 or -errno.
 */
static int build_vm(struct elf_guest *g, struct plug *plug, const struct vm_config *cfg,
		    bool status_line, bool workload, const char *cmdline,
		    const struct boot_initrd *initrd, struct run_disks *disks, struct vm **vm)
{
	const struct guest_profile *prof = plug->prof;
	char why[WHY_LEN];
	int rc;

	rc = vm_create(cfg, vm, why, sizeof(why));
	if (!rc)
		rc = serial_attach(*vm, STDOUT_FILENO, why, sizeof(why));
	if (!rc)
		rc = hw_watch_attach(*vm, why, sizeof(why));
	if (!rc && status_line)
		rc = status_line_attach(*vm, status_sample, plug, why, sizeof(why));
	/* A bzImage is copied in by its boot below; its vmlinux only describes it. */
	if (!rc && !g->bz)
		rc = elf_guest_load(g, vm_ram(*vm), vm_ram_size(*vm), why, sizeof(why));
	/* An image with the csan ABI note calls the csan hypercalls, whatever runs it. */
	if (!rc && g->abi_version)
		rc = csan_hypercalls_attach(*vm, why, sizeof(why));
	if (!rc) {
		(*vm)->image = g;
		plug->vm = *vm;
		if (prof->setup)
			rc = prof->setup(*vm, why, sizeof(why));
	}
	/* The VM owns the disks from here, attached or not. */
	if (rc)
		run_disks_close(disks);
	else
		rc = run_disks_attach(*vm, disks, why, sizeof(why));
	if (!rc)
		rc = plug_profile(plug, why, sizeof(why));
	/* --run: the guest's init reports CMD's exit status on a port of its own. */
	if (!rc && workload)
		rc = workload_attach(*vm, why, sizeof(why));
	if (!rc)
		rc = g->bz ? boot_bzimage(*vm, g->bz, cmdline, initrd, why, sizeof(why))
			   : boot_setup(*vm, g->pvh_entry, g->image_end, cmdline, initrd, why,
					sizeof(why));
	if (rc)
		log_error("%s", why);
	return rc;
}

/*
 * --watch=sample: a stock Linux kernel's text sampled from the host
 * (sample/), with the knobs given or their defaults and the run's seed.
 * Says why not and returns -errno when it cannot.
 */
static int start_sampling(struct vm *vm, const struct guest_profile *prof, const struct options *o)
{
	struct sample_opts so = {
		.breakpoints =
			o->sample_breakpoints ? o->sample_breakpoints : SAMPLE_DEFAULT_BREAKPOINTS,
		.delay_ms = o->sample_delay_given ? o->sample_delay_ms : SAMPLE_DEFAULT_DELAY_MS,
		.period_ms = o->sample_period_ms ? o->sample_period_ms : SAMPLE_DEFAULT_PERIOD_MS,
		.seed = o->seed,
		.only = o->sample_only,
	};
	char why[WHY_LEN];
	int rc;

	if (prof != &linux_profile) {
		log_error(
			"--watch=sample: for a Linux kernel; the %s guest has soft watchpoints of "
			"its own (--watch=soft or hw)",
			prof->name);
		return -EINVAL;
	}
	rc = sample_attach(vm, &so, why, sizeof(why));
	if (rc)
		log_error("%s", why);
	return rc;
}

int guest_run(struct elf_guest *g, const struct guest_run_opts *ro, struct guest_run_result *res)
{
	const struct options *o = ro->o;
	const struct guest_profile *prof;
	struct vm_config cfg = {
		.ncpus = o->cpus,
		.mem_bytes = o->mem_bytes,
		.timeout_s = o->timeout_s,
		.sandbox = o->sandbox,
	};
	struct control_server *control = NULL;
	struct console_input *console = NULL;
	struct pipeline pipe = { 0 };
	struct plug plug = { 0 };
	struct run_disks disks = { 0 };
	uint64_t t0;
	char why[WHY_LEN];
	char *cmdline = NULL, *append = NULL;
	struct vm *vm = NULL;

	memset(res, 0, sizeof(*res));
	res->status = EXIT_USAGE;
	/* Before anything boots, so a bad --control path costs nothing. */
	if (o->control_path && control_server_open(o->control_path, &control, why, sizeof(why))) {
		log_error("%s", why);
		return res->status;
	}
	prof = guest_profile_pick(g, o->guest_kind, why, sizeof(why));
	if (!prof) {
		log_error("%s", why);
		goto out;
	}
	if (o->kaslr && !prof->takes_kaslr) {
		log_error("--kaslr: a %s guest does not place itself at random; drop --kaslr",
			  prof->name);
		goto out;
	}
	if (prof->default_mem_bytes && !o->mem_given)
		cfg.mem_bytes = prof->default_mem_bytes;
	if (g->bz ? boot_bzimage_check_fits(g->bz, cfg.mem_bytes, ro->initrd.len, why, sizeof(why))
		  : elf_guest_check_fits(g, cfg.mem_bytes, why, sizeof(why))) {
		log_error("%s", why);
		goto out;
	}
	if (pipeline_open(&pipe, ro, g->path, g->sym_path, prof))
		goto out;
	/* A disk that cannot be opened as asked costs no boot. */
	if (run_disks_check(o, prof, false) || run_disks_open(o, &disks))
		goto out;
	if (run_disks_append(&disks, o->append, &append) ||
	    !(cmdline = run_cmdline(prof, ro, append))) {
		log_error("out of memory");
		goto out;
	}
	t0 = clock_now_ns();
	plug.prof = prof;
	if (build_vm(g, &plug, &cfg, status_line_wanted(o->quiet), o->workload.run != NULL, cmdline,
		     &ro->initrd, &disks, &vm))
		goto out;
	vm->sym = pipe.sym;
	vm->unw = pipe.unw;
	vm->reports = pipe.log;
	if (ro->hw_known) {
		snprintf(vm->hw_unavailable, sizeof(vm->hw_unavailable), "%s",
			 ro->hw_unavailable ? ro->hw_unavailable : "");
		vm->hw_probed = true;
	}
	if (ro->watch_hw && watch_mode_set(vm, true, why, sizeof(why))) {
		log_error("--watch=hw: %s", why);
		goto out;
	}
	if (ro->watch_sample && start_sampling(vm, prof, o))
		goto out;
	if ((control && control_server_start(control, vm, why, sizeof(why))) ||
	    console_input_start(vm, STDIN_FILENO, o->console_escapes, &console_actions, &console,
				why, sizeof(why))) {
		log_error("%s", why);
		goto out;
	}
	if (!o->quiet)
		log_error("booting %s (%s guest) on %u vCPU%s, %" PRIu64
			  " MiB, watch mode %s, command line \"%s\"",
			  g->path, prof->name, o->cpus, o->cpus == 1 ? "" : "s",
			  cfg.mem_bytes >> 20, watch_mode_word(ro), cmdline);
	if (vm_run(vm, &res->outcome))
		goto out;
	res->wall_s = (double)(clock_now_ns() - t0) / 1e9;
	res->ran = true;
	/* The terminal back to normal before the summary; no more commands. */
	console_input_stop(console);
	console = NULL;
	control_server_close(control);
	control = NULL;
	if (prof->result_line)
		prof->result_line(vm, res->result_line, sizeof(res->result_line));
	/* Every vCPU has stopped: the log is complete, whatever ended the run. */
	if (prof->console_end)
		prof->console_end(vm);
	report_log_summary(pipe.log);
	if (!o->quiet) {
		if (prof->print_counters)
			prof->print_counters(vm, stderr);
		hw_watch_print_stats(vm, stderr);
		sample_print_stats(vm, stderr);
	}
	/* Before the exit record, which stays the file's last. */
	if (ro->report_json)
		sample_json_stats(vm, ro->report_json);
	res->status = conclude(vm, prof, ro, &res->outcome, report_log_total(pipe.log));
	/* The caller reads the races after the symbols are gone: they are plain strings. */
	res->log = pipe.log;
	pipe.log = NULL;
out:
	console_input_stop(console);
	control_server_close(control);
	if (vm && vm->serial)
		/* serial_destroy's last flush must not reach the profile. */
		serial_set_line_sink(vm->serial, "guest_run", NULL, NULL, NULL, 0);
	if (vm && plug.vm && prof->teardown)
		prof->teardown(vm);
	if (vm)
		vm_destroy(vm);
	pipeline_close(&pipe);
	run_disks_close(&disks);
	free(append);
	free(cmdline);
	return res->status;
}

void guest_run_result_free(struct guest_run_result *res)
{
	report_log_free(res->log);
	res->log = NULL;
}

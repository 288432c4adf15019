/* linux_record.c: a parsed Linux KCSAN report as the report log's record. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "watch/kmod.h"
#include "watch/linux_report.h"
#include "watch/report.h"
#include "watch/report_log.h"

/*
 * The address a printed frame stands for, where the guest runs it: the
 * symbol's start in the ELF moved by the kernel's KASLR offset (or in the
 * module's .ko, placed by kmod.c at the module's guest address) plus the
 * printed offset.  An offset beyond both sizes means the name matched
 * another function.
 */
static uint64_t frame_addr(struct sym *sym, const struct linux_frame *f)
{
	uint64_t start, size;
	int rc;

	if (!f->func[0])
		return f->addr;
	if (f->module[0])
		rc = kmod_addr_of(sym, f->module, f->func, f->size, &start, &size);
	else if ((rc = sym_addr_of(sym, f->func, f->size, &start, &size)) == 0)
		start += (uint64_t)sym_image_offset(sym);
	if (rc != 0)
		return 0;
	if (f->off >= (f->size > size ? f->size : size) && f->off)
		return 0;
	return start + f->off;
}

static int side_record(const struct linux_access *a, unsigned i, struct sym *sym,
		       struct csan_report_side *s, unsigned *unresolved, char *why, size_t whylen)
{
	uint64_t pc;
	int j;

	if (a->cpu >= CSAN_MAX_CPUS)
		return report_reject(why, whylen,
				     "side %u: cpu %" PRIu32 " is not below csan-vmm's %d", i,
				     a->cpu, CSAN_MAX_CPUS);
	s->addr = a->addr;
	s->size = a->size > CSAN_REPORT_MAX_SIZE ? CSAN_REPORT_MAX_SIZE
		  : a->size			 ? (uint32_t)a->size
						 : 1;
	s->access = a->access;
	s->cpu = a->cpu;
	s->context = a->interrupt ? CSAN_CTX_INTERRUPT : CSAN_CTX_TASK;
	s->task_id = a->interrupt ? 0 : a->task;
	s->mechanism = CSAN_MECH_SOFT_WATCH;
	/* stack_trace_save's entries are return addresses, the first one too. */
	s->flags = CSAN_SIDE_IP_AFTER;
	for (j = 0; j < a->nframes; j++) {
		pc = frame_addr(sym, &a->frames[j]);
		if (!pc) {
			(*unresolved)++;
			continue;
		}
		if (!s->ip)
			s->ip = pc;
		else if (s->nret < CSAN_REPORT_MAX_STACK)
			s->ret[s->nret++] = pc;
	}
	if (!s->ip) {
		if (!a->nframes)
			return report_reject(why, whylen, "side %u: no stack frames", i);
		return report_reject(
			why, whylen,
			"side %u: none of its %d frames is in %s (the first: %s%s+0x%" PRIx64
			"/0x%" PRIx64 "): is it this kernel's vmlinux?",
			i, a->nframes, sym_path(sym), a->frames[0].func,
			a->frames[0].module[0] ? " [module]" : "", a->frames[0].off,
			a->frames[0].size);
	}
	return 0;
}

int linux_report_to_record(const struct linux_report *lr, struct sym *sym,
			   struct csan_hc_report *out, unsigned *unresolved, char *why,
			   size_t whylen)
{
	unsigned i, lost = 0, want;
	bool any_assert = false;
	int err;

	memset(out, 0, sizeof(*out));
	if (unresolved)
		*unresolved = 0;
	want = lr->kind == CSAN_REPORT_UNKNOWN_ORIGIN ? 1 : 2;
	if (lr->nsides != want)
		return report_reject(why, whylen, "\"%s\": %u access line%s, a %s report has %u",
				     lr->title, lr->nsides, lr->nsides == 1 ? "" : "s",
				     report_kind_name(lr->kind), want);
	for (i = 0; i < lr->nsides; i++) {
		err = side_record(&lr->side[i], i, sym, &out->side[i], &lost, why, whylen);
		if (err)
			return err;
		any_assert |= (lr->side[i].access & CSAN_ACCESS_ASSERT) != 0;
	}
	out->nsides = lr->nsides;
	/* The kind follows the accesses, as KCSAN's title does (get_bug_type). */
	out->kind = lr->kind == CSAN_REPORT_UNKNOWN_ORIGIN ? CSAN_REPORT_UNKNOWN_ORIGIN
		    : any_assert			   ? CSAN_REPORT_ASSERT
							   : CSAN_REPORT_DATA_RACE;
	out->value_flags = lr->value_flags;
	out->old_value = lr->old_value;
	out->new_value = lr->new_value;
	out->mask = lr->mask;
	if (unresolved)
		*unresolved = lost;
	return 0;
}

int linux_report_submit(struct report_log *log, struct sym *sym, const struct linux_report *lr,
			unsigned *unresolved, char *why, size_t whylen)
{
	struct csan_hc_report rec;
	int err = linux_report_to_record(lr, sym, &rec, unresolved, why, whylen);

	return err ? err : report_log_submit(log, &rec, why, whylen);
}

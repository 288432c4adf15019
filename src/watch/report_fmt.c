/* report_fmt.c: race reports as KCSAN-style text and as JSON Lines. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "watch/report.h"

/* KCSAN's rule: 66 '=' (kernel/kcsan/report.c). */
static const char rule[] = "==================================================================";

/*
 * One frame as syzbot's symbolized reports show it: the function with
 * +offset/size (from the ELF symbol, as the kernel's %pS) and file:line;
 * an inline level has no offset of its own and is marked [inline].
 */
static void print_frame_marked(FILE *f, const struct sym_frame *fr, const char *prefix,
			       const char *mark)
{
	fputs(prefix, f);
	if (!fr->func)
		fprintf(f, "0x%016" PRIx64, fr->addr);
	else if (fr->inlined || !fr->symbol)
		fputs(fr->func, f);
	else
		fprintf(f, "%s+0x%" PRIx64 "/0x%" PRIx64, fr->symbol, fr->sym_off, fr->sym_size);
	/* As the kernel marks a module's frames. */
	if (fr->module && !fr->inlined)
		fprintf(f, " [%s]", fr->module);
	if (fr->file)
		fprintf(f, " %s:%d", fr->file, fr->line);
	if (fr->inlined)
		fputs(" [inline]", f);
	if (mark)
		fputs(mark, f);
	fputc('\n', f);
}

static void print_frame(FILE *f, const struct sym_frame *fr, const char *prefix)
{
	print_frame_marked(f, fr, prefix, NULL);
}

static void print_side_stack(FILE *f, const struct report_side_sym *ss)
{
	int i;

	/* An interrupt's stack ends at its entry, marked so nobody looks for more. */
	for (i = ss->dropped; i < ss->nframes; i++)
		print_frame_marked(f, &ss->frames[i], " ",
				   i == ss->entry ? " [interrupt entry]" : NULL);
}

/* KCSAN's words for @access, "scoped" said as @env asks, in @buf. */
static const char *access_words(uint32_t access, const struct report_env *env, char *buf,
				size_t len)
{
	const char *name = report_access_name(access), *at;

	if (!name || !env->scoped_word || !(at = strstr(name, "scoped")))
		return name;
	snprintf(buf, len, "%.*s%s%s", (int)(at - name), name, env->scoped_word, at + 6);
	return buf;
}

/* "write to 0x... of 4 bytes by task 3 on cpu 1:" (@lead for unknown origin). */
static void print_access(FILE *f, const struct csan_report_side *s, const char *lead,
			 const struct report_env *env)
{
	char words[64];

	fprintf(f, "%s%s to 0x%016" PRIx64 " of %" PRIu32 " bytes by ", lead,
		access_words(s->access, env, words, sizeof(words)), s->addr, s->size);
	if (s->context == CSAN_CTX_INTERRUPT)
		fputs("interrupt", f);
	else
		fprintf(f, "task %" PRIu32, s->task_id);
	fprintf(f, " on cpu %" PRIu32 ":\n", s->cpu);
}

/*
 * KCSAN prints a value change only for accesses of up to 8 bytes and only
 * when bits (under the mask, if any) really changed; a mask adds the line
 * that says which of its bits did.
 */
static void print_values(FILE *f, const struct csan_hc_report *r)
{
	const struct csan_report_side *s = &r->side[r->nsides - 1];
	const uint32_t both = CSAN_VALUE_OLD | CSAN_VALUE_NEW;
	int width = (int)s->size * 2;
	uint64_t diff = r->old_value ^ r->new_value;

	if ((r->value_flags & both) != both || s->size > 8)
		return;
	if (r->value_flags & CSAN_VALUE_MASK)
		diff &= r->mask;
	if (!diff)
		return;
	fprintf(f, "\nvalue changed: 0x%0*" PRIx64 " -> 0x%0*" PRIx64 "\n", width, r->old_value,
		width, r->new_value);
	if (r->value_flags & CSAN_VALUE_MASK)
		fprintf(f, " bits changed: 0x%0*" PRIx64 " with mask 0x%0*" PRIx64 "\n", width,
			diff, width, r->mask);
}

void report_print_text(FILE *f, const struct csan_hc_report *r, const struct report_sym *rs,
		       const struct report_env *env)
{
	char words[64];
	unsigned i;

	flockfile(f);
	fprintf(f, "%s\n%s\n\n", rule, rs->title);
	if (r->kind == CSAN_REPORT_UNKNOWN_ORIGIN) {
		print_access(f, &r->side[0], "race at unknown origin, with ", env);
		print_side_stack(f, &rs->side[0]);
	} else {
		for (i = 0; i < r->nsides; i++) {
			if (i)
				fputc('\n', f);
			print_access(f, &r->side[i], "", env);
			print_side_stack(f, &rs->side[i]);
		}
	}
	print_values(f, r);
	/* KCSAN names the kernel and machine here; we name the VMM's view. */
	fprintf(f, "\nReported by csan-vmm on guest %s (watch mode: %s)\nSeen by:",
		env->guest ? env->guest : "?", env->mode ? env->mode : "?");
	for (i = 0; i < r->nsides; i++)
		fprintf(f, "%s %s (%s)", i ? "," : "", report_mech_name(r->side[i].mechanism),
			access_words(r->side[i].access, env, words, sizeof(words)));
	fprintf(f, "\n%s\n", rule);
	funlockfile(f);
}

void report_print_stack(FILE *f, struct sym *sym, const uint64_t *pcs, unsigned n,
			const char *prefix)
{
	struct sym_frame fr[SYM_MAX_FRAMES];
	unsigned i;
	int j, nf;

	flockfile(f);
	for (i = 0; i < n; i++) {
		nf = sym_lookup(sym, pcs[i], i ? SYM_RETADDR : 0, fr, SYM_MAX_FRAMES);
		for (j = 0; j < nf; j++)
			print_frame(f, &fr[j], prefix);
	}
	funlockfile(f);
}

/* Names and paths come from the guest's ELF: escape everything JSON needs. */
void report_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Addresses as hex strings: JSON numbers lose bits above 2^53. */
static void json_hex(FILE *f, uint64_t v)
{
	fprintf(f, "\"0x%" PRIx64 "\"", v);
}

static void json_frame(FILE *f, const struct sym_frame *fr)
{
	fputs("{\"pc\":", f);
	json_hex(f, fr->addr);
	fputs(",\"func\":", f);
	report_json_string(f, fr->func);
	fprintf(f, ",\"inline\":%s,\"symbol\":", fr->inlined ? "true" : "false");
	report_json_string(f, fr->symbol);
	fprintf(f, ",\"off\":%" PRIu64 ",\"size\":%" PRIu64 ",\"file\":", fr->sym_off,
		fr->sym_size);
	report_json_string(f, fr->file);
	fputs(",\"full_file\":", f);
	report_json_string(f, fr->file_full);
	fprintf(f, ",\"line\":%d,\"col\":%d", fr->line, fr->col);
	/* A Linux module's frame: its pc is made up in soft mode (kmod.h). */
	if (fr->module) {
		fputs(",\"module\":", f);
		report_json_string(f, fr->module);
	}
	if (fr->inlined) {
		fputs(",\"call_file\":", f);
		report_json_string(f, fr->call_file);
		fputs(",\"call_full_file\":", f);
		report_json_string(f, fr->call_file_full);
		fprintf(f, ",\"call_line\":%d,\"call_col\":%d", fr->call_line, fr->call_col);
	}
	fputc('}', f);
}

static void json_side(FILE *f, const struct csan_report_side *s, const struct report_side_sym *ss,
		      const struct report_env *env)
{
	char words[64];
	unsigned j;
	int i;

	fputs("{\"access\":", f);
	report_json_string(f, access_words(s->access, env, words, sizeof(words)));
	fprintf(f, ",\"access_bits\":%" PRIu32 ",\"addr\":", s->access);
	json_hex(f, s->addr);
	fprintf(f, ",\"size\":%" PRIu32 ",\"cpu\":%" PRIu32 ",\"context\":\"%s\"", s->size, s->cpu,
		s->context == CSAN_CTX_INTERRUPT ? "interrupt" : "task");
	if (s->context == CSAN_CTX_TASK)
		fprintf(f, ",\"task\":%" PRIu32, s->task_id);
	fprintf(f, ",\"mechanism\":\"%s\",\"ip\":", report_mech_short(s->mechanism));
	json_hex(f, s->ip);
	fprintf(f, ",\"ip_after\":%s,\"ret\":[",
		(s->flags & CSAN_SIDE_IP_AFTER) ? "true" : "false");
	for (j = 0; j < s->nret; j++) {
		if (j)
			fputc(',', f);
		json_hex(f, s->ret[j]);
	}
	fprintf(f, "],\"dropped\":%d,", ss->dropped);
	/* The frame an interrupt's stack ends at (its entry), when it has one. */
	if (ss->entry >= 0)
		fprintf(f, "\"interrupt_entry\":%d,", ss->entry);
	fputs("\"frames\":[", f);
	for (i = 0; i < ss->nframes; i++) {
		if (i)
			fputc(',', f);
		json_frame(f, &ss->frames[i]);
	}
	fputs("]}", f);
}

static void json_values(FILE *f, const struct csan_hc_report *r)
{
	bool first = true;

	fputs(",\"value\":{", f);
	if (r->value_flags & CSAN_VALUE_OLD) {
		fputs("\"old\":", f);
		json_hex(f, r->old_value);
		first = false;
	}
	if (r->value_flags & CSAN_VALUE_NEW) {
		fputs(first ? "\"new\":" : ",\"new\":", f);
		json_hex(f, r->new_value);
		first = false;
	}
	if (r->value_flags & CSAN_VALUE_MASK) {
		fputs(first ? "\"mask\":" : ",\"mask\":", f);
		json_hex(f, r->mask);
	}
	fputc('}', f);
}

void report_print_json(FILE *f, const struct csan_hc_report *r, const struct report_sym *rs,
		       const struct report_env *env, const struct report_meta *meta)
{
	unsigned i;

	flockfile(f);
	fprintf(f, "{\"type\":\"report\",\"seq\":%" PRIu64 ",\"time\":%.6f,\"count\":%" PRIu64,
		meta->seq, meta->time, meta->count);
	fputs(",\"signature\":", f);
	report_json_string(f, rs->signature);
	fputs(",\"title\":", f);
	report_json_string(f, rs->title);
	fprintf(f, ",\"kind\":\"%s\",\"guest\":", report_kind_name(r->kind));
	report_json_string(f, env->guest);
	fputs(",\"mode\":", f);
	report_json_string(f, env->mode);
	json_values(f, r);
	fputs(",\"sides\":[", f);
	for (i = 0; i < r->nsides; i++) {
		if (i)
			fputc(',', f);
		json_side(f, &r->side[i], &rs->side[i], env);
	}
	fputs("]}\n", f);
	funlockfile(f);
}

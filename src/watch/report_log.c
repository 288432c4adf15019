/* report_log.c: every race report counted, repeats rate-limited, a summary at exit. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "watch/report_log.h"

/* One distinct race: a signature and what has been seen of it. */
struct race {
	char signature[REPORT_SIG_MAX];
	char title[REPORT_TITLE_MAX];
	uint64_t count, printed;
	uint64_t first_ns, last_print_ns;
	unsigned mechs;	      /* bit (1 << mechanism) per mechanism seen */
	unsigned other_mechs; /* the same, side[0] of two-sided reports only */
	unsigned modes;	      /* MODE_* bits: the watch modes it was reported in */
	/*
	 * The reports a host sampling breakpoint took part in, kept apart: a
	 * sampled kernel may have a race detector of its own (the KCSAN test
	 * kernel), whose reports of the same race are not sampling's finding,
	 * and must not hold the sampler's back from print either.
	 */
	uint64_t sampled, sampled_first_ns;
	uint64_t sampled_printed, sampled_last_print_ns;
	unsigned sampled_other_mechs;
};

/* Watch modes, as bits: a run can toggle between them. */
#define MODE_SOFT   REPORT_LOG_MODE_SOFT
#define MODE_HW	    REPORT_LOG_MODE_HW
#define MODE_SAMPLE REPORT_LOG_MODE_SAMPLE

struct report_log {
	pthread_mutex_t lock;
	struct report_log_opts o;
	uint64_t start_ns;
	struct race *races; /* in first-seen order */
	unsigned nraces, cap;
	uint32_t *index; /* open addressing: race number + 1, 0 = free */
	unsigned index_mask;
	uint64_t total, printed, seq;
	unsigned longest_interval_ms; /* the longest rate limit a report was submitted with */
	unsigned mode;		      /* MODE_SOFT or MODE_HW: the current one */
	unsigned modes_used;	      /* every mode the run has been in */
	/* Reports whose race did not fit in the table: counted, rate-limited together. */
	uint64_t untracked, untracked_printed, untracked_last_ns;
};

static uint64_t monotonic_ns(void *ctx)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int report_log_new(const struct report_log_opts *opts, struct report_log **out)
{
	struct report_log *log = calloc(1, sizeof(*log));
	unsigned slots = 1;

	*out = NULL;
	if (!log)
		return -ENOMEM;
	log->o = *opts;
	if (!log->o.text)
		log->o.text = stderr;
	if (!log->o.max_races)
		log->o.max_races = REPORT_LOG_DEFAULT_MAX_RACES;
	if (!log->o.now_ns)
		log->o.now_ns = monotonic_ns;
	log->mode = !log->o.env.mode			     ? MODE_SOFT
		    : strcmp(log->o.env.mode, "hw") == 0     ? MODE_HW
		    : strcmp(log->o.env.mode, "sample") == 0 ? MODE_SAMPLE
							     : MODE_SOFT;
	log->o.env.mode = log->mode == MODE_HW	     ? "hw"
			  : log->mode == MODE_SAMPLE ? "sample"
						     : "soft";
	log->modes_used = log->mode;
	/* Twice the races, a power of two: probes stay short when full. */
	while (slots < 2 * log->o.max_races)
		slots <<= 1;
	log->index = calloc(slots, sizeof(*log->index));
	if (!log->index) {
		free(log);
		return -ENOMEM;
	}
	log->index_mask = slots - 1;
	pthread_mutex_init(&log->lock, NULL);
	log->start_ns = log->o.now_ns(log->o.now_ctx);
	*out = log;
	return 0;
}

void report_log_free(struct report_log *log)
{
	if (!log)
		return;
	pthread_mutex_destroy(&log->lock);
	free(log->races);
	free(log->index);
	free(log);
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The race with @rs's signature, added if new; NULL when the table is full. */
static struct race *find_race(struct report_log *log, const struct report_sym *rs, uint64_t now)
{
	uint32_t i = hash_str(rs->signature) & log->index_mask;
	struct race *race;

	for (; log->index[i]; i = (i + 1) & log->index_mask) {
		race = &log->races[log->index[i] - 1];
		if (strcmp(race->signature, rs->signature) == 0)
			return race;
	}
	if (log->nraces == log->o.max_races)
		return NULL;
	if (log->nraces == log->cap) {
		unsigned ncap = log->cap ? log->cap * 2 : 16;
		struct race *p;

		if (ncap > log->o.max_races)
			ncap = log->o.max_races;
		p = realloc(log->races, ncap * sizeof(*p));
		if (!p)
			return NULL;
		log->races = p;
		log->cap = ncap;
	}
	race = &log->races[log->nraces];
	memset(race, 0, sizeof(*race));
	snprintf(race->signature, sizeof(race->signature), "%s", rs->signature);
	snprintf(race->title, sizeof(race->title), "%s", rs->title);
	race->first_ns = now;
	log->index[i] = ++log->nraces;
	return race;
}

/* Whether something last printed at @last (@printed times) is due again. */
static bool due(unsigned interval_ms, uint64_t printed, uint64_t last, uint64_t now)
{
	return !printed || !interval_ms || now - last >= interval_ms * 1000000ull;
}

/* Bit (1 << mechanism) for one side's mechanism; "both" counts as both. */
static unsigned mech_bits(uint32_t mechanism)
{
	if (mechanism == CSAN_MECH_SOFT_AND_HW)
		return (1u << CSAN_MECH_SOFT_WATCH) | (1u << CSAN_MECH_HW_DEBUGREG);
	return 1u << mechanism;
}

/*
 * Whether @r is the sampler's (a side its code breakpoint stopped); if so,
 * count it for @race as such.
 */
static bool count_sampled(struct race *race, const struct csan_hc_report *r, uint64_t now)
{
	bool sampled = false;
	unsigned i;

	for (i = 0; i < r->nsides; i++)
		sampled |= r->side[i].mechanism == CSAN_MECH_SAMPLING;
	if (!sampled)
		return false;
	if (!race->sampled++)
		race->sampled_first_ns = now;
	if (r->nsides == 2)
		race->sampled_other_mechs |= mech_bits(r->side[0].mechanism);
	return true;
}

/*
 * Whether @race's report is due, and if so counted as printed.  The
 * sampler's reports and the rest (a KCSAN kernel's own, of the same race
 * in the same run) are rate-limited apart: each says something the other
 * does not (what the sampler caught, on which CPUs), so neither hides the
 * other.  Without sampling there is one stream, as there always was.
 */
static bool race_due(struct race *race, bool sampled, unsigned interval_ms, uint64_t now)
{
	uint64_t *last = sampled ? &race->sampled_last_print_ns : &race->last_print_ns;
	uint64_t printed = sampled ? race->sampled_printed : race->printed - race->sampled_printed;

	if (!due(interval_ms, printed, *last, now))
		return false;
	race->printed++;
	race->sampled_printed += sampled;
	*last = now;
	return true;
}

/* Count @r and decide under the lock; print it if due.  Returns 1 if printed. */
static int count_and_print(struct report_log *log, const struct csan_hc_report *r,
			   const struct report_sym *rs, uint64_t now, unsigned interval_ms)
{
	struct race *race = find_race(log, rs, now);
	struct report_meta meta;
	unsigned i;

	log->total++;
	if (interval_ms > log->longest_interval_ms)
		log->longest_interval_ms = interval_ms;
	if (race) {
		race->count++;
		for (i = 0; i < r->nsides; i++)
			race->mechs |= mech_bits(r->side[i].mechanism);
		/* What a comparison of watch modes asks: who saw the other access. */
		if (r->nsides == 2)
			race->other_mechs |= mech_bits(r->side[0].mechanism);
		race->modes |= log->mode;
		if (!race_due(race, count_sampled(race, r, now), interval_ms, now))
			return 0;
	} else {
		log->untracked++;
		if (!due(interval_ms, log->untracked_printed, log->untracked_last_ns, now))
			return 0;
		log->untracked_printed++;
		log->untracked_last_ns = now;
	}
	log->printed++;
	if (log->o.before_print)
		log->o.before_print();
	report_print_text(log->o.text, r, rs, &log->o.env);
	fflush(log->o.text);
	if (log->o.json) {
		meta.seq = ++log->seq;
		meta.time = (double)(now - log->start_ns) / 1e9;
		meta.count = race ? race->count : log->untracked;
		report_print_json(log->o.json, r, rs, &log->o.env, &meta);
		fflush(log->o.json);
	}
	return 1;
}

void report_log_set_mode(struct report_log *log, bool hw)
{
	pthread_mutex_lock(&log->lock);
	log->mode = hw ? MODE_HW : MODE_SOFT;
	log->o.env.mode = hw ? "hw" : "soft";
	log->modes_used |= log->mode;
	pthread_mutex_unlock(&log->lock);
}

/*
 * "soft", "hw" or "soft+hw" for a set of MODE_* bits; "sample" for a
 * sampling run (chosen at start, never toggled).
 */
static const char *mode_list(unsigned modes)
{
	if (modes == MODE_SAMPLE)
		return "sample";
	if (modes == (MODE_SOFT | MODE_HW))
		return "soft+hw";
	return modes == MODE_HW ? "hw" : "soft";
}

int report_log_submit(struct report_log *log, const struct csan_hc_report *r, char *why,
		      size_t whylen)
{
	return report_log_submit_every(log, r, log->o.interval_ms, why, whylen);
}

int report_log_submit_every(struct report_log *log, const struct csan_hc_report *r,
			    unsigned interval_ms, char *why, size_t whylen)
{
	struct report_sym *rs;
	uint64_t now;
	int err;

	err = report_validate(r, why, whylen);
	if (err)
		return err;
	/* Symbolize outside the log lock: sym has its own, and this is the slow part. */
	err = report_symbolize(log->o.sym, r, log->o.sym_flags, &rs);
	if (err) {
		snprintf(why, whylen, "out of memory symbolizing a report");
		return err;
	}
	pthread_mutex_lock(&log->lock);
	now = log->o.now_ns(log->o.now_ctx);
	err = count_and_print(log, r, rs, now, interval_ms);
	pthread_mutex_unlock(&log->lock);
	report_sym_free(rs);
	return err;
}

const char *report_log_mech_names(unsigned mechs, char *buf, size_t len)
{
	unsigned m;
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (m = CSAN_MECH_SOFT_WATCH; m < CSAN_MECH_MAX && used < len; m++)
		if (mechs & (1u << m))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "+" : "",
						 report_mech_short(m));
	return buf;
}

/* The title without KCSAN's "BUG: KCSAN: " lead, for the summary table. */
static const char *short_title(const char *title)
{
	static const char lead[] = "BUG: KCSAN: ";

	return strncmp(title, lead, sizeof(lead) - 1) == 0 ? title + sizeof(lead) - 1 : title;
}

static void summary_json(struct report_log *log, const struct race *race, const char *mechs)
{
	FILE *f = log->o.json;

	fputs("{\"type\":\"summary\",\"signature\":", f);
	report_json_string(f, race->signature);
	fputs(",\"title\":", f);
	report_json_string(f, race->title);
	fprintf(f,
		",\"count\":%" PRIu64 ",\"printed\":%" PRIu64
		",\"first_seen\":%.6f,\"modes\":\"%s\",\"mechanisms\":",
		race->count, race->printed, (double)(race->first_ns - log->start_ns) / 1e9,
		mode_list(race->modes));
	report_json_string(f, mechs);
	fputs("}\n", f);
}

void report_log_summary(struct report_log *log)
{
	FILE *f = log->o.text;
	char mechs[128];
	unsigned i;

	pthread_mutex_lock(&log->lock);
	if (!log->total)
		goto out;
	flockfile(f);
	fprintf(f,
		"csan-vmm: race summary: %u distinct race%s in %" PRIu64 " report%s, %" PRIu64
		" printed, %" PRIu64 " repeats within %u ms counted only (watch mode: %s)\n",
		log->nraces, log->nraces == 1 ? "" : "s", log->total, log->total == 1 ? "" : "s",
		log->printed, log->total - log->printed,
		log->longest_interval_ms > log->o.interval_ms ? log->longest_interval_ms
							      : log->o.interval_ms,
		mode_list(log->modes_used));
	fprintf(f, "csan-vmm:   %8s  %10s  %-7s  %-32s %s\n", "count", "first seen", "mode",
		"seen by", "race");
	for (i = 0; i < log->nraces; i++) {
		const struct race *race = &log->races[i];

		report_log_mech_names(race->mechs, mechs, sizeof(mechs));
		fprintf(f, "csan-vmm:   %8" PRIu64 "  %9.3fs  %-7s  %-32s %s\n", race->count,
			(double)(race->first_ns - log->start_ns) / 1e9, mode_list(race->modes),
			mechs, short_title(race->title));
		if (log->o.json)
			summary_json(log, race, mechs);
	}
	if (log->untracked)
		fprintf(f, "csan-vmm:   %8" PRIu64 "  reports of races beyond the %u tracked\n",
			log->untracked, log->o.max_races);
	funlockfile(f);
	if (log->o.json) {
		fprintf(log->o.json,
			"{\"type\":\"totals\",\"reports\":%" PRIu64
			",\"distinct\":%u,\"printed\":%" PRIu64 ",\"untracked\":%" PRIu64 "}\n",
			log->total, log->nraces, log->printed, log->untracked);
		fflush(log->o.json);
	}
	fflush(f);
out:
	pthread_mutex_unlock(&log->lock);
}

int report_log_races(struct report_log *log,
		     int (*fn)(const struct report_log_race *race, void *ctx), void *ctx)
{
	struct report_log_race out;
	unsigned i;
	int rc = 0;

	pthread_mutex_lock(&log->lock);
	for (i = 0; i < log->nraces && !rc; i++) {
		const struct race *race = &log->races[i];

		out = (struct report_log_race){
			.signature = race->signature,
			.title = race->title,
			.count = race->count,
			.first_seen = (double)(race->first_ns - log->start_ns) / 1e9,
			.mechanisms = race->mechs,
			.other_mechanisms = race->other_mechs,
			.modes = race->modes,
			.sampled_count = race->sampled,
			.sampled_first_seen =
				race->sampled
					? (double)(race->sampled_first_ns - log->start_ns) / 1e9
					: 0,
			.sampled_other_mechanisms = race->sampled_other_mechs,
		};
		rc = fn(&out, ctx);
	}
	pthread_mutex_unlock(&log->lock);
	return rc;
}

void report_log_counts(struct report_log *log, uint64_t *total, unsigned *distinct)
{
	pthread_mutex_lock(&log->lock);
	if (total)
		*total = log->total;
	if (distinct)
		*distinct = log->nraces;
	pthread_mutex_unlock(&log->lock);
}

uint64_t report_log_total(struct report_log *log)
{
	uint64_t n;

	report_log_counts(log, &n, NULL);
	return n;
}

unsigned report_log_distinct(struct report_log *log)
{
	unsigned n;

	report_log_counts(log, NULL, &n);
	return n;
}

/* hostile-flood.c: more reports and console output than anyone should send. */
#include "percpu.h"
#include "platform.h"
#include "scenario.h"

/*
 * report-flood: every CPU sends its share of seed= race reports (the low
 * 32 bits; 0 means a million) straight through CSAN_HC_REPORT, all with
 * one signature.  The VMM must count every one, print a handful (rate
 * limiting), keep its memory bounded and put the exact total in its
 * summary and JSON.  Bit 32 of the seed then spins forever (for the
 * timeout and signal tests), bit 33 panics (guest failure): reports sent
 * before any of these ends must all be in the output.
 */
#define FLOOD_DEFAULT_COUNT 1000000u
#define FLOOD_THEN_SPIN (1ull << 32)
#define FLOOD_THEN_PANIC (1ull << 33)

static struct csan_hc_report flood_records[CSAN_MAX_CPUS] __aligned(8);
static uint64_t flood_sent[CSAN_MAX_CPUS];
static uint32_t flood_total;

/* In scenarios/uninstr/: the loop itself runs uninstrumented (see there). */
void flood_writer(void);
void flood_reader(void);
void flood_send(struct csan_hc_report *r, uint64_t n, uint64_t *sent);

static void flood_side(struct csan_report_side *s, unsigned int cpu, uint32_t access, void *fn)
{
	s->addr = (uintptr_t)&flood_total;
	s->size = 4;
	s->access = access;
	s->cpu = cpu;
	s->context = CSAN_CTX_TASK;
	s->task_id = cpu + 1;
	s->mechanism = CSAN_MECH_SOFT_WATCH;
	s->ip = (uintptr_t)fn;
	s->nret = 0;
}

static void flood_cpu(void *arg)
{
	unsigned int cpu = this_cpu()->cpu, n = csan_ncpus();
	struct csan_hc_report *r = &flood_records[cpu];
	uint64_t share = flood_total / n + (cpu == 0 ? flood_total % n : 0);

	(void)arg;
	r->kind = CSAN_REPORT_DATA_RACE;
	r->nsides = 2;
	flood_side(&r->side[0], cpu, CSAN_ACCESS_WRITE, flood_writer);
	flood_side(&r->side[1], cpu, 0, flood_reader);
	flood_send(r, share, &flood_sent[cpu]);
}

static int report_flood_run(void)
{
	uint64_t seed = csan_seed(), total = 0;
	unsigned int cpu;

	flood_total = (uint32_t)seed ? (uint32_t)seed : FLOOD_DEFAULT_COUNT;
	printk("report-flood: sending %u reports from %u CPUs\n", flood_total, csan_ncpus());
	csan_run_on_cpus(flood_cpu, NULL);
	for (cpu = 0; cpu < CSAN_MAX_CPUS; cpu++)
		total += READ_ONCE(flood_sent[cpu]);
	printk("report-flood: sent %lu reports\n", (unsigned long)total);
	csan_result_add("sent=%lu", (unsigned long)total);
	if (seed & FLOOD_THEN_PANIC)
		panic("report-flood: failing on purpose after %lu reports", (unsigned long)total);
	if (seed & FLOOD_THEN_SPIN) {
		printk("report-flood: spinning until stopped\n");
		for (;;)
			cpu_relax();
	}
	return total == flood_total ? 0 : 1;
}

CSAN_SCENARIO("report-flood", "test: a million race reports (seed= sets the count and the end)",
	      report_flood_run, CSAN_SCENARIO_TEST_ONLY);

/*
 * serial-flood: write to the UART forever, without a newline, so the
 * VMM's line buffer never sees a line end.  Only --timeout ends it.
 */
static int serial_flood_run(void)
{
	static const char pattern[] = "serial-flood:0123456789abcdefghijklmnopqrstuvwxyz:";
	unsigned long i = 0;

	printk("serial-flood: writing COM1 without end\n");
	for (;;) {
		outb(CSAN_COM1_PORT, (uint8_t)pattern[i % (sizeof(pattern) - 1)]);
		i++;
	}
	return 1;
}

CSAN_SCENARIO("serial-flood", "test: write the UART forever without a newline", serial_flood_run,
	      CSAN_SCENARIO_TEST_ONLY);

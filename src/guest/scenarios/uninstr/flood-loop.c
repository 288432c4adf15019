/* flood-loop.c: report-flood's sending loop, left uninstrumented. */
#include "platform.h"
#include "scenario.h"

/*
 * Under PVM every guest kernel instruction is emulated; with the race
 * detector's hooks on each access the loop cost ~350 us a report, and a
 * million reports would take most of an hour.  Bare, it costs little
 * more than the hypercall exit itself.
 */
void flood_writer(void);
void flood_reader(void);
void flood_send(struct csan_hc_report *r, uint64_t n, uint64_t *sent);

/* The two "racing" functions the reports name: real code, for the symbolizer. */
__noinline void flood_writer(void)
{
	barrier();
}

__noinline void flood_reader(void)
{
	barrier();
}

/* Send @r @n times, counting each into *@sent once the VMM has taken it. */
void flood_send(struct csan_hc_report *r, uint64_t n, uint64_t *sent)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		hypercall(CSAN_HC_REPORT, r);
		WRITE_ONCE(*sent, i + 1);
	}
}

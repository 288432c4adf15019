/* hw-sizes.c: test: the runtime watches every size 1..4096 at every alignment 0..63. */
#include <csan/abi.h>

#include "csan.h"
#include "printk.h"
#include "scenario.h"

/*
 * Run with csan.skip_watch=0 and csan.assume_plain_writes_atomic=0
 * (every access is watched) and, to keep it short, csan.udelay_task=0.  Each access goes through
 * the runtime's own entry point and sets up a real watchpoint; in hw mode the runtime asks the host
 * to back each one with debug registers, whatever its size and alignment.  The host refusing one of
 * those hypercalls would end the guest (exit 3), so reaching the result line at all is half the
 * test; the counters are the other half: every watch armed, and every access wider than four 8-byte
 * registers reach counted as only partly backed.
 */
#define HW_SIZES_MAX	  CSAN_HW_MAX_SIZE
#define HW_SIZES_ALIGNS	  64
#define HW_SIZES_DR_REACH 32 /* four registers of 8 bytes */
#define HW_SIZES_ACCESSES ((uint64_t)HW_SIZES_MAX * HW_SIZES_ALIGNS)

static uint8_t hw_sizes_buf[HW_SIZES_MAX + HW_SIZES_ALIGNS] __attribute__((aligned(64)));

static int hw_sizes_run(void)
{
	uint64_t setup0, armed0, partial0, setup, armed, partial;
	uint32_t skip = 1, atomic = 1;
	unsigned int size, off;
	bool ok;

	if (!csan_knob_get("skip_watch", &skip) || skip != 0 ||
	    !csan_knob_get("assume_plain_writes_atomic", &atomic) || atomic != 0) {
		printk("hw-sizes: needs csan.skip_watch=0 and csan.assume_plain_writes_atomic=0, "
		       "so that every access is watched\n");
		csan_result_add("reason=needs-knobs");
		return 1;
	}
	/* After the checks above: reading the knobs' locals is watched too. */
	setup0 = csan_counter(CSAN_COUNTER_SETUP_WATCHPOINTS);
	armed0 = csan_counter(CSAN_COUNTER_HW_ARMED);
	partial0 = csan_counter(CSAN_COUNTER_HW_PARTIAL);
	for (size = 1; size <= HW_SIZES_MAX; size++)
		for (off = 0; off < HW_SIZES_ALIGNS; off++)
			csan_check_access(hw_sizes_buf + off, size,
					  (size + off) & 1 ? KCSAN_ACCESS_WRITE : 0);
	setup = csan_counter(CSAN_COUNTER_SETUP_WATCHPOINTS) - setup0;
	armed = csan_counter(CSAN_COUNTER_HW_ARMED) - armed0;
	partial = csan_counter(CSAN_COUNTER_HW_PARTIAL) - partial0;
	csan_result_add("mode=%s accesses=%lu setup_watchpoints=%lu hw_armed=%lu hw_partial=%lu",
			csan_watch_hw() ? "hw" : "soft", (unsigned long)HW_SIZES_ACCESSES,
			(unsigned long)setup, (unsigned long)armed, (unsigned long)partial);
	ok = setup == HW_SIZES_ACCESSES;
	/* One CPU, one watch at a time: registers are always free. */
	if (csan_watch_hw())
		ok = ok && armed == setup &&
		     partial >= (uint64_t)(HW_SIZES_MAX - HW_SIZES_DR_REACH) * HW_SIZES_ALIGNS &&
		     partial < setup;
	else
		ok = ok && armed == 0 && partial == 0;
	if (!ok)
		csan_result_add("reason=counters");
	return ok ? 0 : 1;
}

/*
 * Test-only, as the other "test:" scenarios: it needs knobs no plain run
 * sets, so in --compare --scenario=all it failed both runs (status 5).
 */
CSAN_SCENARIO("hw-sizes", "test: watch every access size 1..4096 at every alignment 0..63",
	      hw_sizes_run, CSAN_SCENARIO_TEST_ONLY);

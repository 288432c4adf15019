/* report-sample.h: report records made of real symtest.elf addresses. */
#ifndef CSAN_TESTS_REPORT_SAMPLE_H
#define CSAN_TESTS_REPORT_SAMPLE_H

#include <string.h>

#include "csan/abi.h"

/*
 * The reader/writer race of symtest.c as the guest would send it.  The
 * writer ran into the watchpoint (side 0): its stack was taken inside the
 * runtime, csan_slow_path <- __tsan_write4 <- writer <- _start, so two
 * runtime frames sit on top.  The reader set the watchpoint (side 1) and
 * was seen by a debug register, which traps after the access: its IP is
 * the return address into reader.  Addresses from gen-symtest.sh.
 */
static inline struct csan_hc_report sample_race(void)
{
	struct csan_hc_report r;

	memset(&r, 0, sizeof(r));
	r.kind = CSAN_REPORT_DATA_RACE;
	r.nsides = 2;
	r.value_flags = CSAN_VALUE_OLD | CSAN_VALUE_NEW;
	r.old_value = 0x2a;
	r.new_value = 0x2b;
	r.side[0] = (struct csan_report_side){
		.addr = 0x403000,
		.size = 4,
		.access = CSAN_ACCESS_WRITE,
		.cpu = 1,
		.context = CSAN_CTX_TASK,
		.task_id = 3,
		.mechanism = CSAN_MECH_SOFT_WATCH,
		.ip = 0x401092,
		.nret = 3,
		.ret = { 0x4010c9, 0x401110, 0x401156 },
	};
	r.side[1] = (struct csan_report_side){
		.addr = 0x403000,
		.size = 4,
		.access = 0,
		.cpu = 0,
		.context = CSAN_CTX_INTERRUPT,
		.mechanism = CSAN_MECH_HW_DEBUGREG,
		.flags = CSAN_SIDE_IP_AFTER,
		.ip = 0x4010ee,
		.nret = 1,
		.ret = { 0x40114f },
	};
	return r;
}

#endif

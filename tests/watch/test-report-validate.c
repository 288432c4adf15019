/* test-report-validate.c: every field of a guest's report record is checked. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "watch/report.h"
#include "../unit/check.h"
#include "report-sample.h"

/* One bad record: a change to the valid sample, and the field the error names. */
struct bad {
	const char *what;
	void (*spoil)(struct csan_hc_report *r);
	const char *field;
};

#define SPOIL(name, stmt)                                                                          \
	static void name(struct csan_hc_report *r)                                                 \
	{                                                                                          \
		stmt;                                                                              \
	}

SPOIL(kind_zero, r->kind = 0)
SPOIL(kind_big, r->kind = CSAN_REPORT_KIND_MAX)
SPOIL(nsides_zero, r->nsides = 0)
SPOIL(nsides_three, r->nsides = 3)
SPOIL(nsides_unknown, r->kind = CSAN_REPORT_UNKNOWN_ORIGIN)
SPOIL(nsides_one_race, (r->nsides = 1, memset(&r->side[1], 0, sizeof(r->side[1]))))
SPOIL(size_zero, r->side[1].size = 0)
SPOIL(size_big, r->side[0].size = CSAN_REPORT_MAX_SIZE + 1)
SPOIL(addr_wraps, (r->side[0].addr = UINT64_MAX - 1, r->side[0].size = 4))
SPOIL(access_unknown, r->side[0].access = 0x20)
SPOIL(access_compound_read, r->side[0].access = CSAN_ACCESS_COMPOUND)
SPOIL(access_assert_marked, r->side[0].access = CSAN_ACCESS_ASSERT | CSAN_ACCESS_ATOMIC)
SPOIL(cpu_big, r->side[1].cpu = CSAN_MAX_CPUS)
SPOIL(context_zero, r->side[0].context = 0)
SPOIL(context_big, r->side[0].context = CSAN_CTX_MAX)
SPOIL(irq_task, r->side[1].task_id = 5)
SPOIL(mech_zero, r->side[0].mechanism = 0)
SPOIL(mech_big, r->side[1].mechanism = CSAN_MECH_MAX)
SPOIL(flags_unknown, r->side[0].flags = 0x80)
SPOIL(ip_zero, r->side[1].ip = 0)
SPOIL(nret_big, r->side[0].nret = CSAN_REPORT_MAX_STACK + 1)
SPOIL(ret_zero, r->side[0].ret[1] = 0)
SPOIL(unused_side, (r->kind = CSAN_REPORT_UNKNOWN_ORIGIN, r->nsides = 1))
SPOIL(assert_kind_no_bit, r->kind = CSAN_REPORT_ASSERT)
SPOIL(race_kind_assert_bit, r->side[1].access = CSAN_ACCESS_ASSERT)
SPOIL(value_flags_unknown, r->value_flags |= 0x8)
SPOIL(mask_without_values, r->value_flags = CSAN_VALUE_MASK | CSAN_VALUE_OLD)
SPOIL(mask_without_flag, r->mask = 0xff)

static const struct bad bads[] = {
	{ "kind 0", kind_zero, "kind: 0" },
	{ "kind past the end", kind_big, "kind: 4" },
	{ "no sides", nsides_zero, "nsides: 0" },
	{ "three sides", nsides_three, "nsides: 3" },
	{ "unknown origin with two sides", nsides_unknown, "nsides: 2" },
	{ "a race with one side", nsides_one_race, "nsides: 1" },
	{ "size 0", size_zero, "side[1].size: 0" },
	{ "size too big", size_big, "side[0].size: 4097" },
	{ "address range wraps", addr_wraps, "side[0].addr" },
	{ "unknown access bit", access_unknown, "side[0].access: 0x20" },
	{ "compound without write", access_compound_read, "side[0].access: 0x2" },
	{ "marked assert", access_assert_marked, "side[0].access: 0xc" },
	{ "cpu out of range", cpu_big, "side[1].cpu: 64" },
	{ "context 0", context_zero, "side[0].context: 0" },
	{ "context past the end", context_big, "side[0].context: 3" },
	{ "an interrupt with a task", irq_task, "side[1].task_id: 5" },
	{ "mechanism 0", mech_zero, "side[0].mechanism: 0" },
	{ "mechanism past the end", mech_big, "side[1].mechanism: 6 not in 1..5" },
	{ "unknown side flag", flags_unknown, "side[0].flags" },
	{ "IP 0", ip_zero, "side[1].ip: 0" },
	{ "too many return addresses", nret_big, "side[0].nret: 65" },
	{ "a zero return address", ret_zero, "side[0].ret[1]" },
	{ "an unused side not zero", unused_side, "side[1]: not zero" },
	{ "assert kind, no assert access", assert_kind_no_bit, "kind: assert" },
	{ "data-race kind, an assert access", race_kind_assert_bit, "kind: data-race" },
	{ "unknown value flag", value_flags_unknown, "value_flags: unknown bits 0x8" },
	{ "mask without both values", mask_without_values, "value_flags: a mask" },
	{ "mask without its flag", mask_without_flag, "mask: 0xff" },
};

int main(void)
{
	struct csan_hc_report r = sample_race();
	char why[256];
	size_t i;

	/* The sample itself is valid, with an empty message buffer untouched. */
	why[0] = '\0';
	CHECK_EQ_U64(report_validate(&r, why, sizeof(why)), 0);
	CHECK(why[0] == '\0');
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		int err;

		r = sample_race();
		bads[i].spoil(&r);
		why[0] = '\0';
		err = report_validate(&r, why, sizeof(why));
		if (err != -EINVAL || !strstr(why, bads[i].field))
			fprintf(stderr, "test-report-validate: %s: got %d \"%s\"\n", bads[i].what,
				err, why);
		CHECK_EQ_U64(err, -EINVAL);
		CHECK_CONTAINS(why, bads[i].field);
	}
	/* Every access type KCSAN makes is accepted on the right kind of report. */
	for (i = 0; i <= CSAN_ACCESS_KNOWN; i++) {
		if (!report_access_name((uint32_t)i))
			continue;
		r = sample_race();
		r.side[0].access = (uint32_t)i;
		if (i & CSAN_ACCESS_ASSERT)
			r.kind = CSAN_REPORT_ASSERT;
		CHECK_EQ_U64(report_validate(&r, why, sizeof(why)), 0);
	}
	/* A short buffer is enough to say something and stays terminated. */
	r = sample_race();
	r.kind = 0;
	CHECK_EQ_U64(report_validate(&r, why, 8), -EINVAL);
	CHECK(strlen(why) == 7);
	return check_exit_status("test-report-validate");
}

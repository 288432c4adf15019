// SPDX-License-Identifier: GPL-2.0
/*
 * csan_race_test_module.c: the race test's instrumented half in
 * csan_race_test.ko, with module parameters for its command-line knobs:
 *
 *   insmod csan_race_test.ko csan_race_test=1 [csan_race_test_ms=N]
 *
 * runs the cases as csan_race_test=... on the command line of a kernel
 * with the test built in does, while insmod waits; without
 * csan_race_test= the module loads and does nothing.  rmmod unloads it,
 * so a workload can load it again.
 */
/* csan_race_test.c's, before printk.h sets a default. */
#define pr_fmt(fmt) "csan-race-test: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

/*
 * KCSAN's counters (kcsan_counters) are not exported, so a module cannot
 * read them: the closing lines count zero for them, read from this array,
 * and the start says so once.  kcsan.h is included here first, so the
 * name below replaces only the test's own uses.
 */
#ifdef CONFIG_KCSAN
#include "../kcsan/kcsan.h"
static atomic_long_t race_test_no_counters[KCSAN_COUNTER_COUNT];
#define kcsan_counters race_test_no_counters
#endif

/* The test's late_initcall is the module's init below. */
#undef late_initcall
#define late_initcall(fn)

#include "csan_race_test.c"

/*
 * The parameters go through the command line's own parsers
 * (race_test_setup, race_test_ms_setup), so both spellings mean the same.
 * They are __init, as is the buffer they fill: module parameters are
 * parsed at load, before init and while the init sections exist.  Mode 0:
 * no sysfs file could read them after init is freed.
 */
static int __init race_test_param_cases(const char *val, const struct kernel_param *kp)
{
	race_test_setup((char *)val);
	return 0;
}

static int __init race_test_param_ms(const char *val, const struct kernel_param *kp)
{
	race_test_ms_setup((char *)val);
	return 0;
}

static const struct kernel_param_ops race_test_cases_ops = { .set = race_test_param_cases };
static const struct kernel_param_ops race_test_ms_ops = { .set = race_test_param_ms };
module_param_cb(csan_race_test, &race_test_cases_ops, NULL, 0);
MODULE_PARM_DESC(csan_race_test, "1 or all for every case, or CASE,CASE,... (see csan_race_test.c)");
module_param_cb(csan_race_test_ms, &race_test_ms_ops, NULL, 0);
MODULE_PARM_DESC(csan_race_test_ms, "ms each case runs (default 1500)");

static int __init race_test_module_init(void)
{
	if (IS_ENABLED(CONFIG_KCSAN) && race_test_arg[0] && strcmp(race_test_arg, "0"))
		pr_info("as a module: KCSAN's counters are not exported, the closing lines show 0 for them\n");
	return race_test_init();
}
module_init(race_test_module_init);

static void __exit race_test_module_exit(void)
{
}
module_exit(race_test_module_exit);

MODULE_DESCRIPTION("csan-vmm's race test: data races KCSAN sees, half sees, or must not report");
MODULE_LICENSE("GPL");

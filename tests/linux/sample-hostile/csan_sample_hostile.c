// SPDX-License-Identifier: GPL-2.0
/*
 * csan_sample_hostile.c: a guest that rewrites a sampled instruction.
 *
 *   insmod csan_sample_hostile.ko [hostile_ms=N]
 *
 * CPU 0 calls hostile_patched_read(), whose one memory access is
 * "mov hostile_word(%rip),%rax", for N ms; then it rewrites that
 * instruction's displacement in place (through a writable alias of its
 * text page: the module's text is read-only) so that it reads
 * hostile_other instead, and calls it N ms more, checking each call
 * returns hostile_other's value: the rewritten code is what runs.  From
 * the rewrite on, CPU 1 writes hostile_word without a pause
 * (hostile_write).  A sampler that decoded the old bytes at a hit would
 * watch hostile_word and see CPU 1's writes: a race that is not there.
 * hostile_probe() reads a word the way probe code does, through an
 * exception-table entry of the module's own (__get_kernel_nofault): the
 * sampler must leave that load out, as it leaves out the vmlinux's.
 * The module stays loaded after init; rmmod unloads it.
 */
#define pr_fmt(fmt) "csan-sample-hostile: " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/sync_core.h>

static unsigned int hostile_ms = 1500;
module_param(hostile_ms, uint, 0444);
MODULE_PARM_DESC(hostile_ms, "ms before and after the rewrite (default 1500)");

#define HOSTILE_OTHER 0x5eedull

u64 hostile_word;
u64 hostile_other = HOSTILE_OTHER;
static bool hostile_writing;
static unsigned long hostile_deadline;

noinline u64 hostile_patched_read(void)
{
	return hostile_word;
}

noinline void hostile_write(u64 v)
{
	hostile_word = v;
}

/* A load that may fault, fixed up through the module's exception table. */
noinline long hostile_probe(const u64 *p, u64 *out)
{
	__get_kernel_nofault(out, p, u64, fault);
	return 0;
fault:
	return -EFAULT;
}

/* The rip-relative load of hostile_word in hostile_patched_read, or NULL. */
static u8 *hostile_find_load(void)
{
	u8 *p = (u8 *)hostile_patched_read;
	int i;

	for (i = 0; i < 32; i++) {
		s32 disp;

		/* mov disp32(%rip),%rax: REX.W 8b, ModRM 05 */
		if (p[i] != 0x48 || p[i + 1] != 0x8b || p[i + 2] != 0x05)
			continue;
		memcpy(&disp, p + i + 3, sizeof(disp));
		if ((unsigned long)(p + i + 7) + disp == (unsigned long)&hostile_word)
			return p + i;
	}
	return NULL;
}

/* Point the load at hostile_other: its 4 displacement bytes, through a writable alias. */
static int hostile_patch(u8 *insn)
{
	struct page *page = vmalloc_to_page(insn);
	s32 disp = (s32)((long)&hostile_other - (long)(insn + 7));
	u8 *alias;

	if (!page || offset_in_page(insn) + 7 > PAGE_SIZE)
		return -EINVAL;
	alias = vmap(&page, 1, VM_MAP, PAGE_KERNEL);
	if (!alias)
		return -ENOMEM;
	memcpy(alias + offset_in_page(insn) + 3, &disp, sizeof(disp));
	vunmap(alias);
	sync_core();
	return 0;
}

struct hostile_run {
	struct completion done;
	int err;
	unsigned long before, after, wrong, writes;
	long offset;
};

static int hostile_reader(void *arg)
{
	struct hostile_run *r = arg;
	u8 *insn = hostile_find_load();
	unsigned long end = jiffies + msecs_to_jiffies(hostile_ms);

	if (!insn) {
		r->err = -ENOENT;
		goto out;
	}
	r->offset = insn - (u8 *)hostile_patched_read;
	while (time_before(jiffies, end)) {
		if (hostile_patched_read() != 0)
			r->wrong++;
		if (!(++r->before % 256))
			cond_resched();
	}
	r->err = hostile_patch(insn);
	if (r->err)
		goto out;
	hostile_deadline = jiffies + msecs_to_jiffies(hostile_ms);
	WRITE_ONCE(hostile_writing, true);
	while (time_before(jiffies, hostile_deadline)) {
		if (hostile_patched_read() != HOSTILE_OTHER)
			r->wrong++;
		if (!(++r->after % 256))
			cond_resched();
	}
out:
	WRITE_ONCE(hostile_writing, true); /* the writer stops waiting either way */
	complete(&r->done);
	return 0;
}

static int hostile_writer(void *arg)
{
	struct hostile_run *r = arg;

	while (!READ_ONCE(hostile_writing))
		msleep(1);
	while (time_before(jiffies, READ_ONCE(hostile_deadline))) {
		hostile_write(++r->writes);
		if (!(r->writes % 256))
			cond_resched();
	}
	complete(&r->done);
	return 0;
}

static int __init hostile_init(void)
{
	static struct hostile_run rd, wr;
	struct task_struct *t[2];
	u64 probed = 0;
	int i;

	if (!cpu_online(0) || !cpu_online(1)) {
		pr_err("needs CPUs 0 and 1 online\n");
		return -ENODEV;
	}
	init_completion(&rd.done);
	init_completion(&wr.done);
	hostile_deadline = jiffies + 60 * HZ; /* moved to the real one at the rewrite */
	t[0] = kthread_create(hostile_reader, &rd, "hostile-read");
	t[1] = kthread_create(hostile_writer, &wr, "hostile-write");
	for (i = 0; i < 2; i++) {
		if (IS_ERR(t[i]))
			return PTR_ERR(t[i]); /* a created thread would be left: this test does not do that */
		kthread_bind(t[i], i);
	}
	if (hostile_probe(&hostile_other, &probed) || probed != HOSTILE_OTHER) {
		pr_err("the probe read %#llx\n", probed);
		return -EIO;
	}
	pr_info("start: %u ms before and after the rewrite\n", hostile_ms);
	wake_up_process(t[0]);
	wake_up_process(t[1]);
	wait_for_completion(&rd.done);
	wait_for_completion(&wr.done);
	if (rd.err) {
		pr_err("the rewrite failed (%d)\n", rd.err);
		return rd.err;
	}
	pr_info("rewrote hostile_patched_read+%#lx: %lu calls before, %lu after, %lu read a wrong value; cpu 1 wrote %lu times\n",
		rd.offset, rd.before, rd.after, rd.wrong, wr.writes);
	pr_info("done\n");
	return 0;
}
module_init(hostile_init);

static void __exit hostile_exit(void)
{
	pr_info("unloading\n");
}
module_exit(hostile_exit);

MODULE_DESCRIPTION("csan-vmm's sampling test: a module that rewrites a sampled instruction");
MODULE_LICENSE("GPL");

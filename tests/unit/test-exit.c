/* test-exit.c: each KVM exit reason reaches its handler, or ends the run as exit.h says. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "vmm/kvm/exit.h"
#include "vmm/kvm/vm.h"
#include "check.h"

/*
 * The vCPU's kvm_run area as KVM maps it: the record in the first page,
 * the I/O data KVM_EXIT_IO points at (io.data_offset) in the next.
 */
#define RUN_PAGE      4096
#define RUN_DATA      RUN_PAGE
#define RUN_AREA_SIZE (2 * RUN_PAGE)
_Static_assert(sizeof(struct kvm_run) <= RUN_DATA, "struct kvm_run outgrew its page");

/* An exit reason no KVM has: the dispatcher's "anything else" with nobody registered. */
#define EXIT_UNKNOWN 0x7fffu

static void die(const char *what)
{
	fprintf(stderr, "test-exit: %s\n", what);
	abort();
}

/*
 * A VM with one vCPU and no KVM behind it (as tests/fuzz/fake-vm.c builds
 * one): the vCPU's fd is -1, so the fault report's register reads fail
 * and say so, and vm_end writes a real eventfd.
 */
static struct vm *test_vm_new(void)
{
	struct vm_config cfg = { .ncpus = 1 };
	struct vm *vm = vm_new(&cfg);
	struct vcpu *v = calloc(1, sizeof(*v));

	if (!vm || !v)
		die("out of memory");
	vm->vcpus = calloc(1, sizeof(*vm->vcpus));
	v->run = aligned_alloc(RUN_PAGE, RUN_AREA_SIZE);
	if (!vm->vcpus || !v->run)
		die("out of memory");
	memset(v->run, 0, RUN_AREA_SIZE);
	vm->vcpus[0] = v;
	v->vm = vm;
	v->fd = -1;
	return vm;
}

static void test_vm_free(struct vm *vm)
{
	/* The vCPU and its kvm_run are the test's own, not vm_create's. */
	free(vm->vcpus[0]->run);
	free(vm->vcpus[0]);
	free(vm->vcpus);
	vm->vcpus = NULL;
	vm_destroy(vm);
}

/* How many times vm_end woke the supervisor since the last look (0 or 1). */
static uint64_t end_wakeups(struct vm *vm)
{
	uint64_t n = 0;

	if (read(vm->end_fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

/* A clean record of @reason: KVM fills in only what the reason uses. */
static struct kvm_run *set_exit(struct vcpu *v, uint32_t reason)
{
	memset(v->run, 0, RUN_DATA);
	v->run->exit_reason = reason;
	return v->run;
}

static uint8_t *io_data(struct vcpu *v)
{
	return (uint8_t *)v->run + RUN_DATA;
}

static void set_io(struct vcpu *v, uint8_t direction, uint16_t port, uint8_t size, uint32_t count)
{
	struct kvm_run *run = set_exit(v, KVM_EXIT_IO);

	run->io.direction = direction;
	run->io.port = port;
	run->io.size = size;
	run->io.count = count;
	run->io.data_offset = RUN_DATA;
}

/* What the dispatcher wrote on stderr during the last dispatch(). */
static char said[16384];

/*
 * dispatch - vcpu_handle_exit(@v) with stderr caught in said[], so a
 * fault's report can be read and an exit that should be silent is seen
 * to be.  stderr is unbuffered: the file offset is what was written so
 * far, which the fault hook reads.
 */
static int dispatch(struct vcpu *v)
{
	FILE *tmp = tmpfile();
	int saved, r;
	size_t n;

	if (!tmp)
		die("tmpfile failed");
	fflush(stderr);
	saved = dup(2);
	if (saved < 0 || dup2(fileno(tmp), 2) < 0)
		die("cannot redirect stderr");
	r = vcpu_handle_exit(v);
	fflush(stderr);
	if (dup2(saved, 2) < 0)
		die("cannot restore stderr");
	close(saved);
	rewind(tmp);
	n = fread(said, 1, sizeof(said) - 1, tmp);
	said[n] = '\0';
	fclose(tmp);
	return r;
}

/* --- the test's own devices and handlers, registered the real way -------- */

/* A device on a port range: records its last access, answers reads with reply[]. */
struct port_dev {
	unsigned calls;
	struct vcpu *vcpu;
	uint16_t port;
	bool is_write;
	unsigned size, count;
	uint8_t *data;
	uint8_t seen[64];
	uint8_t reply[64];
	int ret;
	unsigned exit_hooks_before; /* BEFORE_EXIT hook calls when it ran */
};

static unsigned exit_hook_calls; /* every BEFORE_EXIT hook call, all VMs */

static int port_dev_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
		       unsigned size, unsigned count)
{
	struct port_dev *d = ctx;
	size_t n = (size_t)size * count;

	if (!d)
		return VCPU_RESUME; /* not its registered context: no call the checks count */
	d->calls++;
	d->vcpu = vcpu;
	d->port = port;
	d->is_write = is_write;
	d->size = size;
	d->count = count;
	d->data = data;
	d->exit_hooks_before = exit_hook_calls;
	if (n > sizeof(d->seen))
		n = sizeof(d->seen);
	if (is_write)
		memcpy(d->seen, data, n);
	else
		memcpy(data, d->reply, n);
	return d->ret;
}

/* A handler for a reason the core leaves to others (debug, shutdown, system event). */
struct exit_dev {
	unsigned calls;
	struct vcpu *vcpu;
	void *ctx;
	uint32_t reason;
	int ret;
	unsigned exit_hooks_before;
};

static int exit_dev_handle(struct vcpu *vcpu, void *ctx)
{
	struct exit_dev *d = ctx;

	if (!d)
		return VCPU_RESUME; /* not its registered context: no call the checks count */
	d->calls++;
	d->vcpu = vcpu;
	d->ctx = ctx;
	d->reason = vcpu->run->exit_reason;
	d->exit_hooks_before = exit_hook_calls;
	return d->ret;
}

/* A hook: how often it ran, and what the run looked like when it did. */
struct hook_rec {
	unsigned calls;
	struct vcpu *vcpu;
	uint32_t reason;
	bool ended;	   /* vm->ended when it ran */
	off_t said_before; /* bytes on the (caught) stderr when it ran */
};

static int hook_record(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	struct hook_rec *h = ctx;

	h->calls++;
	h->vcpu = vcpu;
	h->reason = vcpu ? vcpu->run->exit_reason : 0;
	h->ended = vm->ended;
	h->said_before = lseek(2, 0, SEEK_CUR);
	return -1;
}

static int hook_count_exit(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	exit_hook_calls++;
	return hook_record(vm, vcpu, ctx);
}

static void add_port_dev(struct vm *vm, uint16_t base, uint32_t len, struct port_dev *d)
{
	if (pio_register(&vm->pio, base, len, "test-dev", port_dev_io, d, NULL, 0))
		die("pio_register failed");
}

static void add_exit_dev(struct vm *vm, uint32_t reason, struct exit_dev *d)
{
	char why[256];

	if (vm_handle_exit_reason(vm, reason, "test", exit_dev_handle, d, why, sizeof(why)))
		die(why);
}

static void add_hook(struct vm *vm, enum vm_hook_point point, vm_hook_fn fn, struct hook_rec *h)
{
	char why[256];

	if (vm_hook_add(vm, point, "test", fn, h, why, sizeof(why)))
		die(why);
}

/* The run went on: nothing ended, nothing reported. */
#define CHECK_RESUMED(vm, r)                                                                       \
	do {                                                                                       \
		CHECK((r) == VCPU_RESUME);                                                         \
		CHECK(!(vm)->ended);                                                               \
		CHECK(end_wakeups(vm) == 0);                                                       \
		CHECK_EQ_U64(strlen(said), 0);                                                     \
	} while (0)

/*
 * The run ended as a guest fault: VCPU_STOP, the outcome, the supervisor
 * woken once, and the VM_HOOK_BEFORE_FAULT hook @fh called before the end
 * was recorded and before the report was written.
 */
#define CHECK_FAULTED(vm, r, fh)                                                                   \
	do {                                                                                       \
		CHECK((r) == VCPU_STOP);                                                           \
		CHECK((vm)->ended);                                                                \
		CHECK((vm)->outcome.end == VM_END_FAULT);                                          \
		CHECK_EQ_U64(end_wakeups(vm), 1);                                                  \
		CHECK_EQ_U64((fh)->calls, 1);                                                      \
		CHECK(!(fh)->ended);                                                               \
		CHECK_EQ_U64((fh)->said_before, 0);                                                \
		CHECK_CONTAINS(said, "cannot read registers");                                     \
	} while (0)

/* --- KVM_EXIT_IO ------------------------------------------------------------ */

/* One access of @size bytes x @count to @port of a device at [0x510, 0x518). */
static void check_io_owned(uint8_t size, uint32_t count)
{
	struct vm *vm = test_vm_new();
	struct vcpu *v = vm->vcpus[0];
	struct port_dev d = { .ret = VCPU_RESUME };
	size_t n = (size_t)size * count, i;
	uint16_t port = 0x513;
	int r;

	add_port_dev(vm, 0x510, 8, &d);

	/* OUT: the device gets the bytes at data_offset, and only those. */
	set_io(v, KVM_EXIT_IO_OUT, port, size, count);
	for (i = 0; i < RUN_PAGE; i++)
		io_data(v)[i] = (uint8_t)(0x40 + i);
	r = dispatch(v);
	CHECK_RESUMED(vm, r);
	CHECK_EQ_U64(d.calls, 1);
	CHECK(d.vcpu == v);
	CHECK_EQ_U64(d.port, port);
	CHECK(d.is_write);
	CHECK_EQ_U64(d.size, size);
	CHECK_EQ_U64(d.count, count);
	CHECK(d.data == io_data(v));
	CHECK(memcmp(d.seen, io_data(v), n) == 0);

	/* IN: what the device answers lands at data_offset; past it, nothing. */
	set_io(v, KVM_EXIT_IO_IN, port, size, count);
	memset(io_data(v), 0xcc, RUN_PAGE);
	for (i = 0; i < sizeof(d.reply); i++)
		d.reply[i] = (uint8_t)(0x80 + i);
	r = dispatch(v);
	CHECK_RESUMED(vm, r);
	CHECK_EQ_U64(d.calls, 2);
	CHECK_EQ_U64(d.port, port);
	CHECK(!d.is_write);
	CHECK_EQ_U64(d.size, size);
	CHECK_EQ_U64(d.count, count);
	CHECK(memcmp(io_data(v), d.reply, n) == 0);
	CHECK_EQ_U64(io_data(v)[n], 0xcc);
	test_vm_free(vm);
}

/* Ports nobody owns: reads float high for exactly size x count bytes, writes vanish. */
static void check_io_unowned(uint8_t size, uint32_t count)
{
	struct vm *vm = test_vm_new();
	struct vcpu *v = vm->vcpus[0];
	struct port_dev d = { .ret = VCPU_STOP };
	size_t n = (size_t)size * count, i;
	uint8_t before[RUN_PAGE];
	int r;

	add_port_dev(vm, 0x510, 8, &d);

	set_io(v, KVM_EXIT_IO_IN, 0x518, size, count);
	memset(io_data(v), 0, RUN_PAGE);
	r = dispatch(v);
	CHECK_RESUMED(vm, r);
	for (i = 0; i < n; i++)
		CHECK_EQ_U64(io_data(v)[i], 0xff);
	CHECK_EQ_U64(io_data(v)[n], 0);

	set_io(v, KVM_EXIT_IO_OUT, 0x50f, size, count);
	for (i = 0; i < RUN_PAGE; i++)
		io_data(v)[i] = (uint8_t)i;
	memcpy(before, io_data(v), sizeof(before));
	r = dispatch(v);
	CHECK_RESUMED(vm, r);
	CHECK(memcmp(before, io_data(v), sizeof(before)) == 0);
	CHECK_EQ_U64(d.calls, 0);
	test_vm_free(vm);
}

static void test_io(void)
{
	static const uint8_t sizes[] = { 1, 2, 4 };
	struct vm *vm = test_vm_new();
	struct vcpu *v = vm->vcpus[0];
	struct port_dev d = { .ret = VCPU_STOP };
	unsigned i;

	for (i = 0; i < sizeof(sizes); i++) {
		check_io_owned(sizes[i], 1);
		check_io_owned(sizes[i], 5); /* rep outs / rep ins */
		check_io_unowned(sizes[i], 1);
		check_io_unowned(sizes[i], 3);
	}

	/* A device that ends the run with an access is obeyed, not second-guessed. */
	add_port_dev(vm, 0x604, 1, &d);
	set_io(v, KVM_EXIT_IO_OUT, 0x604, 1, 1);
	CHECK(dispatch(v) == VCPU_STOP);
	CHECK_EQ_U64(d.calls, 1);
	CHECK(!vm->ended);
	CHECK_EQ_U64(strlen(said), 0);
	test_vm_free(vm);
}

/* --- MMIO to a device: its handler, for accesses wholly inside its range ---- */

struct mmio_dev {
	unsigned calls;
	uint64_t addr;
	bool is_write;
	unsigned len;
	uint8_t data[8];
	int ret;
};

static int mmio_dev_io(struct vcpu *vcpu, void *ctx, uint64_t addr, bool is_write, uint8_t *data,
		       unsigned len)
{
	struct mmio_dev *d = ctx;

	(void)vcpu;
	d->calls++;
	d->addr = addr;
	d->is_write = is_write;
	d->len = len;
	if (is_write)
		memcpy(d->data, data, len);
	else
		memset(data, 0x5a, len);
	return d->ret;
}

static void test_mmio_device(void)
{
	struct vm *vm = test_vm_new();
	struct vcpu *v = vm->vcpus[0];
	struct mmio_dev d = { .ret = VCPU_RESUME };
	struct kvm_run *run;
	int r;

	CHECK(mmio_register(&vm->mmio, 0xd0000000, 0x100, "test-mmio", mmio_dev_io, &d, NULL, 0) ==
	      0);
	/* A write of 4 bytes reaches the device with its address and bytes. */
	run = set_exit(v, KVM_EXIT_MMIO);
	run->mmio.phys_addr = 0xd0000010;
	run->mmio.len = 4;
	run->mmio.is_write = 1;
	memcpy(run->mmio.data, "\x01\x02\x03\x04", 4);
	r = dispatch(v);
	CHECK_RESUMED(vm, r);
	CHECK_EQ_U64(d.calls, 1);
	CHECK_EQ_U64(d.addr, 0xd0000010);
	CHECK(d.is_write && d.len == 4 && memcmp(d.data, "\x01\x02\x03\x04", 4) == 0);
	/* A read of the last 8 bytes: what the device fills is what the guest gets. */
	run = set_exit(v, KVM_EXIT_MMIO);
	run->mmio.phys_addr = 0xd00000f8;
	run->mmio.len = 8;
	r = dispatch(v);
	CHECK_RESUMED(vm, r);
	CHECK_EQ_U64(d.calls, 2);
	CHECK(!d.is_write && d.len == 8 && run->mmio.data[0] == 0x5a && run->mmio.data[7] == 0x5a);
	/* One that runs past the device's end is nobody's: it reads zero. */
	run = set_exit(v, KVM_EXIT_MMIO);
	run->mmio.phys_addr = 0xd00000fc;
	run->mmio.len = 8;
	memset(run->mmio.data, 0xa5, sizeof(run->mmio.data));
	r = dispatch(v);
	CHECK_RESUMED(vm, r);
	CHECK_EQ_U64(d.calls, 2);
	CHECK_EQ_U64(run->mmio.data[0], 0);
	/* The device's VCPU_STOP is the dispatcher's. */
	d.ret = VCPU_STOP;
	run = set_exit(v, KVM_EXIT_MMIO);
	run->mmio.phys_addr = 0xd0000000;
	run->mmio.len = 1;
	run->mmio.is_write = 1;
	CHECK(dispatch(v) == VCPU_STOP);
	CHECK_EQ_U64(d.calls, 3);
	test_vm_free(vm);
}

/* --- MMIO, HLT, INTR: the core's own, back to the guest --------------------- */

static void test_mmio_hlt_intr(void)
{
	struct vm *vm = test_vm_new();
	struct vcpu *v = vm->vcpus[0];
	struct hook_rec fh = { 0 };
	struct kvm_run *run;
	unsigned i;
	int r;

	add_hook(vm, VM_HOOK_BEFORE_FAULT, hook_record, &fh);

	run = set_exit(v, KVM_EXIT_MMIO);
	run->mmio.phys_addr = 0xfed00000;
	run->mmio.len = 4;
	memset(run->mmio.data, 0xa5, sizeof(run->mmio.data));
	r = dispatch(v);
	CHECK_RESUMED(vm, r);
	for (i = 0; i < sizeof(run->mmio.data); i++)
		CHECK_EQ_U64(run->mmio.data[i], 0);

	run = set_exit(v, KVM_EXIT_MMIO);
	run->mmio.phys_addr = 0xfed00000;
	run->mmio.len = 8;
	run->mmio.is_write = 1;
	memset(run->mmio.data, 0xa5, sizeof(run->mmio.data));
	r = dispatch(v);
	CHECK_RESUMED(vm, r);
	for (i = 0; i < sizeof(run->mmio.data); i++)
		CHECK_EQ_U64(run->mmio.data[i], 0xa5);

	set_exit(v, KVM_EXIT_HLT);
	r = dispatch(v);
	CHECK_RESUMED(vm, r);

	set_exit(v, KVM_EXIT_INTR);
	r = dispatch(v);
	CHECK_RESUMED(vm, r);

	CHECK_EQ_U64(fh.calls, 0);
	test_vm_free(vm);
}

/* --- the reasons left to registered handlers --------------------------------- */

static void test_debug(void)
{
	struct vm *vm = test_vm_new();
	struct vcpu *v = vm->vcpus[0];
	struct exit_dev d = { .ret = VCPU_RESUME };
	struct hook_rec fh = { 0 };
	struct kvm_run *run;
	int r;

	/* The engine's handler takes it, with its context, and is obeyed. */
	add_hook(vm, VM_HOOK_BEFORE_FAULT, hook_record, &fh);
	add_exit_dev(vm, KVM_EXIT_DEBUG, &d);
	set_exit(v, KVM_EXIT_DEBUG);
	r = dispatch(v);
	CHECK_RESUMED(vm, r);
	CHECK_EQ_U64(d.calls, 1);
	CHECK(d.vcpu == v);
	CHECK(d.ctx == &d);
	CHECK_EQ_U64(d.reason, KVM_EXIT_DEBUG);

	d.ret = VCPU_STOP;
	set_exit(v, KVM_EXIT_DEBUG);
	CHECK(dispatch(v) == VCPU_STOP);
	CHECK_EQ_U64(d.calls, 2);
	CHECK(!vm->ended);
	CHECK_EQ_U64(fh.calls, 0);
	test_vm_free(vm);

	/* Without the engine, a debug exit ends the run as a fault. */
	vm = test_vm_new();
	v = vm->vcpus[0];
	memset(&fh, 0, sizeof(fh));
	add_hook(vm, VM_HOOK_BEFORE_FAULT, hook_record, &fh);
	run = set_exit(v, KVM_EXIT_DEBUG);
	run->debug.arch.exception = 1;
	run->debug.arch.dr6 = 0xffff4ff1;
	r = dispatch(v);
	CHECK_FAULTED(vm, r, &fh);
	CHECK(fh.vcpu == v);
	CHECK_EQ_U64(fh.reason, KVM_EXIT_DEBUG);
	CHECK_CONTAINS(said, "unexpected debug exit");
	CHECK_CONTAINS(said, "0xffff4ff1");
	test_vm_free(vm);
}

/*
 * @reason with a guest profile's handler: VCPU_STOP is obeyed; then
 * VCPU_DEFAULT falls through to a fault whose report says @words.
 */
static void check_profile_exit(uint32_t reason, uint32_t event, const char *words)
{
	struct vm *vm = test_vm_new();
	struct vcpu *v = vm->vcpus[0];
	struct exit_dev d = { .ret = VCPU_STOP };
	struct hook_rec fh = { 0 };
	struct kvm_run *run;
	int r;

	add_hook(vm, VM_HOOK_BEFORE_FAULT, hook_record, &fh);
	add_exit_dev(vm, reason, &d);

	run = set_exit(v, reason);
	run->system_event.type = event;
	CHECK(dispatch(v) == VCPU_STOP);
	CHECK_EQ_U64(d.calls, 1);
	CHECK(d.ctx == &d);
	CHECK_EQ_U64(d.reason, reason);
	CHECK(!vm->ended);
	CHECK_EQ_U64(fh.calls, 0);
	CHECK_EQ_U64(strlen(said), 0);

	d.ret = VCPU_DEFAULT;
	run = set_exit(v, reason);
	run->system_event.type = event;
	r = dispatch(v);
	CHECK_EQ_U64(d.calls, 2);
	CHECK_FAULTED(vm, r, &fh);
	CHECK_CONTAINS(said, words);
	test_vm_free(vm);
}

static void test_shutdown_system_event(void)
{
	check_profile_exit(KVM_EXIT_SHUTDOWN, 0, "triple fault");
	check_profile_exit(KVM_EXIT_SYSTEM_EVENT, KVM_SYSTEM_EVENT_SHUTDOWN, "system shutdown");
	check_profile_exit(KVM_EXIT_SYSTEM_EVENT, KVM_SYSTEM_EVENT_RESET, "system reset");
}

/* --- exits nobody takes --------------------------------------------------------- */

/* The record in @v->run, with no handler for it: a fault reported with each of @words. */
static void check_unhandled(struct vm *vm, const char *const *words)
{
	struct hook_rec fh = { 0 };
	int r;

	add_hook(vm, VM_HOOK_BEFORE_FAULT, hook_record, &fh);
	r = dispatch(vm->vcpus[0]);
	CHECK_FAULTED(vm, r, &fh);
	for (; *words; words++)
		CHECK_CONTAINS(said, *words);
	test_vm_free(vm);
}

static void test_unhandled(void)
{
	static const char *const fail_entry[] = { "VM entry failed", "0x80000021", "host CPU 3",
						  NULL };
	static const char *const internal[] = { "KVM internal error 1", "emulation failure", NULL };
	static const char *const delivery[] = { "KVM internal error 3",
						"exit while delivering an event",
						"data[1] = 0xbeef", NULL };
	static const char *const unknown[] = { "unexpected KVM exit reason 32767", NULL };
	static const char *const shutdown[] = { "triple fault", NULL };
	struct vm *vm;
	struct kvm_run *run;

	vm = test_vm_new();
	run = set_exit(vm->vcpus[0], KVM_EXIT_FAIL_ENTRY);
	run->fail_entry.hardware_entry_failure_reason = 0x80000021;
	run->fail_entry.cpu = 3;
	check_unhandled(vm, fail_entry);

	vm = test_vm_new();
	run = set_exit(vm->vcpus[0], KVM_EXIT_INTERNAL_ERROR);
	run->internal.suberror = KVM_INTERNAL_ERROR_EMULATION;
	check_unhandled(vm, internal);

	vm = test_vm_new();
	run = set_exit(vm->vcpus[0], KVM_EXIT_INTERNAL_ERROR);
	run->internal.suberror = KVM_INTERNAL_ERROR_DELIVERY_EV;
	run->internal.ndata = 2;
	run->internal.data[1] = 0xbeef;
	check_unhandled(vm, delivery);

	vm = test_vm_new();
	set_exit(vm->vcpus[0], EXIT_UNKNOWN);
	check_unhandled(vm, unknown);

	/* A triple fault with no guest profile to judge it. */
	vm = test_vm_new();
	set_exit(vm->vcpus[0], KVM_EXIT_SHUTDOWN);
	check_unhandled(vm, shutdown);
}

/* --- VM_HOOK_BEFORE_EXIT: before every exit, whatever its kind -------------- */

static void test_before_exit_hooks(void)
{
	struct vm *vm = test_vm_new();
	struct vcpu *v = vm->vcpus[0];
	struct port_dev pd = { .ret = VCPU_RESUME };
	struct exit_dev ed = { .ret = VCPU_RESUME };
	struct hook_rec a = { 0 }, b = { 0 }, fh = { 0 };
	unsigned start = exit_hook_calls;

	add_port_dev(vm, 0x510, 8, &pd);
	add_exit_dev(vm, KVM_EXIT_DEBUG, &ed);
	add_hook(vm, VM_HOOK_BEFORE_EXIT, hook_count_exit, &a);
	add_hook(vm, VM_HOOK_BEFORE_EXIT, hook_count_exit, &b);
	add_hook(vm, VM_HOOK_BEFORE_FAULT, hook_record, &fh);

	set_io(v, KVM_EXIT_IO_OUT, 0x510, 1, 1);
	CHECK(dispatch(v) == VCPU_RESUME);
	CHECK_EQ_U64(a.calls, 1);
	CHECK_EQ_U64(b.calls, 1);
	CHECK(a.vcpu == v);
	CHECK_EQ_U64(a.reason, KVM_EXIT_IO);
	CHECK_EQ_U64(pd.exit_hooks_before, start + 2); /* both hooks, then the device */

	set_io(v, KVM_EXIT_IO_IN, 0x80, 1, 1);
	CHECK(dispatch(v) == VCPU_RESUME);
	set_exit(v, KVM_EXIT_MMIO);
	CHECK(dispatch(v) == VCPU_RESUME);
	set_exit(v, KVM_EXIT_HLT);
	CHECK(dispatch(v) == VCPU_RESUME);
	set_exit(v, KVM_EXIT_INTR);
	CHECK(dispatch(v) == VCPU_RESUME);
	CHECK_EQ_U64(a.reason, KVM_EXIT_INTR);

	set_exit(v, KVM_EXIT_DEBUG);
	CHECK(dispatch(v) == VCPU_RESUME);
	CHECK_EQ_U64(ed.exit_hooks_before, start + 12);

	/* A fault too: the console's last bytes come before the report. */
	set_exit(v, EXIT_UNKNOWN);
	CHECK(dispatch(v) == VCPU_STOP);
	CHECK_EQ_U64(a.calls, 7);
	CHECK_EQ_U64(b.calls, 7);
	CHECK_EQ_U64(a.reason, EXIT_UNKNOWN);
	CHECK_EQ_U64(exit_hook_calls - start, 14);
	CHECK_EQ_U64(fh.calls, 1);
	test_vm_free(vm);
}

/* --- registration rules ----------------------------------------------------- */

static void test_registration(void)
{
	static const uint32_t core[] = { KVM_EXIT_IO, KVM_EXIT_MMIO, KVM_EXIT_INTR, KVM_EXIT_HLT };
	struct vm *vm = test_vm_new();
	struct vcpu *v = vm->vcpus[0];
	struct exit_dev first = { .ret = VCPU_RESUME }, second = { .ret = VCPU_STOP };
	struct port_dev p1 = { .ret = VCPU_RESUME }, p2 = { .ret = VCPU_RESUME };
	struct hook_rec h = { 0 }, h2 = { 0 };
	char why[256];
	unsigned i;

	/* One handler per reason; the first keeps it. */
	CHECK(vm_handle_exit_reason(vm, KVM_EXIT_DEBUG, "hwwatch", exit_dev_handle, &first, why,
				    sizeof(why)) == 0);
	why[0] = '\0';
	CHECK(vm_handle_exit_reason(vm, KVM_EXIT_DEBUG, "intruder", exit_dev_handle, &second, why,
				    sizeof(why)) == -EBUSY);
	CHECK_CONTAINS(why, "hwwatch");
	CHECK_CONTAINS(why, "intruder");
	set_exit(v, KVM_EXIT_DEBUG);
	CHECK(dispatch(v) == VCPU_RESUME);
	CHECK_EQ_U64(first.calls, 1);
	CHECK_EQ_U64(second.calls, 0);

	/* The core's own reasons, and no handler at all, are refused. */
	for (i = 0; i < sizeof(core) / sizeof(core[0]); i++) {
		why[0] = '\0';
		CHECK(vm_handle_exit_reason(vm, core[i], "greedy", exit_dev_handle, &second, why,
					    sizeof(why)) == -EINVAL);
		CHECK_CONTAINS(why, "greedy");
	}
	CHECK(vm_handle_exit_reason(vm, KVM_EXIT_SHUTDOWN, "nobody", NULL, NULL, why,
				    sizeof(why)) == -EINVAL);
	CHECK(vm_exit_handler_find(vm, KVM_EXIT_SHUTDOWN) == NULL);

	/* A hook once per fn and ctx at a point; another ctx is another hook. */
	CHECK(vm_hook_add(vm, VM_HOOK_BEFORE_EXIT, "console", hook_record, &h, why, sizeof(why)) ==
	      0);
	why[0] = '\0';
	CHECK(vm_hook_add(vm, VM_HOOK_BEFORE_EXIT, "again", hook_record, &h, why, sizeof(why)) ==
	      -EBUSY);
	CHECK_CONTAINS(why, "console");
	CHECK(vm_hook_add(vm, VM_HOOK_BEFORE_EXIT, "other", hook_record, &h2, why, sizeof(why)) ==
	      0);
	CHECK(vm_hook_add(vm, VM_HOOK_BEFORE_FAULT, "console", hook_record, &h, why, sizeof(why)) ==
	      0);
	set_exit(v, KVM_EXIT_HLT);
	CHECK(dispatch(v) == VCPU_RESUME);
	CHECK_EQ_U64(h.calls, 1);
	CHECK_EQ_U64(h2.calls, 1);

	/* Two devices never answer one port: the first keeps it. */
	CHECK(pio_register(&vm->pio, 0x3f8, 8, "uart", port_dev_io, &p1, NULL, 0) == 0);
	CHECK(pio_register(&vm->pio, 0x3fc, 8, "overlap", port_dev_io, &p2, NULL, 0) == -EBUSY);
	set_io(v, KVM_EXIT_IO_OUT, 0x3fc, 1, 1);
	CHECK(dispatch(v) == VCPU_RESUME);
	CHECK_EQ_U64(p1.calls, 1);
	CHECK_EQ_U64(p2.calls, 0);
	test_vm_free(vm);
}

int main(void)
{
	test_io();
	test_mmio_device();
	test_mmio_hlt_intr();
	test_debug();
	test_shutdown_system_event();
	test_unhandled();
	test_before_exit_hooks();
	test_registration();
	return check_exit_status("test-exit");
}

/* fuzz-hypercall.c: hypercalls with guest-chosen numbers, addresses and RAM. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-vm.h"
#include "vmm/dev/hypercall.h"

/*
 * Guest RAM is small so that random 32-bit addresses land inside it often
 * enough; the handlers see the same bounds checks as with 64 MiB.
 */
#define FUZZ_RAM_SIZE (64u * 1024)
#define FUZZ_NCPUS 2

/*
 * Input: a header of up to 8 calls, each 6 bytes (port offset, vCPU,
 * 32-bit argument address, little endian), then bytes copied to the
 * start of guest RAM.  The first byte's top bit turns hw mode on, so the
 * debug-register calls go past their "off" answer.
 */
struct call {
	uint8_t nr;
	uint8_t cpu;
	uint8_t gpa[4];
};

static struct fake_vm fvm;

/*
 * The VMM says what is wrong with each bad call on stderr, which is
 * unbuffered: a system call per message part, for output libFuzzer
 * throws away (-close_fd_mask).  Buffer it fully; sanitizer reports use
 * their own descriptor.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char buf[1 << 16];

	(void)argc;
	(void)argv;
	setvbuf(stderr, buf, _IOFBF, sizeof(buf));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct call calls[8];
	size_t ncalls, i;
	struct vm *vm;

	if (!fvm.vm)
		fake_vm_new(&fvm, FUZZ_NCPUS, FUZZ_RAM_SIZE, FUZZ_SYMTEST_ELF);
	vm = fvm.vm;
	if (size < 1)
		return 0;
	fake_vm_reset(&fvm);
	ncalls = (data[0] & 7) + 1;
	vm->watch_hw = data[0] >> 7;
	data++, size--;
	if (size < ncalls * sizeof(struct call))
		return 0;
	memcpy(calls, data, ncalls * sizeof(struct call));
	data += ncalls * sizeof(struct call);
	size -= ncalls * sizeof(struct call);
	memcpy(vm->ram, data, size < FUZZ_RAM_SIZE ? size : FUZZ_RAM_SIZE);

	for (i = 0; i < ncalls && !vm_stopping(vm); i++) {
		struct vcpu *v = vm->vcpus[calls[i].cpu % FUZZ_NCPUS];
		/* Mostly a well-formed OUT; now and then a malformed transport. */
		unsigned io_size = calls[i].cpu & 0x80 ? 1u << (calls[i].cpu & 3) : 4;

		hc_handle_io(v, (uint16_t)(CSAN_HC_PORT_BASE + calls[i].nr), !(calls[i].cpu & 0x40),
			     calls[i].gpa, io_size, 1);
	}
	return 0;
}

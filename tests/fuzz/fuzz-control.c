/* fuzz-control.c: control-socket command lines, parsed and run. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csan/abi.h"
#include "fake-vm.h"
#include "vmm/guest/csan/csan_state.h"
#include "vmm/run/control_cmd.h"

static struct fake_vm fvm;
static FILE *devnull;

/*
 * Input: one flags byte (bit 0: a guest control block is attached; bit 1:
 * the host cannot do hw mode), then the line.  The control server cuts
 * lines at CONTROL_LINE_MAX and at newlines; this feeds control_parse
 * longer and stranger ones too, since it must stay safe on its own.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct csan_control block;
	struct control_cmd cmd;
	char why[256];
	char *line;
	struct vm *vm;

	if (!fvm.vm) {
		fake_vm_new(&fvm, 2, 4096, NULL);
		devnull = fopen("/dev/null", "w");
		if (!devnull)
			abort();
	}
	if (size < 1)
		return 0;
	vm = fvm.vm;
	fake_vm_reset(&fvm);
	memset(&block, 0, sizeof(block));
	block.magic = CSAN_CONTROL_MAGIC;
	block.size = sizeof(block);
	block.ncounters = CSAN_COUNTER_MAX;
	if (data[0] & 1) {
		csan_state(vm)->control = &block;
		csan_state(vm)->control_ncounters = CSAN_COUNTER_MAX;
		csan_state(vm)->control_size = sizeof(block);
	}
	snprintf(vm->hw_unavailable, sizeof(vm->hw_unavailable), "%s",
		 data[0] & 2 ? "fuzzing: no debug registers" : "");
	line = strndup((const char *)data + 1, size - 1);
	if (!line)
		return 0;
	why[0] = '\0';
	if (control_parse(line, &cmd, why, sizeof(why)) == 0) {
		control_run(vm, &cmd, devnull);
		/* The parser checks the range, of the runtime's knob or of sampling's. */
		if (cmd.verb == CONTROL_SET && cmd.knob && cmd.value > cmd.knob->max)
			abort();
		if (cmd.verb == CONTROL_SET && cmd.sample_knob &&
		    (cmd.value < cmd.sample_knob->min || cmd.value > cmd.sample_knob->max))
			abort();
		if (cmd.verb == CONTROL_SET && !cmd.knob == !cmd.sample_knob)
			abort(); /* exactly one knob is set */
	} else if (!why[0]) {
		abort(); /* every error says why */
	}
	free(line);
	return 0;
}

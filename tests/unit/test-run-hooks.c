/* test-run-hooks.c: a run calls the rooms' hooks in the order kvm/hooks.h promises. */
#include "config.h"

#include <string.h>

#include "vmm/kvm/vm.h"
#include "check.h"

/* The points a run passed, in order, as their initials. */
static char seen[64];

static int note(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	const char *what = ctx;
	size_t n = strlen(seen);

	(void)vcpu;
	if (n + 2 < sizeof(seen)) {
		seen[n] = what[0];
		seen[n + 1] = '\0';
	}
	/* The first tick ends the run, as a user's quit would. */
	if (what[0] == 't')
		vm_end(vm, VM_END_QUIT, 0, 0);
	return what[0] == 't' ? 50 : 0;
}

int main(void)
{
	static const struct {
		enum vm_hook_point point;
		const char *name;
	} points[] = {
		{ VM_HOOK_RUN_END, "end" },	    { VM_HOOK_VCPUS_STOPPED, "vcpus stopped" },
		{ VM_HOOK_RUN_ENDING, "ending" },   { VM_HOOK_TICK, "tick" },
		{ VM_HOOK_RUN_START, "run start" }, { VM_HOOK_DESTROY, "destroy" },
	};
	/* No vCPU: the run is the supervisor and the hooks alone. */
	struct vm *vm = vm_new(&(struct vm_config){ .ncpus = 0, .timeout_s = 5 });
	struct vm_outcome out = { 0 };
	char why[256];
	size_t i;

	CHECK(vm != NULL);
	if (!vm)
		return check_exit_status("test-run-hooks");
	/* Registered in the reverse order: the order of the points is the run's. */
	for (i = 0; i < sizeof(points) / sizeof(points[0]); i++)
		CHECK(vm_hook_add(vm, points[i].point, "test", note, (void *)points[i].name, why,
				  sizeof(why)) == 0);
	CHECK(vm_run(vm, &out) == 0);
	CHECK(out.end == VM_END_QUIT);
	/* run start, tick, ending, vcpus stopped, end: each once, in that order. */
	CHECK(strcmp(seen, "rteve") == 0);
	if (check_failures)
		fprintf(stderr, "the run passed: %s\n", seen);
	vm_destroy(vm);
	CHECK(strcmp(seen, "rteved") == 0); /* and destroy, last */
	return check_exit_status("test-run-hooks");
}

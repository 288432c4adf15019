/* test-kmod-sandbox.c: hw mode places a module from a vCPU thread, under its sandbox. */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/kvm/sandbox.h"
#include "watch/kmod.h"
#include "watch/sym.h"
#include "check.h"
#include "../watch/kmod-guest.h"
#include "../watch/watch-test.h"

/*
 * kmod_refresh runs where the unwinder does, on the trapping vCPU's
 * thread, whose seccomp allow-list refuses what it does not list (a
 * refused call ends the process with status 2): loading a .ko there must
 * keep to it.  The module list is test-kmod's fake guest memory.
 */
static struct gmem g;
static int placed = -1, lines;
static struct sym_frame fr[SYM_MAX_FRAMES];

static void *vcpu_thread(void *arg)
{
	struct sym *sym = arg;
	char why[256];

	if (sandbox_enter(why, sizeof(why)) != 0) {
		fprintf(stderr, "test-kmod-sandbox: %s\n", why);
		return NULL;
	}
	placed = kmod_refresh(sym, gmem_read, &g);
	/* A soft-mode frame's lookup opens the .ko's DWARF: here too. */
	lines = sym_lookup(sym, G_BASE + 1, 0, fr, SYM_MAX_FRAMES);
	if (lines > 0 && fr[0].line > 0)
		lines = fr[0].line;
	return NULL;
}

int main(void)
{
	struct kmod_opts o = { .dir = KO_DIR };
	char why[256];
	struct sym *sym;
	pthread_t t;
	int n;

	if (sandbox_prepare(why, sizeof(why)) != 0) {
		printf("SKIP: %s\n", why);
		return 77;
	}
	CHECK(sym_open(symtest_path(), &sym, why, sizeof(why)) == 0);
	CHECK(kmod_attach(sym, &o, why, sizeof(why)) == 0);
	CHECK(kmod_set_guest_layout(sym, &gmem_layout) == 0);
	gmem_module_list(&g, G_BASE);
	CHECK(pthread_create(&t, NULL, vcpu_thread, sym) == 0);
	pthread_join(t, NULL);
	CHECK_EQ_U64(placed, 1);
	CHECK(lines > 0); /* a line number from the .ko's DWARF, on the sandboxed thread */
	n = sym_lookup(sym, G_BASE + 1, 0, fr, SYM_MAX_FRAMES);
	CHECK(n >= 1 && fr[n - 1].module && strcmp(fr[n - 1].module, "kmod_fixture") == 0);
	sym_close(sym);
	return check_exit_status("test-kmod-sandbox");
}

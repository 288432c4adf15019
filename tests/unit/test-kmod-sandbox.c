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

/*
 * kmod_refresh runs where the unwinder does, on the trapping vCPU's
 * thread, whose seccomp allow-list refuses what it does not list (a
 * refused call ends the process with status 2): loading a .ko there must
 * keep to it.  The module list is a fake guest memory, as in test-kmod.
 */
#define KO_DIR "tests/watch/kmods"
#define G_HEAD 0xffffffff82000000ull
#define G_MOD  0xffff888000100000ull
#define G_BASE 0xffffffffa0000000ull

static const struct kmod_guest_layout layout = {
	.modules = G_HEAD,
	.off_list = 8,
	.off_state = 0,
	.off_name = 24,
	.off_base = 0x140,
	.off_text_size = 0x14c,
};

static bool gread(void *ctx, uint64_t a, uint64_t *v)
{
	static const char name[16] = "kmod_fixture";

	(void)ctx;
	if (a == G_HEAD)
		*v = G_MOD + 8;
	else if (a == G_MOD + 8)
		*v = G_HEAD;
	else if (a == G_MOD + 24 || a == G_MOD + 32)
		memcpy(v, name + (a - G_MOD - 24), 8);
	else if (a == G_MOD + 0x140)
		*v = G_BASE;
	else if (a == G_MOD + 0x14c)
		*v = 0x1000;
	else if (a >= G_MOD && a < G_MOD + 0x200)
		*v = 0;
	else
		return false;
	return true;
}

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
	placed = kmod_refresh(sym, gread, NULL);
	/* A soft-mode frame's lookup opens the .ko's DWARF: here too. */
	lines = sym_lookup(sym, G_BASE + 1, 0, fr, SYM_MAX_FRAMES);
	if (lines > 0 && fr[0].line > 0)
		lines = fr[0].line;
	return NULL;
}

int main(void)
{
	struct kmod_opts o = { .dir = KO_DIR };
	char why[256], path[4096];
	const char *top = getenv("top_srcdir");
	struct sym *sym;
	pthread_t t;
	int n;

	snprintf(path, sizeof(path), "%s/tests/watch/symtest.elf", top && *top ? top : ".");
	if (sandbox_prepare(why, sizeof(why)) != 0) {
		printf("SKIP: %s\n", why);
		return 77;
	}
	CHECK(sym_open(path, &sym, why, sizeof(why)) == 0);
	CHECK(kmod_attach(sym, &o, why, sizeof(why)) == 0);
	CHECK(kmod_set_guest_layout(sym, &layout) == 0);
	CHECK(pthread_create(&t, NULL, vcpu_thread, sym) == 0);
	pthread_join(t, NULL);
	CHECK_EQ_U64(placed, 1);
	CHECK(lines > 0); /* a line number from the .ko's DWARF, on the sandboxed thread */
	n = sym_lookup(sym, G_BASE + 1, 0, fr, SYM_MAX_FRAMES);
	CHECK(n >= 1 && fr[n - 1].module && strcmp(fr[n - 1].module, "kmod_fixture") == 0);
	sym_close(sym);
	return check_exit_status("test-kmod-sandbox");
}

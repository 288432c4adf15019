/* kmod-guest.h: the module tests' fake guest memory, with a module list holding kmod_fixture. */
#ifndef CSAN_TESTS_KMOD_GUEST_H
#define CSAN_TESTS_KMOD_GUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "watch/kmod.h"

/* Built by make from tests/watch/kmod-fixture.c (an ET_REL file, as a .ko is). */
#define KO_DIR "tests/watch/kmods"

#define G_HEAD 0xffffffff82000000ull /* the list head "modules" */
#define G_MOD  0xffff888000100000ull /* the struct module */
#define G_BASE 0xffffffffa0000000ull /* its core_layout.base */

/* Where kmod finds the list and a struct module's fields in the fake guest. */
extern const struct kmod_guest_layout gmem_layout;

/* Guest memory as a few 8-byte words; the rest of the struct module reads as zero. */
struct gmem {
	uint64_t addr[64], val[64];
	unsigned n;
};

/* Set the word at @a (a new one, or the one already there). */
void gmem_put(struct gmem *g, uint64_t a, uint64_t v);

/* kmod's and orc's guest reader over @ctx, a struct gmem; false: unmapped. */
bool gmem_read(void *ctx, uint64_t a, uint64_t *v);

/* A list holding one live module "kmod_fixture", its code at @base. */
void gmem_module_list(struct gmem *g, uint64_t base);

#endif /* CSAN_TESTS_KMOD_GUEST_H */

/* kmod-guest.c: the module tests' fake guest memory (kmod-guest.h). */
#include <string.h>

#include "kmod-guest.h"

const struct kmod_guest_layout gmem_layout = {
	.modules = G_HEAD,
	.off_list = 8,
	.off_state = 0,
	.off_name = 24,
	.off_base = 0x140,
	.off_text_size = 0x14c,
};

void gmem_put(struct gmem *g, uint64_t a, uint64_t v)
{
	unsigned i;

	for (i = 0; i < g->n && g->addr[i] != a; i++)
		;
	if (i == g->n)
		g->n++;
	g->addr[i] = a;
	g->val[i] = v;
}

bool gmem_read(void *ctx, uint64_t a, uint64_t *v)
{
	struct gmem *g = ctx;
	unsigned i;

	for (i = 0; i < g->n; i++)
		if (g->addr[i] == a) {
			*v = g->val[i];
			return true;
		}
	/* Unset struct module bytes read as zero; anything else is unmapped. */
	if (a >= G_MOD && a < G_MOD + 0x200) {
		*v = 0;
		return true;
	}
	return false;
}

void gmem_module_list(struct gmem *g, uint64_t base)
{
	char name[16] = "kmod_fixture";
	uint64_t w;

	gmem_put(g, G_HEAD, G_MOD + gmem_layout.off_list);
	gmem_put(g, G_MOD + gmem_layout.off_list, G_HEAD);
	memcpy(&w, name, 8);
	gmem_put(g, G_MOD + gmem_layout.off_name, w);
	memcpy(&w, name + 8, 8);
	gmem_put(g, G_MOD + gmem_layout.off_name + 8, w);
	gmem_put(g, G_MOD + gmem_layout.off_base, base);
	gmem_put(g, G_MOD + gmem_layout.off_text_size, 0x1000);
}

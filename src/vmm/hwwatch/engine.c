/* engine.c: the hardware-watch engine's life, and the lookups its files share. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "vmm/hwwatch/engine.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/kvm/guest_mem.h"
#include "vmm/kvm/vcpu.h"
#include "watch/debugreg.h"

struct hw_engine *hw_engine_new(unsigned ncpus)
{
	struct hw_engine *hw = calloc(1, sizeof(*hw));

	if (!hw)
		return NULL;
	hw->vcpus = calloc(ncpus ? ncpus : 1, sizeof(*hw->vcpus));
	if (!hw->vcpus) {
		free(hw);
		return NULL;
	}
	hw->ncpus = ncpus;
	pthread_mutex_init(&hw->lock, NULL);
	dr_alloc_init(&hw->alloc);
	return hw;
}

void hw_watch_set_view(struct hw_engine *hw, const struct hw_guest_view *view)
{
	hw->view = view;
}

void hw_engine_free(struct hw_engine *hw)
{
	if (!hw)
		return;
	pthread_mutex_destroy(&hw->lock);
	free(hw->vcpus);
	free(hw);
}

struct hw_armed *hw_find_armed(struct hw_engine *hw, uint32_t ticket)
{
	unsigned i;

	for (i = 0; i < HW_MAX_WATCHES; i++)
		if (ticket && hw->armed[i].ticket == ticket)
			return &hw->armed[i];
	return NULL;
}

uint64_t hw_read_value(struct vcpu *vcpu, uint64_t addr, uint32_t size)
{
	uint64_t v = 0;

	guest_read_linear(vcpu, addr, &v, size < sizeof(v) ? size : sizeof(v));
	return v;
}

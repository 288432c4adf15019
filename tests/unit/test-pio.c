/* test-pio.c: the port and MMIO buses find each device's range and refuse overlaps. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "vmm/kvm/bus.h"
#include "check.h"

static int nop(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
	       unsigned size, unsigned count)
{
	(void)vcpu, (void)ctx, (void)port, (void)is_write, (void)data, (void)size, (void)count;
	return 0;
}

static int mnop(struct vcpu *vcpu, void *ctx, uint64_t addr, bool is_write, uint8_t *data,
		unsigned len)
{
	(void)vcpu, (void)ctx, (void)addr, (void)is_write, (void)data, (void)len;
	return 0;
}

int main(void)
{
	struct bus bus = { 0 }, mmio;
	char why[256];
	int a, b;
	unsigned i;

	CHECK(pio_register(&bus, 0x3f8, 8, "uart", nop, &a, NULL, 0) == 0);
	CHECK(pio_register(&bus, 0x70, 2, "rtc", nop, &b, NULL, 0) == 0);
	CHECK(pio_register(&bus, 0x3ff, 1, "clash", nop, NULL, NULL, 0) == -EBUSY);
	CHECK(pio_register(&bus, 0x3f0, 9, "clash", nop, NULL, NULL, 0) == -EBUSY);
	/* The refusal names both owners, so a set-up bug says where to look. */
	CHECK(pio_register(&bus, 0x3fa, 2, "clash", nop, NULL, why, sizeof(why)) == -EBUSY);
	CHECK(strstr(why, "the clash") && strstr(why, "the uart"));
	CHECK(pio_register(&bus, 0x3f0, 8, "below", nop, NULL, NULL, 0) == 0);
	CHECK(pio_register(&bus, 0xffff, 2, "past the end", nop, NULL, NULL, 0) == -EINVAL);
	CHECK(pio_register(&bus, 0x100, 0, "empty", nop, NULL, NULL, 0) == -EINVAL);
	CHECK(pio_find(&bus, 0x3f8) && pio_find(&bus, 0x3f8)->ctx == &a);
	CHECK(pio_find(&bus, 0x3ff) && pio_find(&bus, 0x3ff)->ctx == &a);
	CHECK(pio_find(&bus, 0x71) && pio_find(&bus, 0x71)->ctx == &b);
	CHECK(pio_find(&bus, 0x72) == NULL);
	CHECK(pio_find(&bus, 0x400) == NULL);
	for (i = bus.n; i < BUS_MAX_RANGES; i++)
		CHECK(pio_register(&bus, (uint16_t)(0x1000 + i * 16), 16, "fill", nop, NULL, NULL,
				   0) == 0);
	CHECK(pio_register(&bus, 0x8000, 1, "one too many", nop, NULL, NULL, 0) == -ENOSPC);

	/* The MMIO bus: 64-bit addresses, the top of the space included. */
	memset(&mmio, 0, sizeof(mmio));
	CHECK(mmio_register(&mmio, 0xd0000000, 0x200, "virtio", mnop, &a, NULL, 0) == 0);
	CHECK(mmio_register(&mmio, 0xd00001ff, 1, "clash", mnop, NULL, why, sizeof(why)) == -EBUSY);
	CHECK(strstr(why, "MMIO") && strstr(why, "the clash") && strstr(why, "the virtio"));
	CHECK(mmio_register(&mmio, 0xcfffff00, 0x101, "clash", mnop, NULL, NULL, 0) == -EBUSY);
	CHECK(mmio_register(&mmio, UINT64_MAX - 0xfff, 0x1000, "top", mnop, &b, NULL, 0) ==
	      -EINVAL);
	CHECK(mmio_register(&mmio, UINT64_MAX - 0x1000, 0x1000, "top", mnop, &b, NULL, 0) == 0);
	CHECK(bus_find(&mmio, 0xd00001ff) && bus_find(&mmio, 0xd00001ff)->ctx == &a);
	CHECK(bus_find(&mmio, 0xd0000200) == NULL);
	CHECK(bus_find(&mmio, UINT64_MAX - 1) && bus_find(&mmio, UINT64_MAX - 1)->ctx == &b);
	CHECK(bus_find(&mmio, UINT64_MAX) == NULL);
	return check_exit_status("test-pio");
}

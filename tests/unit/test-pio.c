/* test-pio.c: the port bus finds each device's range and refuses overlaps. */
#include <errno.h>
#include <string.h>

#include "vmm/kvm/pio.h"
#include "check.h"

static int nop(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
	       unsigned size, unsigned count)
{
	(void)vcpu, (void)ctx, (void)port, (void)is_write, (void)data, (void)size, (void)count;
	return 0;
}

int main(void)
{
	struct pio_bus bus = { 0 };
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
	for (i = bus.n; i < PIO_MAX_RANGES; i++)
		CHECK(pio_register(&bus, (uint16_t)(0x1000 + i * 16), 16, "fill", nop, NULL, NULL,
				   0) == 0);
	CHECK(pio_register(&bus, 0x8000, 1, "one too many", nop, NULL, NULL, 0) == -ENOSPC);
	return check_exit_status("test-pio");
}
